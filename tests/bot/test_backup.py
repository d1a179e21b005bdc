"""`python -m tg_durak backup PATH` while a game runs, then a bot started on the copy: the game
resumes from the moment of the backup, on the same message, and is played to its end."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path

from tests.bot.conftest import ALICE, game_message, is_over, play_to_end, started_bot
from tests.bot.faults import exit_code, problems, quick_game, shown_version
from tests.processes import START_TIMEOUT
from tg_durak.emulator import FakeTelegram
from tg_durak.storage import Store


async def table_version(db_path: str) -> tuple[int, int]:
    store = await Store.open(db_path, readonly=True)
    try:
        table = await store.tables.for_user(ALICE)
        return table.id, table.version
    finally:
        await store.close()


async def test_a_backup_taken_while_the_bot_runs_restores_the_running_game(
        tg: FakeTelegram, db_path: str, tmp_path: Path) -> None:
    copy = str(tmp_path / "backup.sqlite3")
    bot = await started_bot(tg, db_path)
    try:
        message = await quick_game(tg, ALICE)
        await tg.wait_for(lambda: shown_version(game_message(tg, ALICE)) >= 2, timeout=30)
        done = await asyncio.to_thread(
            subprocess.run, [sys.executable, "-m", "tg_durak", "backup", copy, "--db", db_path],
            capture_output=True, text=True, timeout=START_TIMEOUT)
        assert done.returncode == 0, done.stderr
        backed_up = await table_version(copy)
        # The game goes on after the backup; then the machine is lost.
        await tg.wait_for(lambda: shown_version(game_message(tg, ALICE)) > backed_up[1],
                          timeout=30)
    finally:
        bot.send_signal(signal.SIGKILL)
        await exit_code(bot)
    assert await problems(copy) == []

    edits = game_message(tg, ALICE).edit_count
    restored = await started_bot(tg, copy)   # the operator starts the bot on the copy
    try:
        await tg.wait_for(lambda: game_message(tg, ALICE).edit_count > edits, timeout=30)
        final = await play_to_end(tg, ALICE, seed=7)
        assert is_over(final) and final.message_id == message.message_id
        restored.send_signal(signal.SIGTERM)
        assert await exit_code(restored) == 0
    finally:
        if restored.poll() is None:
            restored.kill()
    table_id, version = backed_up
    store = await Store.open(copy, readonly=True)
    try:
        table = await store.tables.get(table_id)
        log = await store.tables.log(table_id)
    finally:
        await store.close()
    assert table.status == "finished" and table.version > version
    assert any(entry[0] == "postpone" for entry in log[version:]), \
        "the time since the backup was given back"
    assert await problems(copy) == []
