"""A SQLite bot's whole database copied into an empty PostgreSQL database, in one transaction.

Every table of the file is copied, row by row and column by column, parents before the tables
whose foreign keys name them; the schema is the migrations' (as PostgreSQL spells them), and the
migration records are copied with the rest, so the copy is at the file's schema version. The
identity sequences then start past the largest id ever given (SQLite's ``sqlite_sequence``
remembers it for AUTOINCREMENT), so no new table takes an old one's id.
"""

from __future__ import annotations

from tg_durak.storage import migrations as schema
from tg_durak.storage.connection import (
    Dialect,
    Session,
    SQLiteConnection,
    SQLiteSession,
    only_row,
)

_BATCH = 2000   # rows read and written at a time: memory stays flat, whatever the size
# SQLite's own bookkeeping, not the bot's tables.
_INTERNAL = "sqlite_%"


class CopyRefused(RuntimeError):
    """The copy cannot start (nothing was written): the target holds tables, the source's schema
    is not this bot's."""


async def copy_database(source_path: str, target_url: str) -> dict[str, int]:
    """Copy the SQLite database at ``source_path`` into the empty PostgreSQL database at
    ``target_url``; the rows copied, by table. CopyRefused if it cannot start."""
    from tg_durak.storage.postgres import PostgresConnection

    source = await SQLiteConnection.open(source_path, readonly=True)
    try:
        migrations = schema.load()
        lacking = await schema.pending(source, migrations)
        if lacking:
            raise CopyRefused(f"{source_path} lacks {lacking} migration(s) of this bot: start "
                              "the bot on it once, then copy")
        target = await PostgresConnection.open(target_url)
        try:
            async with source.reading(consistent=True) as old, target.transaction() as new:
                return await _copy(old, new, target.dialect, migrations)   # type: ignore[arg-type]
        finally:
            await target.close()
    finally:
        await source.close()


async def _copy(old: SQLiteSession, new: Session, dialect: Dialect,
                migrations: list[schema.Migration]) -> dict[str, int]:
    present = [name for (name,) in await new.fetchall(
        "SELECT table_name FROM information_schema.tables"
        " WHERE table_schema = current_schema() ORDER BY table_name")]
    if present:
        raise CopyRefused(f"the target already holds tables ({', '.join(present)}): copy into "
                          "an empty database")
    await schema.create_schema(new, dialect, migrations)
    copied = {}
    for table in await _tables_in_order(old):
        columns = [name for _, name, *_ in await old.fetchall(f'PRAGMA table_info("{table}")')]
        names = ", ".join(f'"{c}"' for c in columns)
        insert = (f'INSERT INTO "{table}" ({names})'
                  f" VALUES ({', '.join('?' * len(columns))})")
        copied[table] = 0
        async for rows in old.batches(f'SELECT {names} FROM "{table}"', _BATCH):
            copied[table] += await new.executemany(insert, rows)
    await _move_sequences(old, new)
    return copied


async def _tables_in_order(db: SQLiteSession) -> list[str]:
    """The file's tables, each after every table its foreign keys name."""
    tables = [name for (name,) in await db.fetchall(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE ?"
        " ORDER BY name", (_INTERNAL,))]
    parents = {table: {row[2] for row in await db.fetchall(
        f'PRAGMA foreign_key_list("{table}")')} - {table} for table in tables}
    ordered: list[str] = []
    while len(ordered) < len(tables):
        ready = [t for t in tables if t not in ordered and parents[t] <= set(ordered)]
        if not ready:
            raise CopyRefused(f"the foreign keys of {sorted(set(tables) - set(ordered))} "
                              "form a circle")
        ordered += ready
    return ordered


async def _move_sequences(old: SQLiteSession, new: Session) -> None:
    used = dict(await old.fetchall("SELECT name, seq FROM sqlite_sequence"))
    identities = await new.fetchall(
        "SELECT c.relname, a.attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid"
        " WHERE c.relnamespace = current_schema()::regnamespace AND a.attidentity <> ''")
    for table, column in identities:
        (largest,) = await only_row(new, f'SELECT MAX("{column}") FROM "{table}"')
        last = max(largest or 0, used.get(table) or 0)
        if last:
            await new.execute("SELECT setval(pg_get_serial_sequence(?, ?), ?)",
                              (f'"{table}"', column, last))
