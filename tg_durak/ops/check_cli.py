"""`python -m tg_durak check` and `python -m tg_durak backup PATH`: an operator's tools, safe
while the bot runs.

check   reads every table (read-only) and prints each problem on one line; exit code 0 when
        all is well, 1 when problems were found, 2 when the database cannot be read at all.
backup  copies the database to PATH with SQLite's online backup (a consistent copy, even while
        the bot writes); start a bot on the copy to restore it. SQLite only: PostgreSQL has
        pg_dump.

Both use the bot's database (DURAK_DB, or --db): a SQLite file or a postgresql:// address.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

# The database's modules are imported when a command runs: `python -m tg_durak --help` builds
# these commands' options and should answer at once.
if TYPE_CHECKING:
    from tg_durak.ops.check import Report

T = TypeVar("T")


async def _check(db_path: str) -> Report:
    from tg_durak.ops.check import check
    from tg_durak.storage import Store

    store = await Store.open(db_path, readonly=True)
    try:
        return await check(store)
    finally:
        await store.close()


async def _backup(db_path: str, target: str) -> int:
    from tg_durak.storage import Store

    store = await Store.open(db_path, readonly=True)
    try:
        await store.backup(target)
        return len(await store.tables.ids())
    finally:
        await store.close()


def add_db_argument(parser: argparse.ArgumentParser) -> None:
    """--db, for every command that opens the database."""
    parser.add_argument("--db", help="SQLite file or postgresql://... address (default: DURAK_DB,"
                                     " else ./durak.sqlite3)")


def add_check_arguments(parser: argparse.ArgumentParser) -> None:
    """`python -m tg_durak check`'s options (tg_durak/__main__.py builds the command line)."""
    add_db_argument(parser)


def add_backup_arguments(parser: argparse.ArgumentParser) -> None:
    """`python -m tg_durak backup`'s arguments."""
    parser.add_argument("path", help="where the copy goes (replaced if it exists)")
    add_db_argument(parser)


def db_path_of(args: argparse.Namespace) -> str:
    """--db, else DURAK_DB (or DURAK_DB_FILE) from the environment or .env, else the bot's
    default; ConfigError if DURAK_DB_FILE cannot be read."""
    from tg_durak.config import database_of, load_env_file

    if args.db:
        return str(args.db)
    load_env_file()
    return database_of(dict(os.environ))


def on_database(db_path: str, work: Coroutine[Any, Any, T]) -> T | None:
    """Run `work` on the database; None, said on stderr, if it cannot be read."""
    from tg_durak.config import passwords_in
    from tg_durak.ops.logs import hide
    from tg_durak.storage import redacted, refusals

    try:
        return asyncio.run(work)
    except refusals(db_path) as exc:
        # The driver's own text may quote the address, password and all.
        print(f"tg-durak: {redacted(db_path)}: {hide(str(exc), passwords_in(db_path))}",
              file=sys.stderr)
        return None


def run_check(args: argparse.Namespace) -> int:
    """Print each problem on a line: 0 if none, 1 if some, 2 if the database cannot be read."""
    db_path = db_path_of(args)
    report = on_database(db_path, _check(db_path))
    if report is None:
        return 2
    for problem in report.problems:
        print(problem)
    found = len(report.problems)
    # The count goes to stderr: stdout holds the problems alone, one a line, for scripts.
    from tg_durak.storage import redacted

    print(f"checked {report.tables} tables in {redacted(db_path)}: "
          + (f"{found} problem(s)" if found else "no problems"), file=sys.stderr)
    return 1 if found else 0


def run_backup(args: argparse.Namespace) -> int:
    """Copy the database to args.path: 0; 2 if it cannot be read or would replace itself."""
    from tg_durak.storage import is_postgres

    db_path = db_path_of(args)
    if is_postgres(db_path):
        print("tg-durak: backup copies a SQLite file; back up PostgreSQL with pg_dump",
              file=sys.stderr)
        return 2
    if Path(args.path).resolve() == Path(db_path).resolve():
        print("tg-durak: the backup cannot replace the database itself", file=sys.stderr)
        return 2
    tables = on_database(db_path, _backup(db_path, args.path))
    if tables is None:
        return 2
    print(f"backed up {db_path} ({tables} tables) to {args.path}")
    return 0
