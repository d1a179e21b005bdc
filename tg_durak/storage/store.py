"""The store: one connection, its schema brought up to date, one repository per concern.

Callers reach each concern by name: ``store.users``, ``store.tables`` (and their logs),
``store.lobbies``, ``store.messages``, ``store.results`` (and ratings), ``store.updates``,
``store.meta``, ``store.wakes``, ``store.quick`` (quick games' queue and reports, /notify),
``store.privacy`` (erasing a person, pruning old logs).
``Store.open`` takes a SQLite file (the default) or a PostgreSQL address.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager

from tg_durak.storage import migrations as schema
from tg_durak.storage.connection import Connection, ScopeTimer, SQLiteConnection
from tg_durak.storage.lobbies import Lobbies
from tg_durak.storage.messages import Messages
from tg_durak.storage.meta import Meta
from tg_durak.storage.operators import Operators
from tg_durak.storage.privacy import Privacy
from tg_durak.storage.quick_games import QuickQueue
from tg_durak.storage.results import RateTable, Results
from tg_durak.storage.tables import Tables
from tg_durak.storage.updates import Updates
from tg_durak.storage.users import Users
from tg_durak.storage.wakes import Wakes

_POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres(target: str) -> bool:
    """Whether ``target`` (DURAK_DB) is a PostgreSQL address rather than a SQLite file."""
    return target.startswith(_POSTGRES_SCHEMES)


async def open_connection(target: str, *, readonly: bool = False,
                          timer: ScopeTimer | None = None) -> Connection:
    """The database at ``target``: a PostgreSQL address, else a SQLite file; ``timer`` is told
    of each transaction's time."""
    if is_postgres(target):
        # Imported here: the bot on a SQLite file never loads psycopg.
        from tg_durak.storage.postgres import PostgresConnection

        return await PostgresConnection.open(target, readonly=readonly, timer=timer)
    return await SQLiteConnection.open(target, readonly=readonly, timer=timer)


def redacted(target: str) -> str:
    """``target`` as it may be printed: a PostgreSQL address without its password."""
    if not is_postgres(target):
        return target
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(target)
    if parts.password is None:
        return target
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))


def refusals(target: str) -> tuple[type[BaseException], ...]:
    """What opening or reading the database at ``target`` raises when it cannot be read at
    all (for an operator's tool to say in one line): the driver's errors among them."""
    import sqlite3

    from tg_durak.storage.errors import NoDatabase, SchemaTooNew, StoreUnavailable

    found: tuple[type[BaseException], ...] = (
        SchemaTooNew, NoDatabase, StoreUnavailable, FileNotFoundError, sqlite3.Error)
    if is_postgres(target):
        import psycopg

        found += (psycopg.Error,)
    return found


class Store:
    """Everything the bot keeps between restarts, in one database: SQLite or PostgreSQL."""

    def __init__(self, connection: Connection, rate: RateTable | None,
                 pending: int = 0) -> None:
        self.connection = connection
        self.pending = pending  # migrations not applied (a read-only store cannot apply them)
        self.users = Users(connection)
        self.results = Results(connection, rate)
        self.tables = Tables(connection, self.results)
        self.lobbies = Lobbies(connection)
        self.messages = Messages(connection)
        self.updates = Updates(connection)
        self.meta = Meta(connection)
        self.wakes = Wakes(connection)
        self.privacy = Privacy(connection, self.users)
        self.operators = Operators(connection)
        self.quick = QuickQueue(connection)

    @classmethod
    async def open(
        cls, path: str, *, rate: RateTable | None = None,
        migrations: schema.Folder | None = None, readonly: bool = False,
        timer: ScopeTimer | None = None,
    ) -> Store:
        """Open (creating if needed) the database at ``path`` and bring its schema up to date.

        ``path`` is a SQLite file, or a ``postgresql://`` (``postgres://``) address of an
        existing database. ``":memory:"`` gives a private in-memory SQLite database. ``rate``
        moves the people's ratings when a table ends (`tg_durak.play.ratings.rate`; None:
        results only). ``migrations`` overrides the folder of migration files (tests).
        ``readonly`` opens an existing database for reading only, beside a running bot, and
        changes nothing (no migration either: see ``pending``). ``timer`` is told how long
        each transaction took (the bot's metrics: tg_durak/observe/store.py).
        """
        connection = await open_connection(path, readonly=readonly, timer=timer)
        try:
            found = schema.load(migrations)
            if readonly:
                return cls(connection, rate, await schema.pending(connection, found))
            await schema.apply(connection, found)
        except BaseException:
            await connection.close()
            raise
        return cls(connection, rate)

    async def close(self) -> None:
        await self.connection.close()

    @property
    def shared(self) -> bool:
        """Whether several bot processes may use this database at once (PostgreSQL)."""
        return self.connection.shared

    def held(self, name: str) -> AbstractAsyncContextManager[object]:
        """On a shared database: a transaction that holds the lock ``name`` until it ends and
        that every store call of this task joins meanwhile (`PostgresConnection.held`);
        NotImplementedError on SQLite."""
        return self.connection.held(name)

    @property
    def engine(self) -> str:
        """"sqlite" or "postgresql"."""
        return self.connection.engine

    async def backup(self, path: str) -> None:
        """A consistent copy of the whole database at ``path`` (see `SQLiteConnection.backup`);
        SQLite's alone (PostgreSQL has pg_dump)."""
        if not isinstance(self.connection, SQLiteConnection):
            raise NotImplementedError("backup copies a SQLite file; for PostgreSQL use pg_dump")
        await self.connection.backup(path)

    async def integrity_problems(self) -> list[str]:
        """What the database itself finds wrong (empty: nothing): SQLite's integrity check of
        its file, PostgreSQL's catalog (`PostgresConnection.integrity_problems`)."""
        return await self.connection.integrity_problems()

    async def schema_version(self) -> int:
        return await schema.schema_version(self.connection)

