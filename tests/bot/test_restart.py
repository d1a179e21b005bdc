"""The bot process dies mid-game; a new process on the same database carries on (R10.4)."""

from __future__ import annotations

import asyncio
import signal
import subprocess

from tests.bot.conftest import ALICE, bot_process, game_message, is_over, play_to_end
from tg_durak.emulator import FakeTelegram
from tg_durak.store import Store


async def _stop(proc: subprocess.Popen, sig: int) -> None:
    proc.send_signal(sig)
    await asyncio.get_running_loop().run_in_executor(None, proc.wait, 20)


async def test_restart_mid_game_keeps_the_same_message(tg: FakeTelegram, db_path: str) -> None:
    first = bot_process(tg, db_path)
    try:
        await tg.send_text(ALICE, "/start")
        await tg.wait_for(lambda: tg.last_message(ALICE) is not None, timeout=30)
        await tg.press(ALICE, tg.last_message(ALICE), "▶ Play", timeout=30)
        await tg.wait_for(lambda: game_message(tg, ALICE) is not None, timeout=30)
        message = game_message(tg, ALICE)
        await tg.wait_for(lambda: game_message(tg, ALICE).edit_count >= 3, timeout=30)
    finally:
        await _stop(first, signal.SIGKILL)   # a crash, not a polite shutdown

    store = await Store.open(db_path)
    try:
        table = await store.table_for_user(ALICE)
        assert table is not None and table.status == "running"
        version_at_crash = table.version
    finally:
        await store.close()

    second = bot_process(tg, db_path)
    try:
        edits = game_message(tg, ALICE).edit_count
        await tg.wait_for(lambda: game_message(tg, ALICE).edit_count > edits, timeout=30)
        final = await play_to_end(tg, ALICE, seed=5)
        assert final.message_id == message.message_id, "the same message keeps updating"
        assert is_over(final)
    finally:
        await _stop(second, signal.SIGTERM)

    store = await Store.open(db_path)
    try:
        table = await store.get_table(table.id)
        assert table.status == "finished" and table.version > version_at_crash
        log = await store.log(table.id)
        assert any(e[0] == "postpone" for e in log), "downtime was given back (R10.4)"
    finally:
        await store.close()


async def test_missing_or_malformed_token_is_one_clear_line(tg: FakeTelegram,
                                                            db_path: str) -> None:
    for token, words in (("", "BOT_TOKEN is not set"), ("not-a-token", "BOT_TOKEN is malformed")):
        proc = bot_process(tg, db_path, BOT_TOKEN=token)
        out, _ = proc.communicate(timeout=30)
        text = out.decode()
        assert proc.returncode == 2
        assert words in text and "Traceback" not in text and len(text.strip().splitlines()) == 1


async def test_a_database_from_a_newer_bot_is_refused_clearly(tg: FakeTelegram,
                                                              db_path: str) -> None:
    import sqlite3

    store = await Store.open(db_path)
    newest = await store.schema_version()
    await store.close()
    with sqlite3.connect(db_path) as db:   # as a newer bot would have left it
        db.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, 0)",
                   (newest + 1, "9999_future.sql"))
    proc = bot_process(tg, db_path)
    out, _ = proc.communicate(timeout=60)
    text = out.decode()
    assert proc.returncode == 2, text
    assert "newer" in text and "Traceback" not in text and len(text.strip().splitlines()) == 1


async def test_a_damaged_game_row_is_skipped_and_explained(tg: FakeTelegram,
                                                           db_path: str) -> None:
    import sqlite3

    from tests.bot.conftest import settings_for
    from tg_durak.app import BotApp

    app = BotApp(settings_for(tg, db_path))
    await app.start()
    try:
        await tg.send_text(ALICE, "/start")
        await tg.wait_for(lambda: tg.last_message(ALICE) is not None)
        await tg.press(ALICE, tg.last_message(ALICE), "▶ Play")
        await tg.wait_for(lambda: game_message(tg, ALICE) is not None)
        old = game_message(tg, ALICE)
    finally:
        await app.stop()
    with sqlite3.connect(db_path) as db:
        db.execute("UPDATE tables SET snapshot = '{\"format\": 1, \"state\": [' ")

    app = BotApp(settings_for(tg, db_path))
    await app.start()
    try:
        button = next(b for row in old.buttons for b in row if b.callback_data.startswith("m:"))
        answer = await tg.press(ALICE, old, button)
        assert answer.text == "This game's record is damaged and cannot be played."
        await tg.send_text(ALICE, "/start")
        await tg.wait_for(lambda: tg.last_message(ALICE).message_id > old.message_id)
        await tg.press(ALICE, tg.last_message(ALICE), "▶ Play")
        await tg.wait_for(lambda: game_message(tg, ALICE).message_id > old.message_id)
    finally:
        await app.stop()
