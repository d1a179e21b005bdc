"""`python -m tg_durak copy-db SQLITE_PATH postgresql://...`: a bot's whole database moved over,
every table row for row, and `check` passes on the copy; a target that holds tables refused."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from engine import Variant
from tests.helpers.stored_games import START, played, sound_database
from tests.store.helpers import raw, table_names
from tg_durak.play.matching import QueueEntry, QuickGame, ReportReason
from tg_durak.play.ratings import rate
from tg_durak.storage import Store

ANN, BOB, CID = 7, 8, 2**40   # a Telegram id past 32 bits
TABLES = {"users", "tables", "seats", "messages", "actions", "results", "ratings",
          "rating_history", "handled_updates", "meta", "schema_migrations"}
# The operators' (issue 38).
TABLES |= {"bans", "operator_log", "visits", "broadcasts", "broadcast_recipients", "processes"}
# Quick games' (issue 39).
TABLES |= {"quick_queue", "quick_reports", "lobby_subscribers"}


async def a_bots_database(path: str) -> None:
    """Finished, running, lobby and cancelled tables, rated games, and the rest of what a bot
    keeps: people, messages, handled updates, meta."""
    await sound_database(path)
    store = await Store.open(path, rate=rate)
    try:
        for seed in (5, 6):
            await played(store, [ANN, CID], seed, chat=-100)
        for user, name in ((ANN, "Ann"), (CID, "Cid 'the 100%' ?")):
            await store.users.ensure(user, name)
        await store.users.set_language(CID, "uk")
        await store.users.set_reachable(CID, True)
        await store.messages.set(1, None, -100, 5)
        await store.messages.set(1, ANN, ANN, 6)
        for update_id in (10, 11, 12):
            await store.updates.claim(update_id)
        await store.meta.set("heartbeat", 1_700_000_123.25)
        ops = store.operators
        await ops.seen(CID, "cid", START)
        await ops.ban(ANN, CID, START)
        draft = await ops.draft(CID, "Hello, 'everyone' 100%", START)
        await ops.confirm(draft.id, CID, START - 1, START)
        await ops.beat("host:1:abc", "host", 1, START, START)
        quick = store.quick
        game = QuickGame(Variant.THROW_IN, 3, 36)
        await quick.join(QueueEntry(CID, game, "Cid", CID, 9, START, START + 30))
        await quick.report(ANN, CID, 1, ReportReason.LEFT)
        await quick.subscribe(-100, ANN, "Ann's 'group'")
    finally:
        await store.close()


def everything(db: str) -> dict[str, list[tuple]]:
    """Every row of every table, in one order whatever the database."""
    return {table: sorted(raw(db, f"SELECT * FROM {table}"), key=repr)
            for table in sorted(TABLES)}


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tg_durak", *args], capture_output=True,
                          text=True, timeout=120)


async def test_copy_db_copies_every_row_and_the_copy_checks_clean(tmp_path: Path,
                                                                  pg_url: str) -> None:
    source = str(tmp_path / "bot.sqlite3")
    await a_bots_database(source)
    assert table_names(source) - {"sqlite_sequence"} == TABLES, "the test covers every table"

    done = cli("copy-db", source, pg_url)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"copied {source} to {pg_url}: ")

    copied, original = everything(pg_url), everything(source)
    assert all(original[t] for t in TABLES), "every table has rows"
    assert copied == original
    done = cli("check", "--db", pg_url)
    assert (done.returncode, done.stdout) == (0, ""), done.stdout
    assert done.stderr.strip() == f"checked 6 tables in {pg_url}: no problems"

    # The bot goes on from the copy: new ids follow the old ones, ratings move from theirs.
    store = await Store.open(pg_url, rate=rate)
    try:
        before = (await store.results.ratings([ANN]))[ANN]
        new = await played(store, [ANN, BOB], 7, chat=-100)
        assert new == max(row[0] for row in original["tables"]) + 1
        assert (await store.results.ratings([ANN]))[ANN].games == before.games + 1
        assert (await store.users.get(CID)).language == "uk"
    finally:
        await store.close()


async def test_a_target_that_holds_tables_is_refused_and_left_alone(tmp_path: Path,
                                                                    pg_url: str) -> None:
    source = str(tmp_path / "bot.sqlite3")
    await a_bots_database(source)
    raw(pg_url, "CREATE TABLE mine (x INTEGER)")
    done = cli("copy-db", source, pg_url)
    assert done.returncode == 2
    assert "already holds tables (mine)" in done.stderr
    assert table_names(pg_url) == {"mine"}

    assert cli("copy-db", str(tmp_path / "none.sqlite3"), pg_url).returncode == 2
    assert "not a postgresql://" in cli("copy-db", source, source).stderr
