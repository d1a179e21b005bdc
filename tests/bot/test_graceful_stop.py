"""SIGTERM, as an operator or a supervisor sends it: the bot stops in order. Taps it took finish
and are answered, the last screens go out, the computer players' workers leave, and the database
is closed cleanly (no write-ahead log left to recover, nothing for `check` to report); the next
start finds nothing to repair and the taps that waited in Telegram are played then."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sqlite3
from pathlib import Path

import pytest

from tests.bot.conftest import ALICE, game_message, started_bot
from tests.bot.crowd import TEXTS
from tests.bot.faults import exit_code, problems, quick_game, shown_version
from tests.bot.test_store_failures import current_move, stored_version
from tests.processes import START_TIMEOUT, children, running
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram
from tg_durak.play.options import PlaySettings
from tg_durak.render.callbacks import Move
from tg_durak.storage import Store
from tg_durak.telegram.callbacks import MoveCallback, record_of
from tg_durak.telegram.handlers.game import PRESSED


def taps_left_unconfirmed(tg: FakeTelegram) -> set[str]:
    """Callback queries whose update Telegram still offers (no getUpdates confirmed them)."""
    return {u["callback_query"]["id"] for u in tg.pending_updates if "callback_query" in u}


def unanswered(tg: FakeTelegram, user_id: int) -> set[str]:
    return {q.id for q in tg.state.callbacks.values()
            if q.user_id == user_id and q.answer is None}


def clean_files(db_path: str) -> None:
    """Closed cleanly: SQLite folded its write-ahead log into the file and removed it."""
    assert not Path(db_path + "-wal").exists(), "a write-ahead log is left to recover"
    assert not Path(db_path + "-shm").exists()
    with sqlite3.connect(db_path) as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]


async def burst(tg: FakeTelegram, user_id: int, count: int) -> list[asyncio.Task]:
    """`count` taps on the buttons of one screen at once, not waiting for their answers."""
    message = game_message(tg, user_id)
    buttons = [b for row in message.buttons for b in row if b.callback_data.startswith("m:")]
    # Some are answered only by the next bot: its start is part of their wait.
    taps = [asyncio.create_task(tg.press(user_id, message, buttons[i % len(buttons)],
                                         timeout=START_TIMEOUT + 60)) for i in range(count)]
    await asyncio.sleep(0)   # each is a callback query in Telegram now
    return taps


async def test_sigterm_finishes_taps_flushes_and_closes_the_database(tg: FakeTelegram,
                                                                    db_path: str) -> None:
    proc = await started_bot(tg, db_path)
    try:
        await quick_game(tg, ALICE)
        workers = await tg.wait_for(lambda: children(proc.pid), timeout=30,
                                    what="a computer player's worker process")
        taps = await burst(tg, ALICE, 4)
        await tg.wait_for(lambda: any(c.method == "answerCallbackQuery"
                                      for c in tg.calls[-10:]), timeout=30)
        proc.send_signal(signal.SIGTERM)
        assert await exit_code(proc) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    out = proc.stdout.read().decode()
    assert "Traceback" not in out and "ERROR" not in out, out
    assert not any(running(pid) for pid in workers), "a worker outlived the bot"
    clean_files(db_path)
    assert await problems(db_path) == []
    # Every tap the bot took (its update confirmed) was answered; the rest wait in Telegram.
    assert unanswered(tg, ALICE) <= taps_left_unconfirmed(tg)
    store = await Store.open(db_path)
    try:
        table = await store.tables.for_user(ALICE)
    finally:
        await store.close()
    assert shown_version(game_message(tg, ALICE)) == table.version, \
        f"the last screen went out\n{out}"

    second = await started_bot(tg, db_path)
    try:
        await asyncio.gather(*taps)   # the taps that waited are played now: none is lost
        assert not unanswered(tg, ALICE)
        edits = game_message(tg, ALICE).edit_count
        await tg.wait_for(lambda: game_message(tg, ALICE).edit_count > edits, timeout=30)
        second.send_signal(signal.SIGTERM)
        assert await exit_code(second) == 0
    finally:
        if second.poll() is None:
            second.kill()
    out = second.stdout.read().decode()
    assert "Traceback" not in out and "cannot be resumed" not in out, out
    clean_files(db_path)


async def test_sigterm_while_telegram_does_not_answer_still_stops_cleanly(
        tg: FakeTelegram, db_path: str) -> None:
    proc = await started_bot(tg, db_path)
    try:
        message = await quick_game(tg, ALICE)
        await tg.network_down(hang=True)   # requests are sent and never answered
        taps = await burst(tg, ALICE, 2)
        await asyncio.sleep(1)   # the bot's edits and polls hang meanwhile
        proc.send_signal(signal.SIGTERM)
        assert await exit_code(proc) == 0, "every step of the stop gives up in time"
    finally:
        if proc.poll() is None:
            proc.kill()
        await tg.network_up()
    out = proc.stdout.read().decode()
    assert "Traceback" not in out, out
    clean_files(db_path)
    assert await problems(db_path) == []

    second = await started_bot(tg, db_path)
    try:
        await asyncio.gather(*taps)
        assert not unanswered(tg, ALICE), "the taps sent during the outage were played after"
        assert game_message(tg, ALICE).message_id == message.message_id
        second.send_signal(signal.SIGTERM)
        assert await exit_code(second) == 0
    finally:
        if second.poll() is None:
            second.kill()
    clean_files(db_path)


async def _hard_computers_for(db_path: str, user_id: int) -> None:
    """The person's next private game seats five `hard` computers: one searches at any time."""
    store = await Store.open(db_path)
    try:
        await store.users.ensure(user_id, "Alice")
        await store.users.set_settings(user_id, PlaySettings(bots=5, level="hard").to_dict())
    finally:
        await store.close()


