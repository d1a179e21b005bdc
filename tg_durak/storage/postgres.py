"""The store on PostgreSQL: `PostgresConnection`, the `Connection` over psycopg 3 and its pool.

Imported only when ``DURAK_DB`` is a ``postgresql://`` (or ``postgres://``) address: the bot on a
SQLite file never loads psycopg.

Why psycopg 3 with ``psycopg_pool.AsyncConnectionPool`` and ``prepare_threshold=None``: several
bot processes share one server, usually through PgBouncer in transaction mode, where each
transaction may run on a different server connection. A prepared statement lives on the server
connection that prepared it, so a driver that prepares behind the caller's back (asyncpg does,
always; psycopg after five runs of a statement) fails there with "prepared statement does not
exist". With ``prepare_threshold=None`` psycopg never prepares, and nothing else outlives a
transaction here either: no ``SET``, no session advisory lock, only ``SET LOCAL`` and
transaction-scoped locks.

Connections autocommit; a scope that is a transaction sends its own ``BEGIN`` (with the
isolation it needs) and ``COMMIT``, so one scope is one round trip per statement, as on SQLite.

Several processes share the database, so a table's change is serialised by it: `held` opens a
transaction holding a transaction-scoped advisory lock, and every scope the same task opens until
it ends joins that transaction (a transaction as a savepoint, so that its failure undoes itself
alone): a change and everything it writes commit together, on one pooled connection, and a task
never waits for a second connection while it holds one.

A server that does not answer (a crash, a restart) is found out once and watched for
(`tg_durak.storage.postgres_watch`): meanwhile every scope is refused at once with
`DatabaseDown`, and the pool does not retry on its own (its back-off would notice the server's
return seconds late); it connects again when a scope asks.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import re
import select
from collections.abc import AsyncIterator, Iterable
from contextlib import AbstractAsyncContextManager, asynccontextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass, field

import psycopg
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from tg_durak.storage.connection import (
    Dialect,
    Params,
    Row,
    Scope,
    ScopeTimer,
    Session,
    only_row,
    timed,
)
from tg_durak.storage.errors import DatabaseDown, NoDatabase, StoreUnavailable
from tg_durak.storage.postgres_sql import migration_statements, to_pyformat
from tg_durak.storage.postgres_watch import PROBE_SECONDS, ServerWatch

# SQLSTATE classes of a database that cannot take a write at the moment: connection exception,
# insufficient resources (disk full, out of memory, too many connections), operator
# intervention (admin shutdown, crash, starting up, statement timeout), system error (I/O),
# transaction rollback (serialization failure, deadlock).
_UNAVAILABLE_CLASSES = frozenset({"08", "53", "57", "58", "40"})
# A lock held elsewhere for longer than lock_timeout; a read-only server (a standby, a failover
# under way).
_UNAVAILABLE_STATES = frozenset({"55P03", "25006"})
# A refused connection whose reason may pass (the server answered, but not yet or not now).
_PASSING = re.compile(r"the database system is|too many|connection slots", re.I)
# SQLSTATEs of a server going away or not there yet: admin shutdown, crash shutdown, cannot
# connect now (starting up, shutting down).
_GOING = frozenset({"57P01", "57P02", "57P03"})
_CONNECT_TIMEOUT_S = 10
# A wait for a pooled connection looks this often whether the server was found down meanwhile.
_WAIT_SLICE_S = 0.2
# Like SQLite's busy_timeout: a row lock held elsewhere longer than this refuses the write.
_LOCK_TIMEOUT_MS = 5000
# Transaction-scoped: a session lock would stay with a PgBouncer server connection.
_NAMED_LOCK = "SELECT pg_advisory_xact_lock(hashtext(?))"


# What integrity_problems reads from the catalog, in the schema the store uses.
_HERE = "current_schema()::regnamespace"
_INVALID = ("SELECT i.indexrelid::regclass::text FROM pg_index i"
            f" JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relnamespace = {_HERE}"
            " AND NOT (i.indisvalid AND i.indisready) ORDER BY 1")
_UNVALIDATED = ("SELECT conrelid::regclass::text, conname FROM pg_constraint"
                f" WHERE connamespace = {_HERE} AND NOT convalidated ORDER BY 1, 2")
_DISABLED = ("SELECT tgrelid::regclass::text, tgname FROM pg_trigger t"
             f" JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = {_HERE}"
             " AND NOT t.tgisinternal AND t.tgenabled = 'D' ORDER BY 1, 2")
_SEQUENCES = ("SELECT c.relname, a.attname, s.sequencename, s.last_value FROM pg_attribute a"
              " JOIN pg_class c ON c.oid = a.attrelid"
              " JOIN pg_sequences s ON s.schemaname = current_schema() AND s.sequencename ="
              "  split_part(pg_get_serial_sequence(quote_ident(c.relname), a.attname), '.', 2)"
              f" WHERE c.relnamespace = {_HERE} AND a.attidentity <> '' ORDER BY 1, 2")


def _unavailable(exc: BaseException) -> bool:
    if isinstance(exc, PoolTimeout):
        return True
    if not isinstance(exc, psycopg.Error):
        return False
    state = exc.sqlstate
    if state is None:   # no answer from the server: refused, lost, closed
        return isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError)
    return state[:2] in _UNAVAILABLE_CLASSES or state in _UNAVAILABLE_STATES


def _maybe_down(exc: BaseException) -> bool:
    """Whether `exc` may mean that the server does not answer at all (not merely that it
    refused this statement): a connection lost, refused or timed out, a server shutting down
    or starting up, no connection from the pool in its time."""
    if isinstance(exc, PoolTimeout):
        return True
    if not isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError):
        return False
    state = exc.sqlstate
    return state is None or state[:2] == "08" or state in _GOING


@dataclass
class _Held:
    """The transaction `held` opened: the task it belongs to joins it with each scope of the
    same connection (pool)."""

    owner: PostgresConnection
    task: asyncio.Task | None
    session: _PostgresSession
    savepoints: itertools.count = field(default_factory=itertools.count)
    open: bool = True


# Per task (a context variable is copied into the tasks a task creates, so the owner is checked
# too: a task started under the lock runs on its own connection, after the lock if need be).
_HELD: ContextVar[_Held | None] = ContextVar("tg_durak_held", default=None)


def _held_here(owner: PostgresConnection) -> _Held | None:
    held = _HELD.get()
    if (held is None or not held.open or held.owner is not owner
            or held.task is not asyncio.current_task()):
        return None
    return held


class PostgresDialect:
    error = psycopg.Error
    row_lock = " FOR UPDATE"
    skip_locked = " FOR UPDATE SKIP LOCKED"

    def joined(self, expression: str) -> str:
        return f"string_agg(CAST({expression} AS TEXT), ',')"

    def named_lock(self) -> str | None:
        return _NAMED_LOCK

    def migration(self, statement: str) -> list[str]:
        return migration_statements(statement)


class _PostgresSession:
    def __init__(self, owner: PostgresConnection, conn: psycopg.AsyncConnection) -> None:
        self._owner = owner
        self._conn = conn

    async def execute(self, sql: str, params: Params = ()) -> int:
        cursor = await self._owner._send(self._conn, sql, params)
        return cursor.rowcount

    async def executemany(self, sql: str, rows: Iterable[Params]) -> int:
        return await self._owner._send_many(self._conn, sql, rows)

    async def fetchone(self, sql: str, params: Params = ()) -> Row | None:
        cursor = await self._owner._send(self._conn, sql, params)
        return await cursor.fetchone()

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]:
        cursor = await self._owner._send(self._conn, sql, params)
        return await cursor.fetchall()


class PostgresConnection:
    """A pool of autocommitting psycopg connections; each scope holds one of them."""

    dialect: Dialect = PostgresDialect()
    engine = "postgresql"
    shared = True   # several processes may use it at once

    def __init__(self, pool: AsyncConnectionPool, watch: ServerWatch, *,
                 readonly: bool = False, timer: ScopeTimer | None = None) -> None:
        self._pool = pool
        self._watch = watch
        self._readonly = readonly
        self._timer = timer
        self.lock_timeout_ms = _LOCK_TIMEOUT_MS

    @classmethod
    async def open(cls, url: str, *, readonly: bool = False, min_size: int = 1,
                   max_size: int = 10, timer: ScopeTimer | None = None) -> PostgresConnection:
        """A pool on the database at ``url``. NoDatabase if the server refuses it for good (no
        such database or role, a wrong password), StoreUnavailable if it may pass (no answer,
        starting up); ``readonly``: every scope is a read-only transaction."""
        await _probe(url)
        # psycopg's own lines (the pool's per failed connection attempt, the driver's per
        # broken connection it lets go) say again and again what the watch says once.
        logging.getLogger("psycopg").setLevel(logging.ERROR)
        watch = ServerWatch(lambda: _answers(url), lambda: pool.drain())
        pool = AsyncConnectionPool(
            url, min_size=min_size, max_size=max_size, open=False, timeout=_CONNECT_TIMEOUT_S,
            kwargs={"autocommit": True, "prepare_threshold": None},
            # A connection that cannot be made is given up at once (after one more try), not
            # retried with a back-off: the watch finds out whether the server answers, and
            # the next scope to ask grows the pool again.
            reconnect_timeout=0.0, reconnect_failed=watch.connect_failed)
        try:
            await pool.open(wait=True, timeout=_CONNECT_TIMEOUT_S)
        except PoolTimeout as exc:
            raise StoreUnavailable(f"cannot reach PostgreSQL: {exc}") from exc
        return cls(pool, watch, readonly=readonly, timer=timer)

    async def close(self) -> None:
        await self._watch.close()
        await self._pool.close()

    @asynccontextmanager
    async def _refusals(self) -> AsyncIterator[None]:
        """StoreUnavailable instead of the driver's error when the database refuses for now;
        DatabaseDown when the server does not answer (the watch tells)."""
        try:
            yield
        except (psycopg.Error, PoolTimeout) as exc:
            if _maybe_down(exc) and not await self._watch.answers(exc):
                raise DatabaseDown(f"PostgreSQL does not answer: {exc}") from exc
            if _unavailable(exc):
                raise StoreUnavailable(f"the database refused a write: {exc}") from exc
            raise

    async def _checked_out(self) -> psycopg.AsyncConnection:
        """A pooled connection that answers; DatabaseDown at once (or as soon as it is found
        out, for a scope waiting for a connection) while the server does not answer."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + _CONNECT_TIMEOUT_S
        while True:
            self._watch.refuse_if_down()
            try:
                conn = await self._pool.getconn(
                    timeout=max(0.0, min(_WAIT_SLICE_S, deadline - loop.time())))
            except PoolTimeout:
                if loop.time() < deadline:
                    continue
                raise
            if not _heard_from(conn):
                return conn
            try:
                # The pool's check, here rather than the pool's: a connection the server
                # dropped (a restart, PgBouncer's reconnect) is found before a scope's first
                # statement, and the pool's others, as old, are replaced at once instead of
                # one at a time with a back-off between them.
                await conn.execute("")
                return conn
            except psycopg.Error as exc:
                await self._pool.putconn(conn)   # broken: the pool drops it
                if not _maybe_down(exc) or not await self._watch.answers(exc):
                    raise
                await self._pool.drain()
            except BaseException:   # cancelled: the connection goes back all the same
                await self._pool.putconn(conn)
                raise

    async def _send(self, conn: psycopg.AsyncConnection, sql: str,
                    params: Params | None = ()) -> psycopg.AsyncCursor:
        """One statement; ``params`` None: SQL sent as it is, in one simple query (several
        statements may go at once), with no placeholders read."""
        if params is None:
            return await conn.execute(sql)
        return await conn.execute(to_pyformat(sql), tuple(params))

    async def _send_many(self, conn: psycopg.AsyncConnection, sql: str,
                         rows: Iterable[Params]) -> int:
        rows = [tuple(row) for row in rows]
        if not rows:
            return 0
        async with conn.cursor() as cursor:
            await cursor.executemany(to_pyformat(sql), rows)
            return cursor.rowcount

    @asynccontextmanager
    async def _scope(self, begin: str | None, *,
                     savepoint: bool = True) -> AsyncIterator[_PostgresSession]:
        """A pooled connection for one scope; ``begin``: the transaction it runs in (None:
        each statement commits on its own). Inside `held`, the held transaction instead (a
        savepoint of it where ``savepoint`` says the scope's statements may fail alone)."""
        held = _held_here(self)
        if held is not None:
            if not savepoint:
                yield held.session
                return
            name = f"s{next(held.savepoints)}"
            async with self._refusals():
                await self._send(held.session._conn, f"SAVEPOINT {name}", None)
                try:
                    yield held.session
                except BaseException:
                    with suppress(psycopg.Error):
                        await self._send(held.session._conn, f"ROLLBACK TO SAVEPOINT {name}",
                                         None)
                    raise
                await self._send(held.session._conn, f"RELEASE SAVEPOINT {name}", None)
            return
        async with self._refusals():
            conn = await self._checked_out()
            try:
                if begin is None:
                    yield _PostgresSession(self, conn)
                    return
                # Sent as one simple query (no parameters): BEGIN and its settings in one trip.
                await self._send(conn, begin, None)
                try:
                    yield _PostgresSession(self, conn)
                    await self._send(conn, "COMMIT", None)
                except BaseException:
                    # A connection cancelled mid-query cannot take the ROLLBACK; the pool then
                    # drops it (a transaction left open is rolled back by the server).
                    with suppress(psycopg.Error):
                        await self._send(conn, "ROLLBACK", None)
                    raise
            finally:
                await self._pool.putconn(conn)

    def transaction(self) -> AbstractAsyncContextManager[Session]:
        scope = self._scope(self._begin("READ COMMITTED"))
        # Inside `held` a savepoint: its time is the held transaction's.
        return scope if self.holding() else timed(scope, self._timer, Scope.TRANSACTION)

    def statement(self) -> AbstractAsyncContextManager[Session]:
        # Inside `held` without a savepoint: one statement stands or falls alone anyway, and a
        # failed one fails the held change with it.
        return self._scope(self._begin("READ COMMITTED") if self._readonly else None,
                           savepoint=False)

    def reading(self, *, consistent: bool = False) -> AbstractAsyncContextManager[Session]:
        if consistent:
            return self._scope("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", savepoint=False)
        return self._scope(self._begin("READ COMMITTED") if self._readonly else None,
                           savepoint=False)

    def holding(self) -> bool:
        """Whether this task is inside `held` (its scopes join that transaction)."""
        return _held_here(self) is not None

    def held(self, name: str) -> AbstractAsyncContextManager[Session]:
        """A transaction holding the lock ``name`` until it ends, committed at the end (rolled
        back on an error); every scope this task opens meanwhile joins it. Inside another
        `held`, the lock is taken in that one's transaction."""
        scope = self._held(name)
        return scope if self.holding() else timed(scope, self._timer, Scope.HELD)

    @asynccontextmanager
    async def _held(self, name: str) -> AsyncIterator[Session]:
        outer = _held_here(self)
        if outer is not None:
            await outer.session.execute(_NAMED_LOCK, (name,))
            yield outer.session
            return
        async with self._scope(self._begin("READ COMMITTED")) as session:
            await session.execute(_NAMED_LOCK, (name,))
            held = _Held(self, asyncio.current_task(), session)
            token = _HELD.set(held)
            try:
                yield session
            finally:
                held.open = False
                _HELD.reset(token)

    def _begin(self, isolation: str) -> str:
        access = " READ ONLY" if self._readonly else ""
        return (f"BEGIN ISOLATION LEVEL {isolation}{access};"
                f" SET LOCAL lock_timeout = {int(self.lock_timeout_ms)}")

    async def integrity_problems(self) -> list[str]:
        """What PostgreSQL's catalog says is broken (empty: nothing): an index left invalid (a
        failed concurrent build), a constraint never validated, an id sequence behind its
        table's largest id (a copy that did not move it: the next insert would clash)."""
        async with self.reading(consistent=True) as db:
            problems = [f"index {name} is invalid" for (name,) in await db.fetchall(_INVALID)]
            problems += [f"constraint {name} of {table} is not validated"
                         for table, name in await db.fetchall(_UNVALIDATED)]
            problems += [f"trigger {name} of {table} is disabled"
                         for table, name in await db.fetchall(_DISABLED)]
            for table, column, sequence, last in await db.fetchall(_SEQUENCES):
                (largest,) = await only_row(db, f'SELECT MAX("{column}") FROM "{table}"')
                if largest is not None and largest > (last or 0):
                    problems.append(f"sequence {sequence} is at {last or 0}, behind the largest"
                                    f" {table}.{column} {largest}")
        return problems


