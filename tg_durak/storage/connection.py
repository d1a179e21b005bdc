"""The one connection the repositories are written against, and its SQLite implementation.

A repository opens one of three scopes and sends statements through the `Session` it gets:
``transaction()`` (several statements that stand or fall together), ``statement()`` (one write,
committed on its own) or ``reading()``. Statements use ``?`` placeholders, the DB-API's qmark
style that SQLite speaks; an implementation for a database that speaks another style translates
them in its session, so the repositories' SQL is written once. New rows' ids come back through
``RETURNING``. What only SQLite has (its PRAGMAs, online backup, integrity check) stays in
`SQLiteConnection`; what differs in the repositories' SQL is the `Dialect`. The other
implementation is `tg_durak.storage.postgres.PostgresConnection`.
"""

from __future__ import annotations

import asyncio
import gc
import os
import sqlite3
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager, suppress
from enum import StrEnum
from pathlib import Path
from typing import Protocol, cast

import aiosqlite

from tg_durak.storage.errors import StoreUnavailable

Row = tuple
Params = Sequence[object]

_BUSY_TIMEOUT_MS = 5000
# SQLite's primary result codes for a database that cannot take a write at the moment.
_UNAVAILABLE = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_FULL,
                          sqlite3.SQLITE_IOERR, sqlite3.SQLITE_READONLY})


def placeholders(values: Sequence[object]) -> str:
    """The placeholders of an ``IN (...)`` list of ``values``."""
    return ",".join("?" * len(values))


async def only_row(db: Session, sql: str, params: Params = ()) -> Row:
    """The row of a statement that always gives one (an aggregate, INSERT ... RETURNING)."""
    row = await db.fetchone(sql, params)
    if row is None:
        raise LookupError(f"no row from {sql}")
    return row


class Scope(StrEnum):
    """The transactions a `ScopeTimer` is told of."""

    TRANSACTION = "transaction"   # transaction(): a write, or a group commit of several
    HELD = "held"                 # held(): a table's change under its lock (a shared database)


class ScopeTimer(Protocol):
    """Told how long each transaction took, from asking for it (waiting for the lock or a
    pooled connection included) to its commit or rollback (tg_durak/observe/store.py)."""

    def __call__(self, scope: Scope, seconds: float, committed: bool) -> None: ...


def timed(scope: AbstractAsyncContextManager[Session], timer: ScopeTimer | None,
          kind: Scope) -> AbstractAsyncContextManager[Session]:
    """``scope`` with its time given to ``timer`` as it ends (None: ``scope`` as it is)."""
    return scope if timer is None else _timing(scope, timer, kind)


@asynccontextmanager
async def _timing(scope: AbstractAsyncContextManager[Session], timer: ScopeTimer,
                  kind: Scope) -> AsyncIterator[Session]:
    started = time.perf_counter()
    committed = False
    try:
        async with scope as session:
            yield session
        committed = True
    finally:
        timer(kind, time.perf_counter() - started, committed)


class Session(Protocol):
    """The statements of one scope (a transaction, a statement, a reading)."""

    async def execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement; the number of rows it changed."""

    async def executemany(self, sql: str, rows: Iterable[Params]) -> int:
        """Run one statement for each of ``rows``; the number of rows changed in all."""

    async def fetchone(self, sql: str, params: Params = ()) -> Row | None:
        """The first row the statement gives (None: none)."""

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]:
        """Every row the statement gives."""


class Dialect(Protocol):
    """The pieces of the repositories' SQL that differ between databases."""

    @property
    def error(self) -> type[Exception]:
        """The driver's base exception: what a statement the database refuses raises."""

    # Appended to a SELECT whose rows the transaction goes on to change, so that a concurrent
    # transaction waits for this one ("" where a transaction already excludes all others).
    row_lock: str
    # The same for rows that several processes claim at once: each takes the rows no other
    # transaction holds ("" where a transaction already excludes all others).
    skip_locked: str

    def joined(self, expression: str) -> str:
        """An aggregate: the group's values of ``expression`` as text, joined by commas."""

    def named_lock(self) -> str | None:
        """A statement taking one parameter, a name, that holds a lock of that name until the
        transaction ends (None: the database's transactions already exclude one another)."""

    def migration(self, statement: str) -> list[str]:
        """One statement of a migration file (SQLite's SQL) as this database's statements."""


