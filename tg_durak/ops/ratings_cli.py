"""`python -m tg_durak ratings --rebuild`: recompute every stored rating from the results.

Uses the bot's database (DURAK_DB, or --db); safe while the bot runs: the rebuild is one
transaction, and a game finishing meanwhile rates from whatever stands before or after it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from dotenv import load_dotenv

from tg_durak.config import Settings
from tg_durak.play.ratings import rate
from tg_durak.play.records import Rebuilt
from tg_durak.storage import SchemaTooNew, Store


async def rebuild(db_path: str) -> Rebuilt:
    store = await Store.open(db_path, rate=rate)
    try:
        return await store.results.rebuild_ratings()
    finally:
        await store.close()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tg_durak ratings", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rebuild", action="store_true",
                        help="recompute every rating from the stored results")
    parser.add_argument("--db", help="SQLite file (default: DURAK_DB, else ./durak.sqlite3)")
    args = parser.parse_args(argv)
    if not args.rebuild:
        parser.print_help()
        return 2
    load_dotenv()
    db_path = args.db or os.environ.get("DURAK_DB", Settings.db_path)
    try:
        rebuilt = asyncio.run(rebuild(db_path))
    except SchemaTooNew as exc:
        print(f"tg-durak: {exc}", file=sys.stderr)
        return 2
    print(f"rated {rebuilt.people} people over {rebuilt.tables} tables in {db_path}")
    return 0
