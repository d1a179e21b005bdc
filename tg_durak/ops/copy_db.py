"""`python -m tg_durak copy-db SQLITE_PATH postgresql://...`: move a bot's database to PostgreSQL.

Copies every table of the SQLite file (users, tables and their logs, seats, messages, results,
ratings, handled updates, meta, the migration records) into an empty PostgreSQL database, in
one transaction: a copy that fails leaves the target as it was. Stop the bot first (whatever it
writes after the copy began is not copied), then start it with DURAK_DB set to the address and
run `python -m tg_durak check --db postgresql://...` on it.

Exit codes: 0 copied; 2 nothing copied (the file cannot be read, the server refuses, the target
already holds tables, the file's schema is older than this bot's).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`python -m tg_durak copy-db`'s arguments (tg_durak/__main__.py builds the command line)."""
    parser.add_argument("source", metavar="SQLITE_PATH", help="the bot's SQLite file")
    parser.add_argument("target", metavar="POSTGRESQL_URL",
                        help="postgresql://user@host/database: an empty database")


def run(args: argparse.Namespace) -> int:
    """Copy args.source into args.target: 0, or 2 with one line on stderr saying why not."""
    from tg_durak.config import passwords_in
    from tg_durak.ops.logs import hide
    from tg_durak.storage import is_postgres, redacted, refusals
    from tg_durak.storage.copy import CopyRefused, copy_database

    target = redacted(args.target)
    if not is_postgres(args.target):
        return _refused(f"{target}: not a postgresql:// (or postgres://) address")
    if not Path(args.source).is_file():
        return _refused(f"{args.source}: no such SQLite file")
    try:
        copied = asyncio.run(copy_database(args.source, args.target))
    except CopyRefused as exc:
        return _refused(f"{target}: {hide(str(exc), passwords_in(args.target))}")
    except refusals(args.target) as exc:
        # The driver's own text may quote the address, password and all.
        return _refused(f"copying {args.source} to {target}:"
                        f" {hide(str(exc), passwords_in(args.target))}")
    rows = ", ".join(f"{table} {count}" for table, count in copied.items())
    print(f"copied {args.source} to {target}: {rows}")
    return 0


def _refused(text: str) -> int:
    print(f"tg-durak: {text}", file=sys.stderr)
    return 2
