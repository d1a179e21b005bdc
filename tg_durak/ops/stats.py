"""What a running bot has counted, for its operator and for bench/load.py.

The report is a JSON object with a part per component (``tables``, ``publisher``,
``computers``). It is given three ways: `kill -USR1 <pid>` makes the bot write one line to stderr,
``stats {...}``; with ``DURAK_STATS_FILE`` set the bot rewrites that file (the object alone) every
few seconds and once more as it stops; and the stats line is logged at INFO when the bot stops.
A component takes part by having a ``stats`` attribute: a mapping of plain numbers, or a method
returning one. Counting stays the components' own cheap business (a Counter increment); nothing
is computed until asked.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

PREFIX = "stats "
FILE_EVERY = 2.0  # seconds between two writes of the stats file


def counters(component: object) -> dict[str, Any]:
    """A component's counters as a plain dict ({} if it counts nothing)."""
    found = getattr(component, "stats", None)
    if callable(found):
        found = found()
    return dict(found) if isinstance(found, Mapping) else {}


def snapshot(components: Mapping[str, object]) -> str:
    """Every component's counters under its name, as one line of JSON."""
    parts = {name: counters(component) for name, component in components.items()}
    return json.dumps(parts, separators=(",", ":"), default=str)


def report(components: Mapping[str, object]) -> str:
    """The stats line."""
    return PREFIX + snapshot(components)


def write_file(path: str, components: Mapping[str, object]) -> None:
    """The report into ``path``, replaced whole: a reader never sees half of one."""
    target = Path(path)
    partial = target.with_name(f".{target.name}.{os.getpid()}")
    partial.write_text(snapshot(components) + "\n")
    os.replace(partial, target)


async def keep_writing(path: str, components: Mapping[str, object],
                       every: float = FILE_EVERY) -> None:
    """Rewrite the stats file every ``every`` seconds until cancelled; a failed write is
    logged once and retried."""
    failed = False
    while True:
        try:
            write_file(path, components)
            failed = False
        except OSError as exc:
            if not failed:
                log.warning("stats: cannot write %s: %s", path, exc)
            failed = True
        await asyncio.sleep(every)


def final_report(components: Mapping[str, object], path: str | None) -> None:
    """At stop: the stats line at INFO, and the file (if any) one last time."""
    log.info("%s", report(components))
    if path:
        with contextlib.suppress(OSError):
            write_file(path, components)


def report_on_signal(components: Mapping[str, object]) -> None:
    """Write the stats line to stderr on SIGUSR1 (where the platform has it, and only for a loop
    in the main thread, which alone may handle signals)."""
    if not hasattr(signal, "SIGUSR1"):
        return
    with contextlib.suppress(RuntimeError, ValueError):
        asyncio.get_running_loop().add_signal_handler(
            signal.SIGUSR1, lambda: print(report(components), file=sys.stderr, flush=True))
