"""`python -m tg_durak check` and `backup`: every kind of damage is reported on one line, a sound
database passes, nothing is written; the backup is a complete, consistent copy."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.stored_games import ANN, BOB, sound_database
from tests.store.helpers import SQLITE_ONLY, raw
from tg_durak.ops.check import check
from tg_durak.storage import Store, StoreUnavailable

# The damage is done to the file behind the store's back (the check on PostgreSQL: tests/store).
pytestmark = SQLITE_ONLY



async def problems(db_path: str) -> list[str]:
    store = await Store.open(db_path, readonly=True)
    try:
        return [str(p) for p in (await check(store)).problems]
    finally:
        await store.close()


def digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


async def test_a_sound_database_has_no_problems_and_is_left_as_it_was(db_path: str) -> None:
    await sound_database(db_path)
    before = digest(db_path)
    store = await Store.open(db_path, readonly=True)
    try:
        report = await check(store)
        with pytest.raises(StoreUnavailable, match="readonly"):
            await store.meta.set("x", 1)
    finally:
        await store.close()
    assert (report.tables, report.problems) == (4, [])
    assert digest(db_path) == before


def damage_snapshot(db_path: str, table_id: int, change) -> None:
    (text,) = raw(db_path, "SELECT snapshot FROM tables WHERE id = ?", (table_id,))[0]
    snapshot = json.loads(text)
    change(snapshot["state"])
    raw(db_path, "UPDATE tables SET snapshot = ? WHERE id = ?", (json.dumps(snapshot), table_id))


def lose_a_card(state: dict) -> None:
    hand = next(h for h in state["hands"] if h)
    hand.pop()


def move_a_card_to_the_discard(state: dict) -> None:
    hand = next(h for h in state["hands"] if h)
    state["discard"].append(hand.pop())


async def test_each_kind_of_damage_is_one_line(db_path: str) -> None:
    ids = await sound_database(db_path)
    running, finished, lobby = ids["running"], ids["finished"], ids["lobby"]
    damage_snapshot(db_path, running, move_a_card_to_the_discard)
    assert await problems(db_path) == [
        f"table {running}: the snapshot is not the replay of its log (differs in discard, "
        "hands)"]

    damage_snapshot(db_path, running, lose_a_card)
    found = await problems(db_path)
    assert f"table {running}: 1 card(s) of the deck are nowhere" in found

    raw(db_path, "UPDATE tables SET version = version + 1 WHERE id = ?", (finished,))
    raw(db_path, "UPDATE results SET outcome = 'durak' WHERE table_id = ?", (finished,))
    raw(db_path, "INSERT INTO results (table_id, user_id, outcome, place)"
                 " VALUES (?, ?, 'safe', 1)", (running, BOB))
    raw(db_path, "INSERT INTO seats (table_id, seat, user_id, name) VALUES (?, 2, ?, 'Bob')",
        (lobby, BOB))
    found = await problems(db_path)
    (finished_entries,) = raw(db_path, "SELECT COUNT(*) FROM actions WHERE table_id = ?",
                              (finished,))[0]
    assert f"table {finished}: version {finished_entries + 1} but {finished_entries} log " \
           "entries" in found
    assert any(p.startswith(f"table {finished}: user {ANN} is durak but the durak is seat")
               for p in found)
    assert f"table {running}: a running table has results" in found
    assert f"user {BOB} is seated at open tables {running}, {lobby}" in found
    assert all("\n" not in p for p in found)


async def test_a_log_that_does_not_replay_and_unreadable_rows(db_path: str) -> None:
    ids = await sound_database(db_path)
    running = ids["running"]
    raw(db_path, "DROP TRIGGER actions_no_update")
    raw(db_path, "UPDATE actions SET entry = '[\"act\", 1, \"take\", null, null, 0, false]'"
                 " WHERE table_id = ? AND seq = 1", (running,))
    [line] = await problems(db_path)
    assert line.startswith(f"table {running}: its log does not replay: IllegalMove")

    raw(db_path, "UPDATE tables SET snapshot = '{\"format\": 1, \"state\": [' WHERE id = ?",
        (running,))
    [line] = await problems(db_path)
    assert line.startswith(f"table {running}: unreadable: snapshot of table {running} is not "
                           "valid JSON")


async def test_a_database_behind_the_bots_schema_is_reported_not_migrated(db_path: str
                                                                          ) -> None:
    await sound_database(db_path)
    raw(db_path, "DELETE FROM schema_migrations WHERE version = (SELECT MAX(version) FROM"
                 " schema_migrations)")
    before = digest(db_path)
    assert await problems(db_path) == [
        "the schema lacks 1 migration(s) of this bot: start the bot once to upgrade it"]
    assert digest(db_path) == before


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tg_durak", *args], capture_output=True,
                          text=True, timeout=60)


async def test_the_command_line_exit_codes_and_lines(db_path: str, tmp_path: Path) -> None:
    ids = await sound_database(db_path)
    done = cli("check", "--db", db_path)
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr.strip() == f"checked 4 tables in {db_path}: no problems"

    copy = str(tmp_path / "copy.sqlite3")
    done = cli("backup", copy, "--db", db_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"backed up {db_path} (4 tables) to {copy}"
    assert not Path(copy + ".partial").exists()
    assert raw(copy, "PRAGMA integrity_check") == [("ok",)]
    for table in ("tables", "seats", "actions", "results", "schema_migrations"):
        assert raw(copy, f"SELECT * FROM {table}") == raw(db_path, f"SELECT * FROM {table}")

    damage_snapshot(db_path, ids["running"], lose_a_card)
    done = cli("check", "--db", db_path)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines and all(line.startswith(f"table {ids['running']}: ") for line in lines)
    assert done.stderr.strip().endswith(f"{len(lines)} problem(s)")

    assert cli("check", "--db", str(tmp_path / "none.sqlite3")).returncode == 2
    refused = cli("backup", db_path, "--db", db_path)
    assert refused.returncode == 2 and "cannot replace the database itself" in refused.stderr
