"""Which processes still run, read from /proc (Linux): for tests that nothing is left behind."""

from __future__ import annotations

import os
from pathlib import Path

# multiprocessing starts one resource tracker per process on first use and keeps it, on purpose,
# until that process exits: it is no leftover of the code under test.
RESOURCE_TRACKER = "multiprocessing.resource_tracker"

# How long a test lets `python -m tg_durak` take to come up (or to fail at start): Python,
# aiogram (about 3.5 s of CPU alone) and the database. A machine busy with other work makes that
# many times longer; this guards against a hang and measures nothing. The waits after it are
# about the bot's own work.
START_TIMEOUT = 300.0


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) of a process, or None once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    state, ppid = stat.rsplit(")", 1)[1].split()[:2]  # the name in parentheses may hold spaces
    return state, int(ppid)


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    except OSError:
        return ""


def children(parent: int | None = None) -> dict[int, str]:
    """pid -> command line of each child of `parent` (default: this process), the resource
    tracker left out. A zombie counts: a child nobody waited for is left behind too."""
    parent = os.getpid() if parent is None else parent
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (_stat(int(entry)) or ("", 0))[1] == parent:
            command = _command(int(entry))
            if RESOURCE_TRACKER not in command:
                found[int(entry)] = command
    return found


def running(pid: int) -> bool:
    """Whether a process still runs (an orphan's zombie, left to init to reap, does not)."""
    stat = _stat(pid)
    return stat is not None and stat[0] != "Z"