async def lock(db: Session, dialect: Dialect, name: str) -> None:
    """Hold the lock ``name`` until ``db``'s transaction ends (see `Dialect.named_lock`)."""
    sql = dialect.named_lock()
    if sql is not None:
        await db.execute(sql, (name,))


class Connection(Protocol):
    """A database: each scope is one transaction (or statement) of its own. SQLite's runs one
    scope at a time; a pool (PostgreSQL) runs several at once, each on a connection of its own."""

    dialect: Dialect
    engine: str   # "sqlite", "postgresql": what the database is called in messages
    shared: bool  # several bot processes may use it at once (see PostgresConnection.held)

    def transaction(self) -> AbstractAsyncContextManager[Session]:
        """A write transaction: committed at the end, rolled back on any error.
        StoreUnavailable if the database refuses writes for now."""

    def statement(self) -> AbstractAsyncContextManager[Session]:
        """One write statement, committed on its own (StoreUnavailable as above)."""

    def reading(self, *, consistent: bool = False) -> AbstractAsyncContextManager[Session]:
        """Reads; ``consistent``: all of them see the database at one moment."""

    async def integrity_problems(self) -> list[str]:
        """What the database itself finds wrong (empty: nothing)."""

    def holding(self) -> bool:
        """Whether the calling task's scopes join a transaction it holds (never on SQLite)."""

    def held(self, name: str) -> AbstractAsyncContextManager[Session]:
        """On a shared database: a transaction holding the lock ``name`` until it ends, which
        the task's scopes join meanwhile; NotImplementedError where nothing is shared."""

    async def close(self) -> None: ...


class SQLiteDialect:
    error = sqlite3.Error
    row_lock = ""   # BEGIN IMMEDIATE: one writer at a time
    skip_locked = ""

    def joined(self, expression: str) -> str:
        return f"group_concat({expression})"

    def named_lock(self) -> str | None:
        return None

    def migration(self, statement: str) -> list[str]:
        return [statement]


class SQLiteSession:
    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db

    async def execute(self, sql: str, params: Params = ()) -> int:
        cursor = await self._db.execute(sql, params)
        return cursor.rowcount

    async def executemany(self, sql: str, rows: Iterable[Params]) -> int:
        cursor = await self._db.executemany(sql, rows)
        return cursor.rowcount

    async def fetchone(self, sql: str, params: Params = ()) -> Row | None:
        cursor = await self._db.execute(sql, params)
        # aiosqlite's annotations say sqlite3.Row; without a row_factory a row is a tuple.
        return cast(Row | None, await cursor.fetchone())

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]:
        cursor = await self._db.execute(sql, params)
        return cast(list[Row], list(await cursor.fetchall()))

    async def batches(self, sql: str, size: int) -> AsyncIterator[list[Row]]:
        """The statement's rows, ``size`` at a time (a whole table, without holding it all)."""
        async with self._db.execute(sql) as cursor:
            while rows := await cursor.fetchmany(size):
                yield cast(list[Row], list(rows))


def _raise_unavailable(exc: sqlite3.OperationalError) -> None:
    """StoreUnavailable instead of `exc` if the database refuses writes for now."""
    if getattr(exc, "sqlite_errorcode", 0) & 0xFF in _UNAVAILABLE:
        raise StoreUnavailable(f"the database refused a write: {exc}") from exc


