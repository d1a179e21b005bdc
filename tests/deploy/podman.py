"""The image and its containers through Debian's podman, as docs/deploying.md's "Building
without a registry" does it: a debootstrap base (deploy/podman-base.sh, kept under ~/.cache),
`podman build --build-arg BASE=...`, containers on the host's network.

Podman on these machines needs runc (its default crun is missing) and explicit ulimits; a build
needs the host's network for pip and the docker format for the HEALTHCHECK.
"""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BASE = "localhost/durak-base:bookworm"
IMAGE = "localhost/tg-durak:e2e"
LIMITS = ("--runtime", "runc", "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024")
# The build: debootstrap fetches about 40 MB of Debian's packages, pip the wheels (on two busy
# cores, minutes): a guard against a hang, not a measure.
BUILD_TIMEOUT = 900


@dataclass(frozen=True)
class Built:
    image: str
    base_seconds: float    # the base: made (debootstrap, import), imported again or found
    build_seconds: float   # podman build, with whatever layers its cache holds


def build_image() -> Built:
    """The base (made once, then kept) and the image from this checkout."""
    started = time.monotonic()
    subprocess.run([str(ROOT / "deploy" / "podman-base.sh"), BASE], check=True,
                   timeout=BUILD_TIMEOUT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    based = time.monotonic()
    done = subprocess.run(
        ["podman", "build", *LIMITS, "--network", "host", "--format", "docker",
         "--build-arg", f"BASE={BASE}", "-t", IMAGE, str(ROOT)],
        timeout=BUILD_TIMEOUT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        raise RuntimeError("podman build failed:\n" + done.stdout.decode()[-4000:])
    return Built(IMAGE, based - started, time.monotonic() - based)


@dataclass(frozen=True)
class Ran:
    code: int
    output: str   # stdout and stderr, podman's own lines left out


async def podman(*args: str, timeout: float = 120) -> Ran:
    proc = await asyncio.create_subprocess_exec(
        "podman", *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    out, _ = await asyncio.wait_for(proc.communicate(), timeout)
    assert proc.returncode is not None
    return Ran(proc.returncode, _without_podman_noise(out.decode()))


def _without_podman_noise(text: str) -> str:
    """Without podman's complaint that no systemd runs its health-check timers (these machines
    have none: `podman healthcheck run` runs the check instead)."""
    return "\n".join(line for line in text.splitlines()
                     if "unable to get systemd connection" not in line)


def run_args(image: str, env: Mapping[str, str], secrets: Path,
             command: Sequence[str]) -> list[str]:
    """`podman run`'s arguments for the bot's image on the host's network, the secrets mounted
    read-only at /run/secrets as compose mounts them."""
    pairs = [arg for name, value in env.items() for arg in ("--env", f"{name}={value}")]
    return [*LIMITS, "--network", "host", "--volume", f"{secrets}:/run/secrets:ro", *pairs,
            image, *command]
