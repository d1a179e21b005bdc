"""`python -m tg_durak migrate`: bring the database's schema up to date before a bot starts (a
deploy step; the bot also does it as it starts), or with --check only say whether it is.

migrate          applies the migrations the database lacks and names each; exit code 0.
migrate --check  changes nothing: names each migration the database lacks and exits with 1,
                 or says the schema is current and exits with 0.
Both exit with 2 when the database cannot be read, or is newer than this bot.

Uses the bot's database (DURAK_DB, or --db): a SQLite file or a postgresql:// address.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tg_durak.ops.check_cli import add_db_argument, db_path_of, on_database

# The database's modules are imported when the command runs: `python -m tg_durak --help`
# builds this command's options and should answer at once.
if TYPE_CHECKING:
    from tg_durak.storage.migrations import Migration

# Exit code of `migrate --check` when migrations are pending: 2 means the database was unread.
PENDING_EXIT = 1


@dataclass(frozen=True)
class Schema:
    missing: list[Migration]   # what the database lacked, in order
    newest: int                # the version this bot's migrations reach


async def migrate(db_path: str, *, check: bool) -> Schema:
    """What the database lacks; unless ``check``, applied."""
    from tg_durak.storage import migrations as schema
    from tg_durak.storage.store import open_connection

    connection = await open_connection(db_path, readonly=check)
    try:
        found = schema.load()
        missing = await schema.waiting(connection, found)
        if not check:
            await schema.apply(connection, found)
    finally:
        await connection.close()
    return Schema(missing, found[-1].version if found else 0)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`python -m tg_durak migrate`'s options (tg_durak/__main__.py builds the command line)."""
    parser.add_argument("--check", action="store_true",
                        help="change nothing: exit 1 if a migration is pending, 0 if none")
    add_db_argument(parser)


def run(args: argparse.Namespace) -> int:
    """Migrate (or check): 0 current, 1 pending under --check, 2 the database cannot be read."""
    from tg_durak.storage import redacted

    db_path = db_path_of(args)
    found = on_database(db_path, migrate(db_path, check=args.check))
    if found is None:
        return 2
    said = "pending" if args.check else "applied"
    for migration in found.missing:
        print(f"{said}: {migration.name}")
    if args.check and found.missing:
        return PENDING_EXIT
    print(f"{redacted(db_path)}: schema {found.newest} is current")
    return 0