async def test_a_sigterm_while_a_computer_thinks_is_quiet(tg: FakeTelegram, db_path: str) -> None:
    """The stop cancels a decision a worker is making: no traceback of the pool's, exit 0."""
    await _hard_computers_for(db_path, ALICE)
    proc = await started_bot(tg, db_path, DURAK_TIME_SCALE="0.02")
    try:
        await quick_game(tg, ALICE)
        workers = await tg.wait_for(lambda: children(proc.pid), timeout=30,
                                    what="a computer player's worker process")
        await asyncio.sleep(0.5)   # the computers play among themselves: a search is under way
        # As systemd stops a service (every process of its control group): the workers too.
        for pid in [proc.pid, *workers]:
            os.kill(pid, signal.SIGTERM)
        assert await exit_code(proc) == 0
        said = proc.stdout.read().decode()
        assert "Traceback" not in said and "InvalidStateError" not in said, said
    finally:
        if running(proc):
            proc.kill()
            proc.wait()


async def test_a_tap_the_stop_cancels_after_its_change_went_to_the_store_is_shown(
        tg: FakeTelegram, bot: BotApp, store: Store, db_path: str,
        caplog: pytest.LogCaptureFixture) -> None:
    """The stop cancels a tap still under way. A change already handed to the store is written
    all the same (with others: storage.group_commit), so the tap waits for it and its screen
    goes out with the stop's last screens: the chat never shows less than the table holds."""
    await quick_game(tg, ALICE)
    _, button = await current_move(tg, store, ALICE, TEXTS)
    version = await stored_version(store, ALICE)
    move = record_of(MoveCallback.unpack(button.callback_data), Move)
    # Another process holds the write lock, and the bot waits for it (not refusing the write).
    await bot.store.connection._db.execute("PRAGMA busy_timeout = 20000")
    other = sqlite3.connect(db_path, isolation_level=None, check_same_thread=False)
    await asyncio.to_thread(other.execute, "BEGIN IMMEDIATE")
    # Her tap as its handler makes it, at the table (the update's own writes, made before,
    # would wait for the lock first).
    tap = asyncio.create_task(bot.tables.moves.tap(ALICE, move.table, move.v,
                                                   PRESSED[move.verb](move)))
    try:
        await asyncio.sleep(0.5)   # her change waits in the store for the lock
        tap.cancel()   # as the stop's drain cancels what is still under way
        await asyncio.to_thread(other.execute, "ROLLBACK")
        with contextlib.suppress(asyncio.CancelledError):
            await tap
        await bot.stop()
    finally:
        other.close()
    table = await store.tables.for_user(ALICE)
    assert table is not None and table.version > version, \
        "her change was handed to the store before the stop"
    entries = (await store.tables.log(table.id))[version:]
    assert entries[0][:2] == ["act", 0] and not entries[0][-1], \
        f"the change is her tap's, not her clock's: {entries}"
    assert shown_version(game_message(tg, ALICE)) == table.version, \
        f"her tap's screen went out: stored {entries}\n{caplog.text}"
