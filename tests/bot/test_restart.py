"""The bot process dies mid-game; a new process on the same database carries on (R10.4)."""

from __future__ import annotations

import asyncio
import random
import signal
import subprocess
from collections import Counter

from tests.bot.conftest import (
    ALICE,
    bot_process,
    choose_button,
    game_message,
    is_over,
    play_to_end,
    started_bot,
)
from tests.bot.faults import exit_code, problems, quick_game
from tests.bot.groups import add_computer, join, lobby_message, open_lobby, wait_started
from tests.processes import START_TIMEOUT
from tg_durak.emulator import FakeTelegram
from tg_durak.storage import Store


async def _stop(proc: subprocess.Popen, sig: int) -> None:
    proc.send_signal(sig)
    await asyncio.get_running_loop().run_in_executor(None, proc.wait, 20)


async def test_restart_mid_game_keeps_the_same_message(tg: FakeTelegram, db_path: str) -> None:
    first = await started_bot(tg, db_path)
    try:
        await tg.send_text(ALICE, "/start")
        await tg.wait_for(lambda: tg.last_message(ALICE) is not None, timeout=60)
        await tg.press(ALICE, tg.last_message(ALICE), "▶ Play", timeout=60)
        await tg.wait_for(lambda: game_message(tg, ALICE) is not None, timeout=60)
        message = game_message(tg, ALICE)
        await tg.wait_for(lambda: game_message(tg, ALICE).edit_count >= 3, timeout=60)
    finally:
        await _stop(first, signal.SIGKILL)   # a crash, not a polite shutdown

    store = await Store.open(db_path)
    try:
        table = await store.tables.for_user(ALICE)
        assert table is not None and table.status == "running"
        version_at_crash = table.version
    finally:
        await store.close()

    edits = game_message(tg, ALICE).edit_count
    second = await started_bot(tg, db_path)
    try:
        await tg.wait_for(lambda: game_message(tg, ALICE).edit_count > edits, timeout=60)
        final = await play_to_end(tg, ALICE, seed=5)
        assert final.message_id == message.message_id, "the same message keeps updating"
        assert is_over(final)
    finally:
        await _stop(second, signal.SIGTERM)

    store = await Store.open(db_path)
    try:
        table = await store.tables.get(table.id)
        assert table.status == "finished" and table.version > version_at_crash
        log = await store.tables.log(table.id)
        assert any(e[0] == "postpone" for e in log), "downtime was given back (R10.4)"
    finally:
        await store.close()


PRIVATE = [701, 702, 703, 704, 705, 706]   # one private table each, against a computer
GROUPS = {-1001000000001: [711, 712, 713], -1001000000002: [721, 722, 723]}   # + a computer
TAPS_BEFORE_THE_KILL = 40


async def set_up_tables(tg: FakeTelegram) -> None:
    for user_id in [*PRIVATE, *(p for people in GROUPS.values() for p in people)]:
        tg.add_user(user_id, f"P{user_id}", language_code="en")
    for user_id in PRIVATE:
        await quick_game(tg, user_id)
    for chat_id, people in GROUPS.items():
        host, *others = people
        tg.add_group(chat_id, f"Club {chat_id}", members=people, creator=host)
        for person in people:
            await tg.send_text(person, "/start")
        lobby = await open_lobby(tg, host, chat_id)
        for person in others:
            await join(tg, person, lobby, f"P{person}")
        await add_computer(tg, host, lobby)   # the fourth seat: the table starts by itself
        await wait_started(tg, lobby, people)


async def keep_tapping(tg: FakeTelegram, user_id: int, taps: list[int]) -> None:
    """A person tapping whatever he may on his game message, at a brisk human pace."""
    rng = random.Random(user_id)
    texts = {"pass": "Pass", "take": "Take"}
    while True:
        message = game_message(tg, user_id)
        button = None if is_over(message) else choose_button(message, rng, texts)
        if button is None:
            await tg.wait_for(lambda m=message: game_message(tg, user_id).edit_count
                              != m.edit_count, timeout=60)
            continue
        taps.append(user_id)
        await tg.press(user_id, message, button, timeout=60)
        await asyncio.sleep(0.25)   # slower than the throttle lets through


def answers_per_query(tg: FakeTelegram) -> Counter:
    return Counter(c.params["callback_query_id"] for c in tg.calls_to("answerCallbackQuery"))


