"""The PostgreSQL server the store's tests run against: a fresh database for each test.

DURAK_TEST_POSTGRES names the server's maintenance database (default: this machine's, trust
auth); each test creates its own database from it and drops it afterwards, so tests in
parallel workers never share one. A server that does not answer fails the PostgreSQL tests,
unless DURAK_TEST_NO_POSTGRES=1 says there is none (they are then not run).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit, urlunsplit

import pytest

SERVER = os.environ.get("DURAK_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
WANTED = os.environ.get("DURAK_TEST_NO_POSTGRES") != "1"
BACKENDS = ["sqlite", "postgresql"] if WANTED else ["sqlite"]


def _with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def _admin():
    """A connection to the maintenance database; the test fails if there is none."""
    import psycopg

    try:
        return psycopg.connect(SERVER, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.fail(f"PostgreSQL is not reachable at {SERVER} ({exc}). Start it (.ci/run does), "
                    "point DURAK_TEST_POSTGRES at one, or set DURAK_TEST_NO_POSTGRES=1 to run "
                    "the store's tests on SQLite alone.", pytrace=False)


@contextmanager
def fresh_database() -> Iterator[str]:
    """The address of a new, empty database, dropped (whoever is still connected) after."""
    if not WANTED:
        pytest.skip("DURAK_TEST_NO_POSTGRES=1: no PostgreSQL server")
    name = f"tg_durak_test_{uuid.uuid4().hex}"
    with _admin() as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield _with_database(SERVER, name)
    finally:
        with _admin() as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
