"""Switching the kernel on and warming it: numba is imported only by `load()`, so a process that
never searches never pays for it (engine/kernel/__init__.py tells the whole story)."""

from __future__ import annotations

import logging
import os
import threading
import time
from types import ModuleType

log = logging.getLogger(__name__)

SWITCH = "DURAK_KERNEL"   # "off" (or 0, no, false): hard plays its Python search
_OFF = frozenset({"off", "0", "no", "false"})
_ready = threading.Event()
_loading = threading.Lock()
_racing: list[ModuleType] = []   # engine.kernel.racing, once loaded


def enabled() -> bool:
    """Whether the kernel may be used: not switched off by DURAK_KERNEL."""
    return os.environ.get(SWITCH, "on").strip().lower() not in _OFF


def ready() -> bool:
    """Whether this process's kernel is compiled and warm (and not switched off)."""
    return _ready.is_set() and enabled()


def racing_module() -> ModuleType:
    """engine.kernel.racing, once `ready()`."""
    return _racing[0]


def load() -> bool:
    """Compile the kernel (or load it from the cache) and warm it; whether it is ready. Safe to
    call from several threads; a failure (numba missing or broken) is logged, not raised, and
    so is, once, the time it took to get warm."""
    if not enabled():
        return False
    with _loading:
        if _ready.is_set():
            return True
        began = time.perf_counter()
        try:
            from engine.kernel import racing as module
            from engine.kernel.warm import warm_up

            warm_up(module)
        except Exception:   # no numba, no compiler, no writable cache: the Python search plays
            log.exception("the search kernel could not be loaded; hard plays its Python search")
            return False
        _racing.append(module)
        _ready.set()
    log.info("the search kernel is warm after %.1f s (process %d)", time.perf_counter() - began,
             os.getpid())
    return True