def _heard_from(conn: psycopg.AsyncConnection) -> bool:
    """Whether the server has sent this idle pooled connection anything: nothing is due on an
    idle connection, so it is a farewell (a backend terminated, a server shutting down or
    crashed: its message or the socket's end) and the connection is checked with a trip. The
    question itself costs no trip: a check of every connection lent was the bot's most frequent
    statement, and it grew with the number of processes (docs/deploying.md, Capacity)."""
    try:
        poll = select.poll()
        poll.register(conn.fileno(), select.POLLIN)
        return bool(poll.poll(0))
    except (OSError, ValueError, psycopg.Error):   # no socket left: the trip says what is wrong
        return True


async def _answers(url: str) -> bool:
    """Whether a fresh connection to the server at `url` works (the watch's probe)."""
    try:
        conn = await psycopg.AsyncConnection.connect(
            url, connect_timeout=max(2, round(PROBE_SECONDS)), autocommit=True)
    except psycopg.Error:
        return False
    try:
        await conn.execute("")
        return True
    except psycopg.Error:
        return False
    finally:
        with suppress(psycopg.Error):
            await conn.close()


async def _probe(url: str) -> None:
    """One connection, to tell the caller why the server refuses, before a pool retries."""
    try:
        conn = await psycopg.AsyncConnection.connect(url, connect_timeout=_CONNECT_TIMEOUT_S)
    except psycopg.OperationalError as exc:
        text = str(exc).strip()
        if "FATAL" in text and not _PASSING.search(text):
            raise NoDatabase(f"PostgreSQL refused the connection: {text}") from exc
        raise StoreUnavailable(f"cannot reach PostgreSQL: {text}") from exc
    except psycopg.ProgrammingError as exc:   # a malformed address
        raise NoDatabase(f"not a PostgreSQL address: {exc}") from exc
    await conn.close()
