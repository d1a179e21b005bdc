"""The image, built from this checkout and run as the webhook deploy runs it (issue 38): the
migrate and set-webhook jobs, then two webhook containers on this machine's PostgreSQL (a fresh
database) and Redis, Caddy in front serving HTTPS with its own authority (`tls internal`) on
127.0.0.1, and the emulator as Telegram posting to Caddy over HTTPS, trusting that authority.
`/readyz` turns 200 on both, a private game is played to its end, both containers took updates,
the image's HEALTHCHECK passes, a SIGTERM (`podman stop --time 5`) ends each container with exit
code 0 (the bot's own: podman kills at 5 s, and that is 137) and no traceback, and
`python -m tg_durak check`, run from the image, is clean.

Runs where podman is installed (.ci/run installs it, runc, debootstrap and Caddy); the build is
docs/deploying.md's "Building without a registry" (tests/deploy/podman.py). The times it took are
printed (pytest -s shows them); docs/deploying.md gives them for a fresh machine.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import ssl
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import pytest

from tests.bot.app_pages import free_port
from tests.bot.conftest import (
    ALICE,
    CALLBACK_TTL,
    EDIT_INTERVAL,
    TIME_SCALE,
    is_over,
    play_to_end,
)
from tests.bot.faults import quick_game
from tests.deploy.podman import Built, build_image, podman, run_args
from tests.helpers.fleet import forget_redis, unique_token
from tests.store.postgres_server import worker_database
from tg_durak.emulator import FakeTelegram

pytestmark = pytest.mark.skipif(shutil.which("podman") is None,
                                reason="podman is not installed (.ci/run installs it)")

REDIS = os.environ.get("DURAK_TEST_REDIS", "redis://127.0.0.1:6379/0")
SECRET = "image-e2e_Secret1"
HOOK_PATH = "/telegram/updates"
# What docs/running.md#stopping promises: `podman stop` sends SIGTERM and, after this long,
# SIGKILL (exit code 137). Exit code 0 is the bot's own, within it.
STOP_SECONDS = 5
# Python, aiogram and numba loading in a container beside other work on two cores, and a game
# played through two containers and a proxy there: a guard against a hang, as
# tests/processes.START_TIMEOUT.
READY_TIMEOUT = 300.0


@pytest.fixture(scope="module")
def built() -> Iterator[Built]:
    started = time.monotonic()
    image = build_image()
    print(f"\nimage: base {image.base_seconds:.0f} s, build {image.build_seconds:.0f} s"
          f" (in all {time.monotonic() - started:.0f} s)")
    yield image


@dataclass
class Proxy:
    """Caddy on 127.0.0.1:`port`, HTTPS with its local authority, in front of the workers."""

    port: int
    root: Path   # the authority's certificate: what a client must trust
    process: subprocess.Popen

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"


def caddyfile(port: int, http_port: int, upstreams: list[int], data: Path) -> str:
    """deploy/Caddyfile's site for workers on this machine (docs/deploying.md's systemd one),
    with Caddy's own authority instead of a public one and nothing on the usual ports."""
    targets = " ".join(f"127.0.0.1:{p}" for p in upstreams)
    return f"""{{
	admin off
	local_certs
	skip_install_trust
	auto_https disable_redirects
	http_port {http_port}
	https_port {port}
	storage file_system {data}
}}
https://127.0.0.1:{port} {{
	tls internal
	@metrics path /metrics
	respond @metrics 404
	reverse_proxy {targets} {{
		lb_policy round_robin
		lb_try_duration 5s
		health_uri /readyz
		health_interval 1s
	}}
}}
"""


