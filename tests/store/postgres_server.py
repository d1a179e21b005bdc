"""The PostgreSQL server the store's tests run against: a database for each pytest-xdist worker,
a schema of its own in it for each test.

DURAK_TEST_POSTGRES names the server's maintenance database (default: this machine's, trust
auth). Each worker creates its database from it (``tg_durak_test_<uuid>``, dropped when the
worker ends) and each test a fresh schema there (dropped after the test): a schema costs a few
milliseconds where a database costs a quarter of a second. A server that does not answer fails
the PostgreSQL tests, unless DURAK_TEST_NO_POSTGRES=1 says there is none (they are then not
run).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import quote, urlsplit, urlunsplit

import pytest

SERVER = os.environ.get("DURAK_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
WANTED = os.environ.get("DURAK_TEST_NO_POSTGRES") != "1"
BACKENDS = ["sqlite", "postgresql"] if WANTED else ["sqlite"]


def _connect(url: str):
    """A connection to ``url``; the test fails, saying what to do, if the server is not there."""
    import psycopg

    try:
        return psycopg.connect(url, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.fail(f"PostgreSQL is not reachable at {SERVER} ({exc}). Start it (.ci/run does), "
                    "point DURAK_TEST_POSTGRES at one, or set DURAK_TEST_NO_POSTGRES=1 to run "
                    "the store's tests on SQLite alone.", pytrace=False)


@contextmanager
def worker_database() -> Iterator[str]:
    """The address of a new, empty database, dropped (whoever is still connected) after."""
    if not WANTED:
        pytest.skip("DURAK_TEST_NO_POSTGRES=1: no PostgreSQL server")
    name = f"tg_durak_test_{uuid.uuid4().hex}"
    with _connect(SERVER) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(urlsplit(SERVER)._replace(path=f"/{name}"))
    finally:
        with _connect(SERVER) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def fresh_schema(database: str) -> Iterator[str]:
    """The address of ``database`` with a new, empty schema as the only one on its search path
    (every table the store creates goes there); the schema is dropped after."""
    name = f"t_{uuid.uuid4().hex}"
    with _connect(database) as admin:
        admin.execute(f'CREATE SCHEMA "{name}"')
    try:
        yield f"{database}?options={quote(f'-csearch_path={name}')}"
    finally:
        with _connect(database) as admin:
            admin.execute(f'DROP SCHEMA "{name}" CASCADE')
