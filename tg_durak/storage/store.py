"""SQLite persistence: the only module that knows SQL.

Everything the bot keeps between restarts lives here: users, tables with their engine snapshot
and append-only action log, the messages that show each table, results, the people's ratings
(computed by ``tg_durak.play.ratings``, handed in as a function) and a little metadata.
The interface speaks plain Python (dicts, dataclasses, ints) so that a server database can take
over without touching the callers.

Schema changes are the ``*.sql`` files in ``tg_durak/migrations/`` (``NNNN_name.sql``), applied in
order when the store opens, each in its own transaction, and recorded in ``schema_migrations``.
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import json
import logging
import os
import re
import sqlite3
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import aiosqlite

from tg_durak.play.ratings import Rating, Result
from tg_durak.play.records import (
    MessageRow,
    PlayerRecord,
    Rebuilt,
    SeatRow,
    Standing,
    Stats,
    TableRecord,
    TableRow,
    UserRow,
)

log = logging.getLogger(__name__)

KINDS = ("private", "group")
OUTCOMES = ("durak", "safe", "draw", "resigned")
ACTIVE = ("lobby", "running")
# A person's seat: he plays it, or a computer plays it on after he left or was removed.
SEAT_STATUSES = ("playing", "left", "kicked")

_BUSY_TIMEOUT_MS = 5000
_IDS_PER_QUERY = 500   # SQLite takes at most 999 parameters a statement in older builds
_USERS_KEPT = 10_000   # users' rows kept in memory, the least recently used forgotten first
# SQLite's primary result codes for a database that cannot take a write at the moment.
_UNAVAILABLE = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_FULL,
                          sqlite3.SQLITE_IOERR, sqlite3.SQLITE_READONLY})
# Telegram update ids remembered as handled (a restart may be offered the last few again);
# the oldest are forgotten every _FORGET_EVERY updates.
_KEEP_UPDATES = 10_000
_FORGET_EVERY = 1_000
_MIGRATION_NAME = re.compile(r"(\d+)_\w+\.sql")
# The group's public message has no user; a primary key cannot hold NULL, so it is stored as 0.
_GROUP_VIEWER = 0
# `results r` moved the ratings (a result without a history row was a game against computers).
_RATED = ("EXISTS (SELECT 1 FROM rating_history h"
          " WHERE h.table_id = r.table_id AND h.user_id = r.user_id)")
# A finished table's results and everyone's current ratings -> the new ratings (empty: not rated).
RateTable = Callable[[Sequence[Result], Mapping[int, Rating]], Mapping[int, Rating]]


class SchemaTooNew(RuntimeError):
    """The database was written by a newer bot than this one."""


class StoreUnavailable(RuntimeError):
    """The database refused a write for now (disk full, locked by another process, an I/O
    error); nothing was written, and the same write may succeed later."""


class StaleVersion(RuntimeError):
    """The table changed since the caller read it; nothing was written."""


class CorruptRow(RuntimeError):
    """A stored value cannot be decoded."""


class LobbyClosed(RuntimeError):
    """The lobby has started, expired or been cancelled; nothing was written."""


class LobbyFull(RuntimeError):
    """Every seat of the lobby is taken; nothing was written."""


class AlreadySeated(RuntimeError):
    """The person already has a seat at an open table (this one or another); nothing written."""

    def __init__(self, table_id: int) -> None:
        super().__init__(f"already seated at table {table_id}")
        self.table_id = table_id


@dataclass(frozen=True)
class _Migration:
    version: int
    name: str
    sql: str


def _dumps(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _loads(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError) as exc:
        raise CorruptRow(f"{what} is not valid JSON: {exc}") from exc


def _loads_dict(text: str, what: str) -> dict:
    value = _loads(text, what)
    if not isinstance(value, dict):
        raise CorruptRow(f"{what} is not a JSON object")
    return value


def _in_order(seqs: str, entries: list) -> list:
    """`entries` by their seqs (`seqs`: theirs, comma-separated, in the same order); ValueError
    if the two disagree in number (an entry that is not one JSON value)."""
    if seqs == ",".join(map(str, range(1, len(entries) + 1))):
        return entries   # as SQLite has always given them
    order = [int(seq) for seq in seqs.split(",")]
    if len(order) != len(entries):
        raise ValueError(f"{len(order)} entries read as {len(entries)}")
    return [entry for _, entry in sorted(zip(order, entries, strict=True),
                                         key=lambda pair: pair[0])]


def _check(value: str, allowed: Sequence[str], what: str) -> None:
    if value not in allowed:
        raise ValueError(f"{what} must be one of {', '.join(allowed)}, not {value!r}")


def _check_results(results: Iterable[tuple[int, str, int]]) -> None:
    for _, outcome, _ in results:
        _check(outcome, OUTCOMES, "outcome")


def _check_seats(seats: Iterable[SeatRow]) -> None:
    numbers = [s.seat for s in seats]
    if len(numbers) != len(set(numbers)):
        raise ValueError(f"seat numbers repeat: {numbers}")


_RUNNING = "SELECT id FROM tables WHERE status = 'running'"
_TABLE_COLUMNS = ("id, chat_id, kind, status, options, snapshot, version, created_at, updated_at,"
                  " host_id, thread_id, invite, expires_at, language")


def _table_row(row: Sequence, seats: tuple[SeatRow, ...]) -> TableRow:
    """A TableRow from the `_TABLE_COLUMNS` of one row and its seats."""
    table_id, chat_id, kind, status, options, snapshot, version, created_at, updated_at = row[:9]
    host_id, thread_id, invite, expires_at, language = row[9:]
    return TableRow(
        id=table_id,
        chat_id=chat_id,
        kind=kind,
        status=status,
        options=_loads_dict(options, f"options of table {table_id}"),
        snapshot=(
            None if snapshot is None
            else _loads_dict(snapshot, f"snapshot of table {table_id}")
        ),
        version=version,
        seats=seats,
        created_at=created_at,
        updated_at=updated_at,
        host_id=host_id,
        thread_id=thread_id,
        invite=invite,
        expires_at=expires_at,
        language=language,
    )


def _user_row(row: Sequence) -> UserRow:
    """A UserRow from (id, name, language, settings, reachable)."""
    settings = _loads_dict(row[3], f"settings of user {row[0]}")
    return UserRow(id=row[0], name=row[1], language=row[2], settings=settings,
                   reachable=bool(row[4]))


def _raise_unavailable(exc: sqlite3.OperationalError) -> None:
    """StoreUnavailable instead of `exc` if the database refuses writes for now."""
    if getattr(exc, "sqlite_errorcode", 0) & 0xFF in _UNAVAILABLE:
        raise StoreUnavailable(f"the database refused a write: {exc}") from exc


def _placeholders(values: Sequence[object]) -> str:
    return ",".join("?" * len(values))


def _load_migrations(folder: Traversable | os.PathLike | str | None = None) -> list[_Migration]:
    """The migration files of ``folder`` (default: the package's own), in version order."""
    root: Traversable = (
        resources.files(__package__).joinpath("migrations") if folder is None else Path(folder)
    )
    found: dict[int, _Migration] = {}
    for item in root.iterdir():
        match = _MIGRATION_NAME.fullmatch(item.name)
        if not match:
            continue
        version = int(match[1])
        if version in found:
            raise RuntimeError(f"two migrations with version {version}: "
                               f"{found[version].name}, {item.name}")
        found[version] = _Migration(version, item.name, item.read_text(encoding="utf-8"))
    return [found[v] for v in sorted(found)]


def _statements(script: str) -> list[str]:
    """Split a SQL script into statements (triggers and quoted ';' stay whole).

    A migration cannot go through ``executescript``: that commits any open transaction first,
    and each migration must run inside one.
    """
    statements: list[str] = []
    current = ""
    for piece in script.split(";"):
        current += piece + ";"
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    return statements


class Store:
    """One SQLite connection; every call is one short transaction, serialised by a lock."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db
        self.pending = 0  # migrations not applied (a read-only store cannot apply them)
        # Transactions span several awaits on one connection; the lock keeps tasks from
        # interleaving statements inside each other's transactions.
        self._lock = asyncio.Lock()
        self._users: OrderedDict[int, UserRow] = OrderedDict()   # least recently used first

    @classmethod
    async def open(
        cls, path: str, *, migrations: Traversable | os.PathLike | str | None = None,
        readonly: bool = False,
    ) -> Store:
        """Open (creating if needed) the database at ``path`` and bring its schema up to date.

        ``":memory:"`` gives a private in-memory database. ``migrations`` overrides the folder
        of migration files (tests). ``readonly`` opens an existing database for reading only,
        beside a running bot, and changes nothing (no migration either: see ``pending``).
        """
        if readonly:
            return await cls._open_readonly(path, migrations)
        db = await aiosqlite.connect(path, isolation_level=None)
        try:
            await db.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
            await db.execute("PRAGMA journal_mode = WAL")
            # NORMAL is durable across application crashes in WAL mode and avoids an fsync
            # per transaction; a power cut may lose the last moves, never corrupt the file.
            await db.execute("PRAGMA synchronous = NORMAL")
            await db.execute("PRAGMA foreign_keys = ON")
            store = cls(db)
            await store._migrate(_load_migrations(migrations))
        except BaseException:
            await db.close()
            raise
        return store

    @classmethod
    async def _open_readonly(
        cls, path: str, migrations: Traversable | os.PathLike | str | None
    ) -> Store:
        if not Path(path).is_file():
            raise FileNotFoundError(f"no database at {path}")
        uri = f"{Path(path).resolve().as_uri()}?mode=ro"
        db = await aiosqlite.connect(uri, uri=True, isolation_level=None)
        try:
            await db.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
            store = cls(db)
            newest = max((m.version for m in _load_migrations(migrations)), default=0)
            current = await store.schema_version()
            if current > newest:
                raise SchemaTooNew(f"database schema {current} is newer than this bot "
                                   f"({newest}); upgrade the bot")
            store.pending = newest - current
        except BaseException:
            await db.close()
            raise
        return store

    async def close(self) -> None:
        async with self._lock:
            # A cursor whose statement is still open may be kept alive by a reference cycle (a
            # task cancelled mid-query, one of aiosqlite's futures) until the collector runs;
            # SQLite then closes only half (no checkpoint: the write-ahead log stays behind).
            gc.collect()
            await self._db.close()

    async def backup(self, path: str) -> None:
        """A consistent copy of the whole database at ``path``, taken with SQLite's online
        backup while others go on writing; ``path`` appears only once the copy is complete."""
        target = Path(path)
        partial = target.with_name(target.name + ".partial")
        partial.unlink(missing_ok=True)
        # The copy runs on the store's own thread, so its connection must accept that thread.
        copy = sqlite3.connect(partial, check_same_thread=False)
        try:
            async with self._reading() as db:
                await db.backup(copy)
        finally:
            copy.close()
        os.replace(partial, target)

    async def integrity_problems(self) -> list[str]:
        """What ``PRAGMA integrity_check`` finds wrong in the file (empty: nothing)."""
        async with self._reading() as db:
            cursor = await db.execute("PRAGMA integrity_check")
            lines = [line for (line,) in await cursor.fetchall()]
        return [] if lines == ["ok"] else lines

    # -- plumbing ---------------------------------------------------------------------------

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        async with self._lock:
            try:
                try:
                    # IMMEDIATE takes the write lock up front, so a second process waits
                    # (busy_timeout) instead of failing half-way through.
                    await self._db.execute("BEGIN IMMEDIATE")
                    yield self._db
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
    async def _statement(self) -> AsyncIterator[aiosqlite.Connection]:
        """One write statement, a transaction of its own (the connection autocommits): a single
        round trip to SQLite's thread instead of three, for what is written with every update."""
        async with self._lock:
            try:
                yield self._db
            except sqlite3.OperationalError as exc:
                _raise_unavailable(exc)
                raise

    @asynccontextmanager
    async def _reading(self) -> AsyncIterator[aiosqlite.Connection]:
        async with self._lock:
            yield self._db

    async def _migrate(self, migrations: list[_Migration]) -> None:
        await self._db.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at REAL NOT NULL)"
        )
        newest = migrations[-1].version if migrations else 0
        current = await self.schema_version()
        if current > newest:
            raise SchemaTooNew(
                f"database schema {current} is newer than this bot ({newest}); upgrade the bot"
            )
        for migration in migrations:
            async with self._transaction() as db:
                # Checked inside the transaction: another process may have just applied it.
                cursor = await db.execute(
                    "SELECT 1 FROM schema_migrations WHERE version = ?", (migration.version,)
                )
                if await cursor.fetchone():
                    continue
                try:
                    for statement in _statements(migration.sql):
                        await db.execute(statement)
                except sqlite3.Error as exc:
                    raise RuntimeError(f"migration {migration.name} failed: {exc}") from exc
                await db.execute(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                    (migration.version, migration.name, time.time()),
                )
                log.info("applied migration %s", migration.name)

    async def schema_version(self) -> int:
        async with self._reading() as db:
            cursor = await db.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")
            (version,) = await cursor.fetchone()
        return int(version)

    # -- users ------------------------------------------------------------------------------

    # Every update reads its sender's row (language, settings): they are kept in memory, read
    # once, changed only through the methods below (this process is the only one writing
    # users), and cached or forgotten under the store's lock, so no write slips in between.

    def _cached_user(self, user_id: int) -> UserRow | None:
        user = self._users.get(user_id)
        if user is not None:
            self._users.move_to_end(user_id)
        return user

    def _keep_user(self, user: UserRow) -> None:
        self._users[user.id] = user
        self._users.move_to_end(user.id)
        if len(self._users) > _USERS_KEPT:
            self._users.popitem(last=False)

    async def get_user(self, user_id: int) -> UserRow | None:
        cached = self._cached_user(user_id)
        if cached is not None:
            return cached
        async with self._reading() as db:
            user = await self._user(db, user_id)
            if user is not None:
                self._keep_user(user)
        return user

    async def users(self, user_ids: Iterable[int]) -> dict[int, UserRow]:
        """The rows of those of `user_ids` who exist, read in a few queries at most."""
        found = {}
        missing = []
        for user_id in dict.fromkeys(user_ids):
            cached = self._cached_user(user_id)
            if cached is None:
                missing.append(user_id)
            else:
                found[user_id] = cached
        async with self._reading() as db:
            for start in range(0, len(missing), _IDS_PER_QUERY):
                ids = missing[start:start + _IDS_PER_QUERY]
                cursor = await db.execute(
                    "SELECT id, name, language, settings, reachable FROM users"
                    f" WHERE id IN ({_placeholders(ids)})", ids)
                for row in await cursor.fetchall():
                    user = _user_row(row)
                    self._keep_user(user)
                    found[user.id] = user
        return found

    async def ensure_user(self, user_id: int, name: str) -> UserRow:
        """The user's row, created if new; the stored name follows their Telegram name."""
        cached = self._cached_user(user_id)
        if cached is not None and cached.name == name:
            return cached
        now = time.time()
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO users (id, name, settings, created_at, updated_at)"
                " VALUES (?, ?, '{}', ?, ?)"
                " ON CONFLICT (id) DO UPDATE"
                " SET name = excluded.name, updated_at = excluded.updated_at"
                " WHERE name <> excluded.name",
                (user_id, name, now, now),
            )
            user = await self._user(db, user_id)
            assert user is not None
            self._keep_user(user)
        return user

    async def set_language(self, user_id: int, language: str) -> None:
        await self._update_user(user_id, "language", language)

    async def set_settings(self, user_id: int, settings: dict) -> None:
        await self._update_user(user_id, "settings", _dumps(settings))

    async def set_reachable(self, user_id: int, reachable: bool) -> None:
        """Whether the bot may write to the user privately (unknown users are left alone)."""
        cached = self._cached_user(user_id)
        if cached is not None and cached.reachable == reachable:
            return
        async with self._transaction() as db:
            self._users.pop(user_id, None)
            await db.execute(
                "UPDATE users SET reachable = ?, updated_at = ? WHERE id = ? AND reachable <> ?",
                (int(reachable), time.time(), user_id, int(reachable)),
            )

    async def _update_user(self, user_id: int, column: str, value: object) -> None:
        async with self._transaction() as db:
            self._users.pop(user_id, None)
            cursor = await db.execute(
                f"UPDATE users SET {column} = ?, updated_at = ? WHERE id = ?",
                (value, time.time(), user_id),
            )
            if cursor.rowcount == 0:
                raise LookupError(f"user {user_id} does not exist")

    @staticmethod
    async def _user(db: aiosqlite.Connection, user_id: int) -> UserRow | None:
        cursor = await db.execute(
            "SELECT id, name, language, settings, reachable FROM users WHERE id = ?", (user_id,)
        )
        row = await cursor.fetchone()
        return None if row is None else _user_row(row)

    # -- tables -----------------------------------------------------------------------------

    async def create_table(
        self,
        chat_id: int,
        kind: str,
        status: str,
        options: dict,
        seats: list[SeatRow],
        snapshot: dict | None,
    ) -> TableRow:
        """A new table at version 0 (its action log is empty)."""
        _check(kind, KINDS, "kind")
        _check(status, ACTIVE, "a new table's status")
        _check_seats(seats)
        options_json = _dumps(options)
        snapshot_json = None if snapshot is None else _dumps(snapshot)
        now = time.time()
        async with self._transaction() as db:
            cursor = await db.execute(
                "INSERT INTO tables (chat_id, kind, status, options, snapshot, version,"
                " created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?)",
                (chat_id, kind, status, options_json, snapshot_json, now, now),
            )
            table_id = cursor.lastrowid
            assert table_id is not None
            await db.executemany(
                "INSERT INTO seats (table_id, seat, user_id, name, level) VALUES (?, ?, ?, ?, ?)",
                [(table_id, s.seat, s.user_id, s.name, s.level) for s in seats],
            )
            table = await self._table(db, table_id)
        assert table is not None
        return table

    async def record(
        self,
        table_id: int,
        expected_version: int,
        entries: list[dict],
        snapshot: dict,
        status: str = "running",
        results: list[tuple[int, str, int]] = (),
        rate: RateTable | None = None,
    ) -> int:
        """Append ``entries`` to the table's log and store ``snapshot``, atomically.

        The table must still be at ``expected_version`` and running, else StaleVersion and
        nothing is written. ``results`` and ``rate`` (as for ``finish``) are written in the same
        transaction, so a game's last move, its results and the ratings stand or fall together.
        Returns the new version (``expected_version + len(entries)``).
        """
        _check(status, ("running", "finished", "aborted"), "status")
        _check_results(results)
        entries_json = [_dumps(entry) for entry in entries]
        snapshot_json = _dumps(snapshot)
        now = time.time()
        new_version = expected_version + len(entries)
        # Every move comes here: the version check is the update's own condition, and results
        # are written only when there are some (each statement is a trip to SQLite's thread).
        async with self._transaction() as db:
            cursor = await db.execute(
                "UPDATE tables SET snapshot = ?, version = ?, status = ?, updated_at = ?,"
                " finished_at = CASE WHEN ? = 'running' THEN NULL ELSE ? END"
                " WHERE id = ? AND version = ? AND status = 'running'",
                (snapshot_json, new_version, status, now, status, now, table_id,
                 expected_version),
            )
            if cursor.rowcount != 1:
                version, current_status = await self._version_and_status(db, table_id)
                if version != expected_version:
                    raise StaleVersion(
                        f"table {table_id} is at version {version}, not {expected_version}"
                    )
                raise StaleVersion(f"table {table_id} is {current_status}, not running")
            await db.executemany(
                "INSERT INTO actions (table_id, seq, entry, at) VALUES (?, ?, ?, ?)",
                [(table_id, expected_version + i, text, now)
                 for i, text in enumerate(entries_json, 1)],
            )
            if results:
                await self._write_results(db, table_id, results)
                await self._rate(db, table_id, results, rate, now)
        return new_version

    async def record_many(self, changes: Sequence[tuple[int, int, list[dict], dict]]) -> None:
        """`record` for many running tables in one transaction: each (table id, expected
        version, entries, snapshot). StaleVersion, and nothing written, if any of them moved.

        For a change made to every table at once: the postponement after a restart (R10.4).
        """
        now = time.time()
        updates = [(_dumps(snapshot), version + len(entries), now, table_id, version)
                   for table_id, version, entries, snapshot in changes]
        actions = [(table_id, version + i, _dumps(entry), now)
                   for table_id, version, entries, _ in changes
                   for i, entry in enumerate(entries, 1)]
        async with self._transaction() as db:
            cursor = await db.executemany(
                "UPDATE tables SET snapshot = ?, version = ?, updated_at = ?"
                " WHERE id = ? AND version = ? AND status = 'running'", updates)
            if cursor.rowcount != len(updates):
                raise StaleVersion(f"{len(updates) - cursor.rowcount} of {len(updates)} tables"
                                   " moved or stopped meanwhile")
            await db.executemany(
                "INSERT INTO actions (table_id, seq, entry, at) VALUES (?, ?, ?, ?)", actions)

    async def finish(
        self,
        table_id: int,
        status: str,
        results: list[tuple[int, str, int]],
        rate: RateTable | None = None,
    ) -> None:
        """Close the table and store each person's (user_id, outcome, place).

        With ``rate``, the people's ratings move in the same transaction: ``rate`` gets the
        results and their current ratings (read inside the transaction, so a concurrent game or
        rebuild cannot be overwritten) and returns the new ones. A table moves ratings once.
        """
        _check(status, ("finished", "aborted"), "status")
        _check_results(results)
        now = time.time()
        async with self._transaction() as db:
            cursor = await db.execute(
                "UPDATE tables SET status = ?, updated_at = ?,"
                " finished_at = COALESCE(finished_at, ?) WHERE id = ?",
                (status, now, now, table_id),
            )
            if cursor.rowcount == 0:
                raise LookupError(f"table {table_id} does not exist")
            await self._write_results(db, table_id, results)
            await self._rate(db, table_id, results, rate, now)

    @staticmethod
    async def _write_results(
        db: aiosqlite.Connection, table_id: int, results: Iterable[tuple[int, str, int]]
    ) -> None:
        await db.executemany(
            "INSERT INTO results (table_id, user_id, outcome, place) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (table_id, user_id) DO UPDATE"
            " SET outcome = excluded.outcome, place = excluded.place",
            [(table_id, user_id, outcome, place) for user_id, outcome, place in results],
        )

    async def _rate(
        self,
        db: aiosqlite.Connection,
        table_id: int,
        results: Sequence[Result],
        rate: RateTable | None,
        now: float,
    ) -> None:
        if rate is None or not results:
            return
        cursor = await db.execute(
            "SELECT 1 FROM rating_history WHERE table_id = ? LIMIT 1", (table_id,)
        )
        if await cursor.fetchone():
            return
        current = await self._ratings(db, [user_id for user_id, _, _ in results])
        new = rate(results, current)
        await self._write_history(db, table_id, new)
        await self._write_ratings(db, new, now)

    @staticmethod
    async def _write_history(
        db: aiosqlite.Connection, table_id: int, ratings: Mapping[int, Rating]
    ) -> None:
        await db.executemany(
            "INSERT INTO rating_history (table_id, user_id, mu, sigma) VALUES (?, ?, ?, ?)",
            [(table_id, user_id, r.mu, r.sigma) for user_id, r in ratings.items()],
        )

    @staticmethod
    async def _write_ratings(
        db: aiosqlite.Connection, ratings: Mapping[int, Rating], now: float
    ) -> None:
        await db.executemany(
            "INSERT INTO ratings (user_id, mu, sigma, games, shown, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma,"
            " games = excluded.games, shown = excluded.shown, updated_at = excluded.updated_at",
            [(user_id, r.mu, r.sigma, r.games, r.shown, now) for user_id, r in ratings.items()],
        )

    @staticmethod
    async def _ratings(db: aiosqlite.Connection, user_ids: Sequence[int]) -> dict[int, Rating]:
        cursor = await db.execute(
            "SELECT user_id, mu, sigma, games FROM ratings"
            f" WHERE user_id IN ({_placeholders(user_ids)})",
            tuple(user_ids),
        )
        return {user_id: Rating(mu, sigma, games)
                for user_id, mu, sigma, games in await cursor.fetchall()}

    async def get_table(self, table_id: int) -> TableRow | None:
        """The table, or None; CorruptRow if its stored JSON cannot be read."""
        async with self._reading() as db:
            return await self._table(db, table_id)

    async def table_for_user(
        self, user_id: int, statuses: Sequence[str] = ACTIVE
    ) -> TableRow | None:
        """The newest table in one of ``statuses`` where the user has a seat."""
        async with self._reading() as db:
            cursor = await db.execute(
                "SELECT t.id FROM tables t JOIN seats s ON s.table_id = t.id"
                f" WHERE s.user_id = ? AND t.status IN ({_placeholders(statuses)})"
                " ORDER BY t.id DESC LIMIT 1",
                (user_id, *statuses),
            )
            row = await cursor.fetchone()
            return None if row is None else await self._table(db, row[0])

    async def set_seat_status(self, table_id: int, seat: int, status: str) -> None:
        """A person left ("left") or was removed ("kicked"); his seat row stays, for the results."""
        _check(status, SEAT_STATUSES, "seat status")
        async with self._transaction() as db:
            cursor = await db.execute(
                "UPDATE seats SET status = ?, left_at = ?"
                " WHERE table_id = ? AND seat = ? AND user_id IS NOT NULL",
                (status, None if status == "playing" else time.time(), table_id, seat),
            )
            if cursor.rowcount == 0:
                raise LookupError(f"table {table_id} has no person in seat {seat}")

    # Resuming reads every running table at once: a few queries for all of them, not a few
    # for each (10,000 tables are re-armed within a couple of seconds).

    async def running_tables(self) -> list[TableRow]:
        """Every running table (to resume after a restart); unreadable ones are logged, skipped."""
        async with self._reading() as db:
            cursor = await db.execute(
                f"SELECT {_TABLE_COLUMNS} FROM tables WHERE status = 'running' ORDER BY id")
            rows = await cursor.fetchall()
            cursor = await db.execute(
                "SELECT s.table_id, s.seat, s.user_id, s.name, s.level, s.status FROM seats s"
                f" WHERE s.table_id IN ({_RUNNING}) ORDER BY s.table_id, s.seat")
            seats: dict[int, list[SeatRow]] = {}
            for table_id, *seat in await cursor.fetchall():
                seats.setdefault(table_id, []).append(SeatRow(*seat))
        tables = []
        for row in rows:
            try:
                tables.append(_table_row(row, tuple(seats.get(row[0], ()))))
            except CorruptRow:
                log.exception("skipping table %s", row[0])
        return tables

    async def running_logs(self) -> dict[int, list]:
        """Every running table's action log, oldest entry first, by table id (a table without
        entries is left out); a log with an unreadable entry is logged and left out too."""
        # One JSON array of entries per table, put together by SQLite (ten thousand decodings,
        # not hundreds of thousands), and beside it their seqs, concatenated in the same order:
        # SQLite promises no order, so it is checked.
        async with self._reading() as db:
            cursor = await db.execute(
                "SELECT table_id, group_concat(seq), '[' || group_concat(entry) || ']'"
                " FROM (SELECT table_id, seq, entry FROM actions"
                f" WHERE table_id IN ({_RUNNING}) ORDER BY table_id, seq) GROUP BY table_id")
            rows = await cursor.fetchall()
        logs = {}
        for table_id, seqs, entries in rows:
            try:
                logs[table_id] = _in_order(seqs, json.loads(entries))
            except (TypeError, ValueError):
                log.exception("table %s: its log is not valid JSON", table_id)
        return logs

    async def running_messages(self) -> dict[int, list[MessageRow]]:
        """The messages of every running table, by table id (as `messages` gives them)."""
        async with self._reading() as db:
            cursor = await db.execute(
                "SELECT table_id, viewer, chat_id, message_id FROM messages"
                f" WHERE table_id IN ({_RUNNING}) ORDER BY table_id, viewer")
            rows = await cursor.fetchall()
        found: dict[int, list[MessageRow]] = {}
        for table_id, viewer, chat, message in rows:
            found.setdefault(table_id, []).append(
                MessageRow(table_id, None if viewer == _GROUP_VIEWER else viewer, chat, message))
        return found

    async def finished_since(self, since: float) -> list[TableRow]:
        """Tables that finished (all played) at wall time `since` or later, oldest first;
        unreadable ones are logged and skipped."""
        tables = []
        async with self._reading() as db:
            cursor = await db.execute(
                "SELECT id FROM tables WHERE status = 'finished' AND finished_at >= ?"
                " ORDER BY finished_at, id", (since,))
            for (table_id,) in await cursor.fetchall():
                try:
                    tables.append(await self._table(db, table_id))
                except CorruptRow:
                    log.exception("skipping table %s", table_id)
        return tables

    async def table_ids(self) -> list[int]:
        """Every table's id, whatever its status (to check them all, one at a time)."""
        async with self._reading() as db:
            cursor = await db.execute("SELECT id FROM tables ORDER BY id")
            return [table_id for (table_id,) in await cursor.fetchall()]

    async def table_record(self, table_id: int) -> TableRecord | None:
        """The table, its log and its results as one consistent reading (a bot may be writing
        meanwhile); None if there is no such table. CorruptRow if stored JSON cannot be read."""
        async with self._reading() as db:
            await db.execute("BEGIN")
            try:
                row = await self._table(db, table_id)
                if row is None:
                    return None
                cursor = await db.execute(
                    "SELECT user_id, outcome, place FROM results WHERE table_id = ?"
                    " ORDER BY user_id", (table_id,))
                results = [(user_id, outcome, place)
                           for user_id, outcome, place in await cursor.fetchall()]
                return TableRecord(row, await self._log(db, table_id), results)
            finally:
                await db.execute("COMMIT")

    # -- Telegram updates handled -----------------------------------------------------------

    async def claim_update(self, update_id: int) -> bool:
        """True the first time a Telegram update is offered: it is recorded as handled, so that
        a bot restarted after a crash, offered it again, leaves it alone (False)."""
        async with self._statement() as db:
            cursor = await db.execute(
                "INSERT OR IGNORE INTO handled_updates (update_id) VALUES (?)", (update_id,)
            )
            if cursor.rowcount == 0:
                return False
            if update_id % _FORGET_EVERY == 0:
                await db.execute("DELETE FROM handled_updates WHERE update_id <= ?",
                                 (update_id - _KEEP_UPDATES,))
            return True

    # -- lobbies: group tables before their start ----------------------------------------------

    async def create_lobby(
        self,
        chat_id: int,
        host_id: int,
        options: dict,
        *,
        invite: str,
        expires_at: float,
        language: str,
        thread_id: int | None = None,
    ) -> TableRow:
        """A new, empty lobby (status 'lobby', kind 'group'); seats come with add_lobby_seat."""
        now = time.time()
        async with self._transaction() as db:
            cursor = await db.execute(
                "INSERT INTO tables (chat_id, kind, status, options, version, created_at,"
                " updated_at, host_id, thread_id, invite, expires_at, language)"
                " VALUES (?, 'group', 'lobby', ?, 0, ?, ?, ?, ?, ?, ?, ?)",
                (chat_id, _dumps(options), now, now, host_id, thread_id, invite, expires_at,
                 language),
            )
            table_id = cursor.lastrowid
            assert table_id is not None
            table = await self._table(db, table_id)
        assert table is not None
        return table

    async def add_lobby_seat(
        self, table_id: int, user_id: int | None, name: str, level: str | None, max_seats: int
    ) -> TableRow:
        """Seat a person (or a computer, user_id None) after the lobby's last seat.

        LobbyClosed if it is no lobby any more, LobbyFull at `max_seats`, AlreadySeated if the
        person has a seat at any open table (one table per person).
        """
        async with self._transaction() as db:
            await self._open_lobby(db, table_id)
            if user_id is not None:
                await self._check_free(db, user_id)
            cursor = await db.execute(
                "SELECT COUNT(*), COALESCE(MAX(seat) + 1, 0) FROM seats WHERE table_id = ?",
                (table_id,),
            )
            count, seat = await cursor.fetchone()
            if count >= max_seats:
                raise LobbyFull(f"table {table_id} has {count} of {max_seats} seats taken")
            await db.execute(
                "INSERT INTO seats (table_id, seat, user_id, name, level) VALUES (?, ?, ?, ?, ?)",
                (table_id, seat, user_id, name, level),
            )
            return await self._touched(db, table_id)

    async def remove_lobby_seat(self, table_id: int, seat: int) -> TableRow:
        """Free one seat of a lobby (LobbyClosed if it started or closed meanwhile)."""
        async with self._transaction() as db:
            await self._open_lobby(db, table_id)
            await db.execute("DELETE FROM seats WHERE table_id = ? AND seat = ?", (table_id, seat))
            return await self._touched(db, table_id)

    async def set_lobby_options(self, table_id: int, options: dict) -> TableRow:
        async with self._transaction() as db:
            await self._open_lobby(db, table_id)
            await db.execute("UPDATE tables SET options = ? WHERE id = ?",
                             (_dumps(options), table_id))
            return await self._touched(db, table_id)

    async def start_lobby(self, table_id: int, seats: list[SeatRow], snapshot: dict) -> TableRow:
        """The lobby becomes a running table: its final seats and first snapshot, at once."""
        _check_seats(seats)
        async with self._transaction() as db:
            await self._open_lobby(db, table_id)
            await db.execute("DELETE FROM seats WHERE table_id = ?", (table_id,))
            await db.executemany(
                "INSERT INTO seats (table_id, seat, user_id, name, level) VALUES (?, ?, ?, ?, ?)",
                [(table_id, s.seat, s.user_id, s.name, s.level) for s in seats],
            )
            await db.execute(
                "UPDATE tables SET status = 'running', snapshot = ?, expires_at = NULL"
                " WHERE id = ?",
                (_dumps(snapshot), table_id),
            )
            return await self._touched(db, table_id)

    async def close_lobby(self, table_id: int) -> bool:
        """Cancel or expire a lobby (status 'aborted'); False if it was no lobby any more."""
        now = time.time()
        async with self._transaction() as db:
            cursor = await db.execute(
                "UPDATE tables SET status = 'aborted', updated_at = ?, finished_at = ?"
                " WHERE id = ? AND status = 'lobby'",
                (now, now, table_id),
            )
            return cursor.rowcount == 1

    async def open_group_table(self, chat_id: int) -> TableRow | None:
        """The chat's newest lobby or running group table."""
        return await self._first_table(
            "SELECT id FROM tables WHERE chat_id = ? AND kind = 'group'"
            " AND status IN ('lobby', 'running') ORDER BY id DESC LIMIT 1", (chat_id,))

    async def lobby_by_invite(self, invite: str) -> TableRow | None:
        """The table whose deep-link payload is `invite`, whatever became of it."""
        return await self._first_table("SELECT id FROM tables WHERE invite = ?", (invite,))

    async def open_lobbies(self) -> list[TableRow]:
        """Every lobby not yet started (to re-arm their expiry after a restart)."""
        async with self._reading() as db:
            cursor = await db.execute("SELECT id FROM tables WHERE status = 'lobby' ORDER BY id")
            ids = [table_id for (table_id,) in await cursor.fetchall()]
            tables = [await self._table(db, table_id) for table_id in ids]
        return [t for t in tables if t is not None]

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> None:
        """A group became a supergroup: its tables and messages follow it to the new id."""
        async with self._transaction() as db:
            await db.execute("UPDATE tables SET chat_id = ? WHERE chat_id = ?",
                             (new_chat_id, old_chat_id))
            await db.execute("UPDATE messages SET chat_id = ? WHERE chat_id = ?",
                             (new_chat_id, old_chat_id))

    async def _first_table(self, sql: str, params: tuple) -> TableRow | None:
        async with self._reading() as db:
            cursor = await db.execute(sql, params)
            row = await cursor.fetchone()
            return None if row is None else await self._table(db, row[0])

    @staticmethod
    async def _open_lobby(db: aiosqlite.Connection, table_id: int) -> None:
        cursor = await db.execute("SELECT status FROM tables WHERE id = ?", (table_id,))
        row = await cursor.fetchone()
        if row is None or row[0] != "lobby":
            raise LobbyClosed(f"table {table_id} is {'gone' if row is None else row[0]}")

    @staticmethod
    async def _check_free(db: aiosqlite.Connection, user_id: int) -> None:
        cursor = await db.execute(
            "SELECT t.id FROM tables t JOIN seats s ON s.table_id = t.id"
            " WHERE s.user_id = ? AND s.status = 'playing' AND t.status IN ('lobby', 'running')"
            " ORDER BY t.id DESC LIMIT 1",
            (user_id,),
        )
        row = await cursor.fetchone()
        if row is not None:
            raise AlreadySeated(row[0])

    async def _touched(self, db: aiosqlite.Connection, table_id: int) -> TableRow:
        await db.execute("UPDATE tables SET updated_at = ? WHERE id = ?", (time.time(), table_id))
        table = await self._table(db, table_id)
        assert table is not None
        return table

    async def log(self, table_id: int) -> list[dict]:
        """The table's action log, oldest first."""
        async with self._reading() as db:
            return await self._log(db, table_id)

    @staticmethod
    async def _log(db: aiosqlite.Connection, table_id: int) -> list[dict]:
        cursor = await db.execute(
            "SELECT seq, entry FROM actions WHERE table_id = ? ORDER BY seq", (table_id,)
        )
        rows = await cursor.fetchall()
        return [_loads(entry, f"action {seq} of table {table_id}") for seq, entry in rows]

    @staticmethod
    async def _version_and_status(db: aiosqlite.Connection, table_id: int) -> tuple[int, str]:
        cursor = await db.execute("SELECT version, status FROM tables WHERE id = ?", (table_id,))
        row = await cursor.fetchone()
        if row is None:
            raise LookupError(f"table {table_id} does not exist")
        return row[0], row[1]

    @staticmethod
    async def _table(db: aiosqlite.Connection, table_id: int) -> TableRow | None:
        cursor = await db.execute(f"SELECT {_TABLE_COLUMNS} FROM tables WHERE id = ?",
                                  (table_id,))
        row = await cursor.fetchone()
        if row is None:
            return None
        cursor = await db.execute(
            "SELECT seat, user_id, name, level, status FROM seats WHERE table_id = ?"
            " ORDER BY seat",
            (table_id,),
        )
        return _table_row(row, tuple(SeatRow(*seat) for seat in await cursor.fetchall()))

    # -- messages ---------------------------------------------------------------------------

    async def set_message(
        self, table_id: int, user_id: int | None, chat_id: int, message_id: int
    ) -> None:
        """Remember which message shows the table to ``user_id`` (None: the group's message)."""
        viewer = _GROUP_VIEWER if user_id is None else user_id
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO messages (table_id, viewer, chat_id, message_id) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (table_id, viewer) DO UPDATE"
                " SET chat_id = excluded.chat_id, message_id = excluded.message_id",
                (table_id, viewer, chat_id, message_id),
            )

    async def messages(self, table_id: int) -> list[MessageRow]:
        """The table's messages, the group's public one first."""
        async with self._reading() as db:
            cursor = await db.execute(
                "SELECT viewer, chat_id, message_id FROM messages WHERE table_id = ?"
                " ORDER BY viewer",
                (table_id,),
            )
            rows = await cursor.fetchall()
        return [
            MessageRow(table_id, None if viewer == _GROUP_VIEWER else viewer, chat, message)
            for viewer, chat, message in rows
        ]

    # -- results and metadata ---------------------------------------------------------------

    async def stats(self, user_id: int) -> Stats:
        """All the user's games, rated or not."""
        async with self._reading() as db:
            return await self._stats(db, user_id)

    async def player_record(self, user_id: int) -> PlayerRecord:
        async with self._reading() as db:
            return PlayerRecord(
                people=await self._stats(db, user_id, f"AND {_RATED}"),
                computers=await self._stats(db, user_id, f"AND NOT {_RATED}"),
                rating=(await self._ratings(db, [user_id])).get(user_id),
            )

    @staticmethod
    async def _stats(db: aiosqlite.Connection, user_id: int, where: str = "") -> Stats:
        cursor = await db.execute(
            f"SELECT outcome, COUNT(*) FROM results r WHERE user_id = ? {where} GROUP BY outcome",
            (user_id,),
        )
        counts = dict(await cursor.fetchall())
        return Stats(
            games=sum(counts.values()),
            durak=counts.get("durak", 0),
            safe=counts.get("safe", 0),
            draws=counts.get("draw", 0),
            resigned=counts.get("resigned", 0),
        )

    async def ratings(self, user_ids: Sequence[int]) -> dict[int, Rating]:
        """The ratings of those of ``user_ids`` who have played a rated game."""
        async with self._reading() as db:
            return await self._ratings(db, user_ids)

    async def leaderboard(self, chat_id: int, user_id: int, top: int = 10) -> list[Standing]:
        """The chat's table of players: everyone with a rated game at a table of the chat, best
        first, the first ``top`` of them and ``user_id``'s own line wherever it stands."""
        async with self._reading() as db:
            cursor = await db.execute(
                "WITH players AS (SELECT DISTINCT h.user_id FROM rating_history h"
                "  JOIN tables t ON t.id = h.table_id WHERE t.chat_id = ?),"
                " ranked AS (SELECT r.user_id, r.shown, r.games, ROW_NUMBER() OVER"
                "  (ORDER BY r.shown DESC, r.mu DESC, r.user_id) AS position"
                "  FROM ratings r JOIN players USING (user_id))"
                " SELECT position, user_id,"
                "  COALESCE((SELECT name FROM users u WHERE u.id = ranked.user_id),"
                "   (SELECT name FROM seats s WHERE s.user_id = ranked.user_id"
                "    ORDER BY s.table_id DESC LIMIT 1), ''),"
                "  shown, games,"
                f"  (SELECT COUNT(*) FROM results r WHERE r.user_id = ranked.user_id AND {_RATED}"
                "   AND r.outcome = 'durak')"
                " FROM ranked WHERE position <= ? OR user_id = ? ORDER BY position",
                (chat_id, top, user_id),
            )
            return [Standing(*row) for row in await cursor.fetchall()]

    async def rebuild_ratings(self, rate: RateTable) -> Rebuilt:
        """Recompute every rating from the stored results, replacing the old ones at once.

        Tables are replayed in the order they closed (then by id), as they were rated one by
        one, so the result equals what the games wrote as they finished.
        """
        async with self._transaction() as db:
            cursor = await db.execute(
                "SELECT r.table_id, t.finished_at, r.user_id, r.outcome, r.place"
                " FROM results r JOIN tables t ON t.id = r.table_id"
                " ORDER BY t.finished_at, t.id, r.user_id"
            )
            rows = await cursor.fetchall()
            await db.execute("DELETE FROM rating_history")
            await db.execute("DELETE FROM ratings")
            current: dict[int, Rating] = {}
            tables = 0
            for (table_id, finished_at), group in itertools.groupby(rows, lambda r: r[:2]):
                new = rate([(user_id, outcome, place) for *_, user_id, outcome, place in group],
                           current)
                if new:
                    tables += 1
                    current.update(new)
                    await self._write_history(db, table_id, new)
                    await self._write_ratings(db, new, finished_at)
        return Rebuilt(people=len(current), tables=tables)

    async def get_meta(self, key: str) -> object | None:
        async with self._reading() as db:
            cursor = await db.execute("SELECT value FROM meta WHERE key = ?", (key,))
            row = await cursor.fetchone()
        return None if row is None else _loads(row[0], f"meta {key!r}")

    async def set_meta(self, key: str, value: object) -> None:
        text = _dumps(value)
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, text),
            )
