"""A fresh database file per test, and the store opened on it (end-to-end tests open theirs
beside the running bot: tests/bot/conftest.py)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tg_durak.play.ratings import rate
from tg_durak.storage import Store


def pytest_configure(config: pytest.Config) -> None:
    """The search kernel compiled into its cache once, before any test: every bot a test starts
    has its computers' worker load the kernel, and on a fresh checkout (a cold cache) each would
    compile it for 20-60 s of CPU, several at once, until one had written the cache. In a
    process of its own, so that no test finds the kernel already loaded in its own."""
    if not hasattr(config, "workerinput"):   # xdist's controller, or a run without workers
        subprocess.run([sys.executable, "-c", "from engine.kernel import loader; loader.load()"],
                       check=False, timeout=600)


@pytest.fixture
def db_path(tmp_path: Path) -> str:
    return str(tmp_path / "durak.sqlite3")


@pytest.fixture
async def store(db_path: str) -> AsyncIterator[Store]:
    """The store as the bot opens it: a table's end moves the people's ratings."""
    store = await Store.open(db_path, rate=rate)
    yield store
    await store.close()