@pytest.fixture
async def proxy(tmp_path: Path, worker_ports: list[int]) -> AsyncIterator[Proxy]:
    port, data = free_port(), tmp_path / "caddy"
    config = tmp_path / "Caddyfile"
    config.write_text(caddyfile(port, free_port(), worker_ports, data))
    log = (tmp_path / "caddy.log").open("wb")
    process = subprocess.Popen(
        ["caddy", "run", "--config", str(config), "--adapter", "caddyfile"],
        stdout=log, stderr=subprocess.STDOUT,
        env={**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config")})
    root = data / "pki" / "authorities" / "local" / "root.crt"
    try:
        deadline = time.monotonic() + 60
        while not root.exists():   # made as Caddy starts, before it serves
            assert process.poll() is None, (tmp_path / "caddy.log").read_text()
            assert time.monotonic() < deadline, "Caddy made no authority in 60 s"
            await asyncio.sleep(0.1)
        yield Proxy(port, root, process)
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


@pytest.fixture
def worker_ports() -> list[int]:
    return [free_port(), free_port()]


@pytest.fixture
async def tg(proxy: Proxy) -> AsyncIterator[FakeTelegram]:
    """The emulator with a token of its own (its keys in the shared Redis are the test's), which
    trusts Caddy's authority as Telegram trusts a webhook's certificate."""
    token = unique_token()
    async with FakeTelegram(token, callback_ttl=CALLBACK_TTL,
                            webhook_ca=str(proxy.root)) as fake:
        fake.add_user(ALICE, "Alice", language_code="en")
        yield fake
    await forget_redis(REDIS, token)


@pytest.fixture
def database() -> Iterator[str]:
    with worker_database() as url:
        yield url


@pytest.fixture
def secrets(tmp_path: Path, tg: FakeTelegram, database: str) -> Path:
    """The secrets as files, as compose mounts them: readable by the image's user (uid 10001)."""
    folder = tmp_path / "secrets"
    folder.mkdir(mode=0o755)
    for name, value in {"bot_token": tg.token, "durak_db": database,
                        "webhook_secret": SECRET}.items():
        (folder / name).write_text(value + "\n")
        (folder / name).chmod(0o644)
    folder.chmod(0o755)
    return folder


class Containers:
    """The workers started, by name: removed at the end whatever happened."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def name(self, slot: int) -> str:
        return f"durak-e2e-{os.getpid()}-{slot}"

    async def logs(self) -> str:
        return "\n".join([f"---- {name}\n{(await podman('logs', name)).output}"
                          for name in self.names])

    async def remove(self) -> None:
        for name in self.names:
            await podman("rm", "--force", "--time", "0", name)


@pytest.fixture
async def containers() -> AsyncIterator[Containers]:
    running = Containers()
    try:
        yield running
    finally:
        await running.remove()


async def ready(session: aiohttp.ClientSession, url: str, ca: ssl.SSLContext | bool) -> float:
    """Seconds until `url` answers 200."""
    started = time.monotonic()
    while True:
        try:
            async with session.get(url, ssl=ca) as response:
                if response.status == 200:
                    return time.monotonic() - started
        except aiohttp.ClientError:
            pass
        assert time.monotonic() - started < READY_TIMEOUT, f"{url} not ready"
        await asyncio.sleep(0.25)


async def updates_taken(session: aiohttp.ClientSession, port: int) -> float:
    """The updates a worker handled, from its /metrics (the test is a loopback client)."""
    async with session.get(f"http://127.0.0.1:{port}/metrics") as response:
        text = await response.text()
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith("durak_updates_total{") and 'outcome="handled"' in line)


async def test_the_image_runs_the_webhook_deploy_behind_https(
        built: Built, tg: FakeTelegram, proxy: Proxy, secrets: Path, worker_ports: list[int],
        containers: Containers) -> None:
    env = {"BOT_TOKEN_FILE": "/run/secrets/bot_token", "DURAK_DB_FILE": "/run/secrets/durak_db",
           "TELEGRAM_API_URL": str(tg.url), "LOG_LEVEL": "WARNING",
           "DURAK_TIME_SCALE": str(TIME_SCALE), "DURAK_EDIT_INTERVAL": str(EDIT_INTERVAL)}
    hook = {"DURAK_WEBHOOK_URL": proxy.url + HOOK_PATH,
            "DURAK_WEBHOOK_SECRET_FILE": "/run/secrets/webhook_secret"}
    # The deploy's one-shot jobs, in compose.yaml's order.
    migrated = await podman("run", "--rm", *run_args(built.image, env, secrets,
                                                     ["python", "-m", "tg_durak", "migrate"]))
    assert migrated.code == 0, migrated.output
    registered = await podman("run", "--rm", *run_args(
        built.image, {**env, **hook}, secrets, ["python", "-m", "tg_durak", "set-webhook"]))
    assert registered.code == 0, registered.output
    assert tg.state.updates.webhook is not None
    # Two workers; the image sets DURAK_WEB_HOST to every address, the host's network wants
    # loopback.
    started = time.monotonic()
    for slot, port in enumerate(worker_ports):
        name = containers.name(slot)
        worker_env = {**env, **hook, "DURAK_REDIS": REDIS, "DURAK_WEB_HOST": "127.0.0.1",
                      "DURAK_WEB_PORT": str(port)}
        ran = await podman("run", "--detach", "--name", name, *run_args(
            built.image, worker_env, secrets, ["python", "-m", "tg_durak", "webhook"]))
        assert ran.code == 0, ran.output
        containers.names.append(name)
    authority = ssl.create_default_context(cafile=str(proxy.root))
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as session:
        for port in worker_ports:
            await ready(session, f"http://127.0.0.1:{port}/readyz", True)
        await ready(session, proxy.url + "/readyz", authority)
        print(f"both workers ready {time.monotonic() - started:.1f} s after their start")
        async with session.get(proxy.url + "/metrics", ssl=authority) as response:
            assert response.status == 404, "the public address does not serve the metrics"

        await quick_game(tg, ALICE)
        assert is_over(await play_to_end(tg, ALICE, seed=3, timeout=READY_TIMEOUT))
        assert tg.webhooks.posts and {p.url for p in tg.webhooks.posts} == {proxy.url + HOOK_PATH}
        assert tg.pending_updates == []
        taken = [await updates_taken(session, port) for port in worker_ports]
        assert all(count > 0 for count in taken), f"Caddy sent updates to one worker: {taken}"

    checked = await podman("healthcheck", "run", containers.names[0])
    assert checked.code == 0, checked.output   # the image's HEALTHCHECK: /healthz answered

    for name in containers.names:
        begun = time.monotonic()
        stopped = await podman("stop", "--time", str(STOP_SECONDS), name)
        took = time.monotonic() - begun
        assert stopped.code == 0, stopped.output
        code = await podman("inspect", "--format", "{{.State.ExitCode}}", name)
        print(f"{name}: stopped by SIGTERM in {took:.1f} s, exit code {code.output.strip()}")
        assert code.output.strip() == "0", f"not stopped by itself within {STOP_SECONDS} s: " + \
            await containers.logs()
    logs = await containers.logs()
    assert "Traceback" not in logs and "ERROR" not in logs, logs

    check = await podman("run", "--rm", *run_args(built.image, env, secrets,
                                                  ["python", "-m", "tg_durak", "check"]))
    assert check.code == 0, check.output


def test_the_deploy_caddyfile_is_one_caddy_reads(tmp_path: Path) -> None:
    """deploy/Caddyfile, with a domain, adapts to Caddy's configuration without a warning."""
    if shutil.which("caddy") is None:
        pytest.fail("Caddy is not installed (.ci/run installs it)")
    done = subprocess.run(
        ["caddy", "adapt", "--config", str(Path(__file__).parents[2] / "deploy" / "Caddyfile"),
         "--adapter", "caddyfile"], capture_output=True, text=True, timeout=60,
        env={**os.environ, "DURAK_DOMAIN": "durak.example.com", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert "durak.example.com" in done.stdout and "WARN" not in done.stderr, done.stderr

