"""`python -m tg_durak ratings --rebuild`: recompute every stored rating from the results.

Uses the bot's database (DURAK_DB, or --db); safe while the bot runs: the rebuild is one
transaction, and a game finishing meanwhile rates from whatever stands before or after it.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from tg_durak.ops.check_cli import add_db_argument, db_path_of, on_database

# The database's modules are imported when the command runs: `python -m tg_durak --help`
# builds this command's options and should answer at once.
if TYPE_CHECKING:
    from tg_durak.play.rows import Rebuilt


async def rebuild(db_path: str) -> Rebuilt:
    from tg_durak.play.ratings import rate
    from tg_durak.storage import Store

    store = await Store.open(db_path, rate=rate)
    try:
        return await store.results.rebuild_ratings()
    finally:
        await store.close()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`python -m tg_durak ratings`'s options (tg_durak/__main__.py builds the command line)."""
    parser.add_argument("--rebuild", action="store_true",
                        help="recompute every rating from the stored results")
    add_db_argument(parser)
    # Without --rebuild there is nothing to do: the command shows its own help.
    parser.set_defaults(print_help=parser.print_help)


def run(args: argparse.Namespace) -> int:
    """Rebuild the ratings: 0; 2 without --rebuild, or with a database too new for this bot."""
    if not args.rebuild:
        args.print_help()
        return 2
    from tg_durak.storage import redacted

    db_path = db_path_of(args)
    rebuilt = on_database(db_path, rebuild(db_path))
    if rebuilt is None:
        return 2
    print(f"rated {rebuilt.people} people over {rebuilt.tables} tables in {redacted(db_path)}")
    return 0