class SQLiteConnection:
    """One aiosqlite connection in autocommit mode; every scope holds a lock."""

    dialect: Dialect = SQLiteDialect()
    engine = "sqlite"
    shared = False   # one process: its transactions run one at a time

    def holding(self) -> bool:
        return False

    def held(self, name: str) -> AbstractAsyncContextManager[Session]:
        raise NotImplementedError("one process owns a SQLite database: nothing to hold")

    def __init__(self, db: aiosqlite.Connection, timer: ScopeTimer | None = None) -> None:
        self._db = db
        self._session = SQLiteSession(db)
        self._timer = timer
        # Transactions span several awaits on one connection; the lock keeps tasks from
        # interleaving statements inside each other's transactions.
        self._lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: str, *, readonly: bool = False,
                   timer: ScopeTimer | None = None) -> SQLiteConnection:
        """The database at ``path``, created if needed (``":memory:"``: a private one in
        memory); ``readonly``: an existing file, opened for reading only; ``timer``: told of
        each transaction's time."""
        if readonly:
            if not Path(path).is_file():
                raise FileNotFoundError(f"no database at {path}")
            uri = f"{Path(path).resolve().as_uri()}?mode=ro"
            db = await aiosqlite.connect(uri, uri=True, isolation_level=None)
        else:
            db = await aiosqlite.connect(path, isolation_level=None)
        try:
            await db.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
            if not readonly:
                await db.execute("PRAGMA journal_mode = WAL")
                # NORMAL is durable across application crashes in WAL mode and avoids an fsync
                # per transaction; a power cut may lose the last moves, never corrupt the file.
                await db.execute("PRAGMA synchronous = NORMAL")
                await db.execute("PRAGMA foreign_keys = ON")
        except BaseException:
            await db.close()
            raise
        return cls(db, timer)

    async def close(self) -> None:
        async with self._lock:
            # A cursor whose statement is still open may be kept alive by a reference cycle (a
            # task cancelled mid-query, one of aiosqlite's futures) until the collector runs;
            # SQLite then closes only half (no checkpoint: the write-ahead log stays behind).
            gc.collect()
            await self._db.close()

    def transaction(self) -> AbstractAsyncContextManager[Session]:
        return timed(self._transaction(), self._timer, Scope.TRANSACTION)

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[Session]:
        async with self._lock:
            try:
                try:
                    # IMMEDIATE takes the write lock up front, so a second process waits
                    # (busy_timeout) instead of failing half-way through.
                    await self._db.execute("BEGIN IMMEDIATE")
                    yield self._session
                    await self._db.execute("COMMIT")
                except BaseException:
                    # Some errors (disk full, I/O) make SQLite roll back on its own; a COMMIT
                    # that failed leaves the transaction open, and the next BEGIN would fail.
                    # A call whose task was cancelled meanwhile (a timer at shutdown) still
                    # reaches SQLite later, in order, so `in_transaction` may not show it yet:
                    # roll back in any case ("no transaction is active" is fine).
                    with suppress(sqlite3.OperationalError):
                        await self._db.execute("ROLLBACK")
                    raise
            except sqlite3.OperationalError as exc:
                _raise_unavailable(exc)
                raise

    @asynccontextmanager
    async def statement(self) -> AsyncIterator[Session]:
        # The connection autocommits: a single round trip to SQLite's thread instead of three,
        # for what is written with every update.
        async with self._lock:
            try:
                yield self._session
            except sqlite3.OperationalError as exc:
                _raise_unavailable(exc)
                raise

    @asynccontextmanager
    async def reading(self, *, consistent: bool = False) -> AsyncIterator[Session]:
        async with self._lock:
            if not consistent:
                yield self._session
                return
            await self._db.execute("BEGIN")
            try:
                yield self._session
            finally:
                await self._db.execute("COMMIT")

    async def backup(self, path: str) -> None:
        """A consistent copy of the whole database at ``path``, taken with SQLite's online
        backup while others go on writing; ``path`` appears only once the copy is complete."""
        target = Path(path)
        partial = target.with_name(target.name + ".partial")
        partial.unlink(missing_ok=True)
        # The copy runs on the connection's own thread, so its connection must accept that one.
        copy = sqlite3.connect(partial, check_same_thread=False)
        try:
            async with self._lock:
                await self._db.backup(copy)
        finally:
            copy.close()
        os.replace(partial, target)

    async def integrity_problems(self) -> list[str]:
        """What ``PRAGMA integrity_check`` finds wrong in the file (empty: nothing)."""
        async with self.reading() as db:
            lines = [line for (line,) in await db.fetchall("PRAGMA integrity_check")]
        return [] if lines == ["ok"] else lines
