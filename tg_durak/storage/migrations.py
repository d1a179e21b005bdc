"""Schema changes: the ``NNNN_name.sql`` files of ``migrations/``, applied in order.

Each migration runs in its own transaction and is recorded in ``schema_migrations``; the files
are SQLite's SQL, which the connection's `Dialect` translates for another database (PostgreSQL:
`tg_durak.storage.postgres_sql`).
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
import time
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from tg_durak.storage.connection import Connection, Dialect, Session, lock, only_row
from tg_durak.storage.errors import SchemaTooNew

log = logging.getLogger(__name__)

_NAME = re.compile(r"(\d+)_\w+\.sql")

Folder = os.PathLike[str] | str


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def load(folder: Folder | None = None) -> list[Migration]:
    """The migration files of ``folder`` (default: the package's own), in version order."""
    root: Traversable = (
        resources.files(__package__).joinpath("migrations") if folder is None else Path(folder)
    )
    found: dict[int, Migration] = {}
    for item in root.iterdir():
        match = _NAME.fullmatch(item.name)
        if not match:
            continue
        version = int(match[1])
        if version in found:
            raise RuntimeError(f"two migrations with version {version}: "
                               f"{found[version].name}, {item.name}")
        found[version] = Migration(version, item.name, item.read_text(encoding="utf-8"))
    return [found[v] for v in sorted(found)]


def statements(script: str) -> list[str]:
    """Split a SQL script into statements (triggers and quoted ';' stay whole).

    A migration cannot go through ``executescript``: that commits any open transaction first,
    and each migration must run inside one.
    """
    found: list[str] = []
    current = ""
    for piece in script.split(";"):
        current += piece + ";"
        if sqlite3.complete_statement(current):
            found.append(current.strip())
            current = ""
    return found


async def schema_version(connection: Connection) -> int:
    """The newest migration applied to the database (0: none)."""
    async with connection.reading() as db:
        (version,) = await only_row(db,
                                    "SELECT COALESCE(MAX(version), 0) FROM schema_migrations")
    return int(version)


async def waiting(connection: Connection, migrations: list[Migration]) -> list[Migration]:
    """Those of ``migrations`` the database lacks, in order; SchemaTooNew if it has newer
    ones."""
    newest = migrations[-1].version if migrations else 0
    try:
        current = await schema_version(connection)
    except connection.dialect.error:   # no schema_migrations yet: a database never migrated
        current = 0
    if current > newest:
        raise SchemaTooNew(
            f"database schema {current} is newer than this bot ({newest}); upgrade the bot"
        )
    return [migration for migration in migrations if migration.version > current]


async def pending(connection: Connection, migrations: list[Migration]) -> int:
    """How many of ``migrations`` the database lacks; SchemaTooNew if it has newer ones."""
    return len(await waiting(connection, migrations))


_BOOKKEEPING = ("CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at REAL NOT NULL)")
# Held by the transaction that changes the schema: two processes starting at once on one
# PostgreSQL apply each migration once (on SQLite BEGIN IMMEDIATE already excludes the other).
_SCHEMA_LOCK = "tg_durak schema"


async def apply(connection: Connection, migrations: list[Migration]) -> None:
    """Apply those of ``migrations`` the database lacks (SchemaTooNew if it has newer ones)."""
    async with connection.transaction() as db:
        await lock(db, connection.dialect, _SCHEMA_LOCK)
        await _run(db, connection.dialect, _BOOKKEEPING)
    await pending(connection, migrations)
    for migration in migrations:
        async with connection.transaction() as db:
            await lock(db, connection.dialect, _SCHEMA_LOCK)
            # Checked inside the transaction: another process may have just applied it.
            if await db.fetchone("SELECT 1 FROM schema_migrations WHERE version = ?",
                                 (migration.version,)):
                continue
            await apply_one(db, connection.dialect, migration)
            log.info("applied migration %s", migration.name)


async def create_schema(db: Session, dialect: Dialect, migrations: list[Migration]) -> None:
    """Inside the caller's transaction, on an empty database: every migration's statements and
    an empty ``schema_migrations``, for a copy to fill (copy-db copies the records too)."""
    await _run(db, dialect, _BOOKKEEPING)
    for migration in migrations:
        await _statements(db, dialect, migration)


async def apply_one(db: Session, dialect: Dialect, migration: Migration) -> None:
    """Inside the caller's transaction: one migration's statements and its record."""
    await _statements(db, dialect, migration)
    await db.execute(
        "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
        (migration.version, migration.name, time.time()),
    )


async def _statements(db: Session, dialect: Dialect, migration: Migration) -> None:
    try:
        for statement in statements(migration.sql):
            await _run(db, dialect, statement)
    except dialect.error as exc:
        raise RuntimeError(f"migration {migration.name} failed: {exc}") from exc


async def _run(db: Session, dialect: Dialect, statement: str) -> None:
    for translated in dialect.migration(statement):
        await db.execute(translated)
