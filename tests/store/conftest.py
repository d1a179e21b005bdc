"""The store's tests run on SQLite and on PostgreSQL alike: `db_path` is a fresh SQLite file
or a fresh PostgreSQL database (tests/store/postgres_server.py), and the `store` of
tests/conftest.py opens whichever it is. A test of SQLite alone says so with `SQLITE_ONLY`
(tests/store/helpers.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.store.postgres_server import BACKENDS, fresh_database


@pytest.fixture(params=BACKENDS)
def db_path(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "durak.sqlite3")
        return
    with fresh_database() as url:
        yield url
