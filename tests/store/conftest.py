"""The store's tests run on SQLite and on PostgreSQL alike: `db_path` is a fresh SQLite file
or a fresh PostgreSQL schema (tests/store/postgres_server.py), and the `store` of
tests/conftest.py opens whichever it is. A test of SQLite alone says so with `SQLITE_ONLY`
(tests/store/helpers.py); one of PostgreSQL alone takes `pg_url`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.store.postgres_server import BACKENDS, fresh_schema, worker_database


@pytest.fixture(scope="session")
def pg_database() -> Iterator[str]:
    """This worker's database on the test server, created on first use."""
    with worker_database() as url:
        yield url


@pytest.fixture
def pg_url(pg_database: str) -> Iterator[str]:
    """A PostgreSQL address of the test's own, empty."""
    with fresh_schema(pg_database) as url:
        yield url


@pytest.fixture(params=BACKENDS)
def db_path(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "durak.sqlite3")
        return
    yield request.getfixturevalue("pg_url")
