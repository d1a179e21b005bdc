"""What several store tests share: SQL behind the store's back (on SQLite or PostgreSQL), three
seats, a running table."""

import sqlite3
from collections.abc import Callable

import pytest

from tg_durak.play.rows import SeatRow
from tg_durak.storage import Store
from tg_durak.storage.store import is_postgres

ANN = SeatRow(seat=0, user_id=1, name="Ann")
BOB = SeatRow(seat=1, user_id=2, name="Bob")
CPU = SeatRow(seat=1, user_id=None, name="Computer", level="strong")

# For a test of what only SQLite has (its file, WAL, PRAGMAs, locks, backup).
SQLITE_ONLY = pytest.mark.parametrize("db_path", ["sqlite"], indirect=True)
# For a test of what one process alone does (a start that takes up every table at once; on a
# database several processes share, each is taken up as it is needed: tests/app/test_shared_*).
ONE_PROCESS = SQLITE_ONLY


async def running_table(store: Store, chat_id: int = 10) -> int:
    table = await store.tables.create(chat_id, "private", "running", {"deck": 36}, [ANN, CPU],
                                      {"log": 0})
    return table.id


def raw(db_path: str, sql: str, params: tuple = ()) -> list[tuple]:
    """Run SQL (``?`` placeholders) behind the store's back, to corrupt or inspect the
    database; the rows it gives (none for a statement that gives none)."""
    if not is_postgres(db_path):
        with sqlite3.connect(db_path) as conn:
            return conn.execute(sql, params).fetchall()
    import psycopg

    from tg_durak.storage.postgres_sql import to_pyformat

    with psycopg.connect(db_path, autocommit=True) as conn:
        cursor = conn.execute(to_pyformat(sql), params)
        return cursor.fetchall() if cursor.description else []


def integrity_error(db_path: str) -> type[Exception]:
    """What the database's driver raises for a refused constraint."""
    if not is_postgres(db_path):
        return sqlite3.IntegrityError
    import psycopg

    return psycopg.IntegrityError


def table_names(db_path: str) -> set[str]:
    if is_postgres(db_path):
        return {name for (name,) in raw(db_path, "SELECT table_name FROM information_schema.tables"
                                                 " WHERE table_schema = current_schema()")}
    return {name for (name,) in raw(db_path, "SELECT name FROM sqlite_master"
                                             " WHERE type = 'table'")}


def rewrite_action(db_path: str, table_id: int, seq: int, entry: str) -> None:
    """Damage one log entry, past the trigger that keeps the log append-only."""
    if is_postgres(db_path):
        raw(db_path, "ALTER TABLE actions DISABLE TRIGGER actions_no_update")
    else:
        raw(db_path, "DROP TRIGGER actions_no_update")
    raw(db_path, "UPDATE actions SET entry = ? WHERE table_id = ? AND seq = ?",
        (entry, table_id, seq))


def statements_sent(store: Store, keep: Callable[[str], str] = str) -> list[str]:
    """Every SQL statement the store sends to its database from now on (`keep`: what of each
    is kept), through execute and executemany alike, BEGIN and COMMIT included."""
    sent: list[str] = []
    # SQLite: the aiosqlite connection's methods; PostgreSQL: the two the sessions send through.
    target, names = ((store.connection, ("_send", "_send_many")) if store.engine == "postgresql"
                     else (store.connection._db, ("execute", "executemany")))
    for name in names:
        method = getattr(target, name)

        def counting(*args, _method=method, _sql_at=int(target is store.connection), **kwargs):
            sent.append(keep(args[_sql_at]))
            return _method(*args, **kwargs)

        setattr(target, name, counting)
    return sent
