"""Telegram fails the bot: 5xx and 429 on a tap's answer, timeouts, the network down for a
while, a person who blocks the bot, a game message gone, a second instance polling. The games go
on and nothing is lost (the bot over HTTP against the emulator)."""

from __future__ import annotations

import asyncio
import logging
import socket
from dataclasses import replace

import pytest

from tests.bot.conftest import (
    ALICE,
    game_message,
    is_over,
    play_to_end,
    remembered,
    settings_for,
    started_bot,
)
from tests.bot.faults import exit_code, last_words, quick_game
from tg_durak.__main__ import SETTING_EXIT, START_EXIT
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram
from tg_durak.emulator.api import QUERY_TOO_OLD
from tg_durak.storage import Store


def answers_of(tg: FakeTelegram, query_id: str) -> list:
    return [c for c in tg.calls_to("answerCallbackQuery")
            if c.params.get("callback_query_id") == query_id]


def a_button(message):
    return next(b for row in message.buttons for b in row if b.callback_data.startswith("m:"))


async def test_a_taps_answer_is_retried_after_5xx_and_429(tg: FakeTelegram, bot: BotApp
                                                           ) -> None:
    message = await quick_game(tg, ALICE)
    tg.fail_next("answerCallbackQuery", 2, error_code=502)
    answer = await tg.press(ALICE, message, a_button(message), timeout=10)
    query_id = tg.calls_to("answerCallbackQuery")[-1].params["callback_query_id"]
    assert [c.error_code for c in answers_of(tg, query_id)] == [502, 502, None]
    assert answer is not None

    message = game_message(tg, ALICE)
    tg.fail_next("answerCallbackQuery", error_code=429, retry_after=1)
    await tg.press(ALICE, message, a_button(message), timeout=10)
    query_id = tg.calls_to("answerCallbackQuery")[-1].params["callback_query_id"]
    first, second = answers_of(tg, query_id)
    assert first.error_code == 429 and second.ok
    assert second.time - first.time >= 1, "it waited retry_after"


async def test_a_taps_answer_telegram_refuses_is_one_warning_and_the_move_stands(
        tg: FakeTelegram, bot: BotApp, store: Store, caplog: pytest.LogCaptureFixture) -> None:
    await quick_game(tg, ALICE)
    message, button = await tg.wait_for(lambda: a_move(tg), timeout=60)
    version = (await store.tables.for_user(ALICE)).version
    # As for a tap that waited in Telegram over its 15 s (a restart, a network outage).
    tg.fail_next("answerCallbackQuery", error_code=400, description=QUERY_TOO_OLD)
    caplog.set_level(logging.WARNING)
    tg.state.press(ALICE, message.chat_id, message.message_id, button.callback_data)

    def said() -> list[logging.LogRecord]:
        return [r for r in caplog.records if QUERY_TOO_OLD in r.getMessage()]

    for _ in range(600):
        if said():
            break
        await asyncio.sleep(0.1)
    assert [r.levelno for r in said()] == [logging.WARNING], "one line"
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert (await store.tables.for_user(ALICE)).version > version, "the move stands"


async def test_a_5xx_on_an_edit_is_retried_with_the_latest_screen(tg: FakeTelegram,
                                                                  bot: BotApp) -> None:
    await quick_game(tg, ALICE)
    tg.fail_next("editMessageText", 3, error_code=500)
    final = await play_to_end(tg, ALICE, seed=3)
    assert is_over(final)
    assert [c.error_code for c in tg.calls_to("editMessageText")[:3]] == [500] * 3


async def test_the_network_down_then_back_loses_no_tap(tg: FakeTelegram, db_path: str) -> None:
    # Requests time out after 1 s here (Telegram's default in the bot is 20 s).
    app = BotApp(replace(settings_for(tg, db_path), request_timeout=1.0))
    await app.start()
    store = await Store.open(db_path)
    try:
        for hang in (False, True):   # connections refused, then requests left unanswered
            if game_message(tg, ALICE) is None:
                await quick_game(tg, ALICE)
            await tg.wait_for(lambda: a_move(tg) is not None, timeout=30)
            message, button = a_move(tg)
            version = (await store.tables.for_user(ALICE)).version
            await tg.network_down(hang=hang)
            tap = asyncio.create_task(tg.press(ALICE, message, button, timeout=60))
            await asyncio.sleep(3)   # the outage lasts a while; the tap waits in Telegram
            assert not tap.done()
            await tg.network_up()
            answer = await tap
            assert not answer.show_alert, answer.text
            assert (await store.tables.for_user(ALICE)).version > version, "the tap was applied"
        final = await play_to_end(tg, ALICE, seed=4)
        assert is_over(final) and final.message_id == message.message_id
    finally:
        await store.close()
        await app.stop()