async def test_a_kill_in_a_burst_of_taps_loses_no_table_and_doubles_no_tap(
        tg: FakeTelegram, db_path: str) -> None:
    people = [*PRIVATE, *(p for ps in GROUPS.values() for p in ps)]
    first = await started_bot(tg, db_path)
    try:
        await set_up_tables(tg)
        taps: list[int] = []
        tappers = [asyncio.create_task(keep_tapping(tg, p, taps)) for p in people]
        await tg.wait_for(lambda: len(taps) >= TAPS_BEFORE_THE_KILL, timeout=120)
        first.send_signal(signal.SIGKILL)   # in the middle of it all
        await exit_code(first)
    finally:
        if first.poll() is None:
            first.kill()
    for tapper in tappers:
        tapper.cancel()
    await asyncio.gather(*tappers, return_exceptions=True)
    # Telegram offers the last taps again, as when the confirming getUpdates never arrived.
    offered_again = {u["callback_query"]["id"] for u in tg.offer_again(20)
                     if "callback_query" in u}
    assert offered_again

    store = await Store.open(db_path, readonly=True)
    try:
        at_kill = {tid: (await store.tables.whole(tid)).row for tid in await store.tables.ids()}
    finally:
        await store.close()
    running = {tid for tid, row in at_kill.items() if row.status == "running"}
    assert len(at_kill) == len(PRIVATE) + len(GROUPS) and running
    messages = {p: game_message(tg, p) for p in people}
    group_messages = {chat_id: lobby_message(tg, chat_id) for chat_id in GROUPS}
    # Taps while the bot is down wait in Telegram.
    waiting = []
    for user_id in PRIVATE:
        message = messages[user_id]
        button = None if is_over(message) else choose_button(
            message, random.Random(1), {"pass": "Pass", "take": "Take"})
        if button is not None:
            # Answered once the next bot is up: its start is part of the wait.
            waiting.append(asyncio.create_task(
                tg.press(user_id, message, button, timeout=START_TIMEOUT + 120)))
    await asyncio.sleep(0)

    second = await started_bot(tg, db_path)
    try:
        await asyncio.gather(*waiting)   # nothing lost: each is answered after the restart
        # No tap applied twice: the updates offered again came before these and were skipped;
        # no query was answered twice.
        twice = {q: n for q, n in answers_per_query(tg).items() if n > 1}
        assert twice == {}
        # Every timer runs again: each table moves on with nobody tapping (a computer moves, a
        # turn runs out), and every message is edited where it was.
        store = await Store.open(db_path, readonly=True)
        try:
            for _ in range(600):
                now = {tid: (await store.tables.whole(tid)).row for tid in running}
                if all(row.version > at_kill[tid].version for tid, row in now.items()):
                    break
                await asyncio.sleep(0.1)
            assert all(row.version > at_kill[tid].version for tid, row in now.items()), \
                "a table's timer did not run again"
            assert set(await store.tables.ids()) == set(at_kill), "no table lost, none added"
            assert await problems(db_path) == [], "every snapshot is the replay of its log"
        finally:
            await store.close()
        for user_id, before in messages.items():
            await tg.wait_for(lambda u=user_id, b=before: game_message(tg, u).edit_count
                              > b.edit_count or is_over(game_message(tg, u)), timeout=60,
                              what=f"an edit of {user_id}'s message: {before.text!r}")
            assert game_message(tg, user_id).message_id == before.message_id
        for chat_id, before in group_messages.items():
            await tg.wait_for(lambda c=chat_id, b=before: tg.message(c, b.message_id).edit_count
                              > b.edit_count, timeout=60)
            assert lobby_message(tg, chat_id).message_id == before.message_id
        assert all(n == 1 for n in answers_per_query(tg).values())
    finally:
        second.send_signal(signal.SIGTERM)
        assert await exit_code(second) == 0
    out = second.stdout.read().decode()
    assert "Traceback" not in out and "cannot be resumed" not in out, out


async def test_missing_or_malformed_token_is_one_clear_line(tg: FakeTelegram,
                                                            db_path: str) -> None:
    for token, words in (("", "BOT_TOKEN is not set"), ("not-a-token", "BOT_TOKEN is malformed")):
        proc = bot_process(tg, db_path, BOT_TOKEN=token)
        out, _ = proc.communicate(timeout=START_TIMEOUT)
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
    out, _ = proc.communicate(timeout=START_TIMEOUT)
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
