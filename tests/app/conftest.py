"""The table service's tests run on SQLite and on PostgreSQL alike: on PostgreSQL every change
takes the database's lock and validates what the service holds against the store (a database
several processes share), and must behave as on SQLite in one process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.store.conftest import pg_database, pg_url  # noqa: F401  (fixtures)
from tests.store.postgres_server import BACKENDS


@pytest.fixture(params=BACKENDS)
def db_path(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "durak.sqlite3")
        return
    yield request.getfixturevalue("pg_url")