def a_move(tg: FakeTelegram):
    """Alice's game message and a card she may play now (marked •), if any."""
    message = game_message(tg, ALICE)
    cards = [b for row in message.buttons for b in row if b.text.startswith("•")]
    return (message, cards[0]) if cards else None


@pytest.mark.parametrize("told", [True, False], ids=["told", "403"])
async def test_a_person_who_blocks_the_bot_is_played_for_to_the_end(
        tg: FakeTelegram, bot: BotApp, store: Store, told: bool) -> None:
    await quick_game(tg, ALICE)
    table = await store.tables.for_user(ALICE)
    if told:
        tg.block_bot(ALICE)   # Telegram tells the bot (my_chat_member), and 403s from now on
    else:   # the bot learns it from the refusal of its next edit
        tg.fail_next("editMessageText", error_code=403,
                     description="Forbidden: bot was blocked by the user")

    async def finished() -> bool:
        return (await store.tables.get(table.id)).status == "finished"

    for _ in range(600):
        if await finished():
            break
        await asyncio.sleep(0.1)
    assert await finished(), "a computer played Alice's seat to the end"
    refused = [c for c in tg.calls if c.error_code == 403]
    assert all(c.params["chat_id"] == ALICE for c in refused)
    assert len(refused) <= 1, "the bot stops writing to whoever blocked it"
    (user_id, outcome, _), = (await store.tables.whole(table.id)).results
    assert user_id == ALICE and outcome in ("durak", "safe", "draw")


async def test_a_game_message_that_cannot_be_edited_is_sent_afresh(
        tg: FakeTelegram, bot: BotApp, store: Store) -> None:
    first = await quick_game(tg, ALICE)
    tg.fail_next("editMessageText", error_code=400,
                 description="Bad Request: message to edit not found")
    await tg.wait_for(lambda: game_message(tg, ALICE).message_id != first.message_id,
                      timeout=30)
    fresh = game_message(tg, ALICE)
    table = await store.tables.for_user(ALICE)
    wanted = {(ALICE, fresh.message_id)}
    assert await remembered(store, table.id, wanted) == wanted, "the new message is remembered"
    final = await play_to_end(tg, ALICE, seed=6)
    assert final.message_id == fresh.message_id and is_over(final)


async def test_a_second_instance_polling_makes_the_bot_stop_with_one_clear_line(
        tg: FakeTelegram, db_path: str) -> None:
    proc = await started_bot(tg, db_path)
    try:
        await tg.wait_for(lambda: tg.polling, timeout=60)
        other = tg.create_bot()
        try:
            exited = asyncio.ensure_future(exit_code(proc))
            while not exited.done():   # the other instance polls on, undisturbed
                await other.get_updates(timeout=1)
            for _ in range(3):
                await other.get_updates(timeout=1)
        finally:
            await other.session.close()
        assert await exited == 3
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    line = last_words(proc)
    assert "another instance of this bot" in line and "terminated by other getUpdates" in line


async def test_telegram_out_of_reach_at_start_is_one_clear_line(tg: FakeTelegram,
                                                                db_path: str) -> None:
    with socket.socket() as nothing:   # a port bound, never listening: connections refused
        nothing.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{nothing.getsockname()[1]}"
        proc = await started_bot(tg, db_path, TELEGRAM_API_URL=url)
        try:
            assert await exit_code(proc) == START_EXIT
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    line = last_words(proc)
    assert f"cannot reach Telegram at {url}" in line, line
    assert all(word in line for word in ("network", "TELEGRAM_API_URL", "BOT_TOKEN")), line
    assert len(tg.calls) == 0


@pytest.mark.parametrize("when", ["at start", "revoked while polling"])
async def test_a_token_telegram_refuses_is_one_clear_line(tg: FakeTelegram, db_path: str,
                                                          when: str) -> None:
    wrong = "123456:not-this-bots-token"
    proc = await started_bot(tg, db_path,
                             **({"BOT_TOKEN": wrong} if when == "at start" else {}))
    try:
        if when != "at start":
            await tg.wait_for(lambda: tg.polling, timeout=60)
            tg.token = wrong   # every request refused (401) from now on, the long poll's next
        assert await exit_code(proc) == SETTING_EXIT
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    line = last_words(proc)
    assert "refused the token" in line and "Unauthorized" in line and "BOT_TOKEN" in line, line
    polls = [c for c in tg.calls_to("getUpdates") if c.error_code == 401]
    assert len(polls) == (0 if when == "at start" else 1), "a refused token is not polled again"
    if when == "at start":
        assert [c.error_code for c in tg.calls] == [401], "a refused token is not tried again"
