"""Fixtures shared by the table service's tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tg_durak.store import Store


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    """A fresh SQLite store in the test's own directory."""
    s = await Store.open(str(tmp_path / "durak.sqlite3"))
    yield s
    await s.close()
