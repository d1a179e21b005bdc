"""`python -m tg_durak check` and `python -m tg_durak backup PATH`: an operator's tools, safe
while the bot runs.

check   reads every table (read-only) and prints each problem on one line; exit code 0 when
        all is well, 1 when problems were found, 2 when the database cannot be read at all.
backup  copies the database to PATH with SQLite's online backup (a consistent copy, even while
        the bot writes); start a bot on the copy to restore it.

Both use the bot's database (DURAK_DB, or --db).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import sys
from pathlib import Path

from dotenv import load_dotenv

from tg_durak.config import Settings
from tg_durak.ops.check import Report, check
from tg_durak.storage import SchemaTooNew, Store


async def _check(db_path: str) -> Report:
    store = await Store.open(db_path, readonly=True)
    try:
        return await check(store)
    finally:
        await store.close()


async def _backup(db_path: str, target: str) -> int:
    store = await Store.open(db_path, readonly=True)
    try:
        await store.backup(target)
        return len(await store.tables.ids())
    finally:
        await store.close()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m tg_durak", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    checking = commands.add_parser("check", help="verify every table; change nothing")
    backing = commands.add_parser("backup", help="copy the database to PATH, consistently")
    backing.add_argument("path", help="where the copy goes (replaced if it exists)")
    for sub in (checking, backing):
        sub.add_argument("--db", help="SQLite file (default: DURAK_DB, else ./durak.sqlite3)")
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    load_dotenv()
    db_path = args.db or os.environ.get("DURAK_DB", Settings.db_path)
    try:
        if args.command == "check":
            report = asyncio.run(_check(db_path))
        else:
            if Path(args.path).resolve() == Path(db_path).resolve():
                print("tg-durak: the backup cannot replace the database itself", file=sys.stderr)
                return 2
            tables = asyncio.run(_backup(db_path, args.path))
    except (SchemaTooNew, FileNotFoundError, sqlite3.Error) as exc:
        print(f"tg-durak: {db_path}: {exc}", file=sys.stderr)
        return 2
    if args.command == "backup":
        print(f"backed up {db_path} ({tables} tables) to {args.path}")
        return 0
    for problem in report.problems:
        print(problem)
    found = len(report.problems)
    # The count goes to stderr: stdout holds the problems alone, one a line, for scripts.
    print(f"checked {report.tables} tables in {db_path}: "
          + (f"{found} problem(s)" if found else "no problems"), file=sys.stderr)
    return 1 if found else 0
