"""A fresh database file per test, and the store opened on it (end-to-end tests open theirs
beside the running bot: tests/bot/conftest.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tg_durak.play.ratings import rate
from tg_durak.storage import Store


@pytest.fixture
def db_path(tmp_path: Path) -> str:
    return str(tmp_path / "durak.sqlite3")


@pytest.fixture
async def store(db_path: str) -> AsyncIterator[Store]:
    """The store as the bot opens it: a table's end moves the people's ratings."""
    store = await Store.open(db_path, rate=rate)
    yield store
    await store.close()
