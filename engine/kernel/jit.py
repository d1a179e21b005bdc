"""numba's compiler as the kernel uses it: nopython, cached in `engine.kernel.cache_dir()`.

Every kernel module imports `compiled` from here, so whichever module a process loads first,
the cache directory is set before any compiled function's cache is.
"""

from __future__ import annotations

import os
from pathlib import Path

import numba


def cache_dir() -> Path:
    """Where compiled code is kept: NUMBA_CACHE_DIR, else the user's cache."""
    given = os.environ.get("NUMBA_CACHE_DIR")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "tg-durak" / "numba"


if not os.environ.get("NUMBA_CACHE_DIR"):
    # numba reads it when a compiled function's cache is set up: before any is decorated.
    numba.config.CACHE_DIR = str(cache_dir())  # type: ignore[attr-defined]

compiled = numba.njit(cache=True)
