"""Floods and oddities (issue 11, hostile input): a person hammering buttons, messages too long to
mean anything, updates the bot never asked for. Each is refused cheaply: a short answer or none,
and no table, store or screen work behind it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import Any

import pytest

from tests.bot.conftest import ALICE, BOB, game_message, settings_for
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram
from tg_durak.i18n.translate import translator
from tg_durak.telegram.throttle import BURST, Throttle, TokenBuckets

GROUP = -1001234567890
BOT = "durak_test_bot"
LANGUAGES = {ALICE: "en", 503: "ru", 504: "uk", 505: "pl"}


@pytest.fixture
async def bot(tg: FakeTelegram, db_path: str) -> AsyncIterator[BotApp]:
    """Real time: nobody's turn runs out while he hammers."""
    app = BotApp(replace(settings_for(tg, db_path), time_scale=1.0))
    await app.start()
    yield app
    await app.stop()


class FrozenBuckets(TokenBuckets):
    """The throttle's buckets on a clock moved by hand (a burst is a burst however slow the
    machine), counting what they refuse."""

    def __init__(self) -> None:
        super().__init__(clock=lambda: self.now)
        self.now = 0.0
        self.refused = 0

    def take(self, key: int) -> bool:
        allowed = super().take(key)
        self.refused += not allowed
        return allowed


def frozen_throttle(bot: BotApp) -> FrozenBuckets:
    buckets = FrozenBuckets()
    throttle = next(m for m in bot.dp.callback_query.outer_middleware
                    if isinstance(m, Throttle))
    throttle.buckets = buckets
    return buckets


async def until(done: Callable[[], bool], timeout: float = 10.0) -> None:
    """For what the emulator cannot see happen (an update the bot drops)."""
    async with asyncio.timeout(timeout):
        while not done():
            await asyncio.sleep(0.01)


def _errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


def _calls_since(tg: FakeTelegram, start: int) -> list[str]:
    return [c.method for c in tg.calls[start:] if c.method != "getUpdates"]


# ---- hammering -----------------------------------------------------------------------------

async def test_hammering_a_game_is_throttled_with_no_table_work(
        tg: FakeTelegram, bot: BotApp, monkeypatch: pytest.MonkeyPatch) -> None:
    await tg.send_text(ALICE, "/start")
    await tg.press(ALICE, await tg.wait_for(lambda: tg.last_message(ALICE)), "▶ Play")
    message = await tg.wait_for(lambda: game_message(tg, ALICE))
    cancel = message.buttons[0][0].callback_data.split(":")
    cancel[3:] = ["n", "-1", "-1"]   # Cancel: reaches the table, changes nothing there
    taps: list[int] = []
    tap = bot.tables.moves.tap

    async def counted(*args: Any) -> Any:
        taps.append(1)
        return await tap(*args)

    monkeypatch.setattr(bot.tables.moves, "tap", counted)
    clock = frozen_throttle(bot)
    start = len(tg.calls)
    answers = await asyncio.gather(*(tg.press(ALICE, message, ":".join(cancel).encode())
                                     for _ in range(30)))

    slow = translator("en")("tap.slow")
    assert [a.text for a in answers].count(slow) == 30 - BURST
    assert len(taps) == BURST, "a throttled tap reached the table"
    calls = _calls_since(tg, start)
    assert calls.count("answerCallbackQuery") == 30
    assert set(calls) <= {"answerCallbackQuery", "editMessageText"}, calls   # a computer's move
    assert all(c.params["chat_id"] == ALICE for c in tg.calls[start:]
               if c.method == "editMessageText")

    # Messages over the budget get no answer at all (one would spend the budget they flood).
    before, refused = len(tg.messages(ALICE)), clock.refused
    await tg.send_text(ALICE, "/help")
    await until(lambda: clock.refused > refused)
    clock.now += 1 / 5   # one tap's worth
    await tg.send_text(ALICE, "/rules")
    await tg.wait_for(lambda: "Throw-in rules" in [b.text for row in tg.last_message(
        ALICE).buttons for b in row])
    assert len(tg.messages(ALICE)) == before + 1, [m.text[:30] for m in tg.messages(ALICE)]
    clock.now += 10   # he waits: all is well again
    answer = await tg.press(ALICE, tg.message(ALICE, message.message_id),
                            ":".join(cancel).encode())
    assert answer.text != slow


async def test_the_throttles_answer_speaks_the_players_language(
        tg: FakeTelegram, bot: BotApp, caplog: pytest.LogCaptureFixture) -> None:
    for person, language in LANGUAGES.items():
        if person != ALICE:
            tg.add_user(person, f"P{person}", language_code=language)
        await tg.send_text(person, "/start")
    await tg.wait_for(lambda: all(tg.last_message(p) for p in LANGUAGES))
    frozen_throttle(bot)

    async def hammer(person: int) -> list[str | None]:
        menu = tg.last_message(person)
        return [(await tg.press(person, menu, b"no such button")).text
                for _ in range(BURST + 3)]

    results = await asyncio.gather(*(hammer(p) for p in LANGUAGES))
    for person, texts in zip(LANGUAGES, results, strict=True):
        t = translator(LANGUAGES[person])
        assert texts == [t("tap.unknown")] * BURST + [t("tap.slow")] * 3, person
    assert _errors(caplog) == []


# ---- long messages -------------------------------------------------------------------------

async def test_long_messages_and_arguments_are_refused_cheaply(
        tg: FakeTelegram, bot: BotApp, db_path: str) -> None:
    t = translator("en")
    tg.add_group(GROUP, "Durak club", members=[ALICE, BOB], creator=ALICE)
    await tg.send_text(ALICE, "/start")
    await tg.wait_for(lambda: tg.last_message(ALICE))

    for text in ("/play " + "x" * 4090, "y" * 4096, "/start " + "z" * 65,
                 "/" + "q" * 4095, "/stats\n" + "w" * 200):
        before = len(tg.messages(ALICE))
        await tg.send_text(ALICE, text)
        reply = await tg.wait_for(lambda b=before: len(tg.messages(ALICE)) > b
                                  and tg.last_message(ALICE))
        assert (reply.text, reply.buttons) == (t("input.too_long"), ()), text[:20]

    # In the group: a long command of ours gets the short answer; other long text, silence.
    for text in (f"@{BOT} " + "v" * 4000, f"/new@other_bot {'u' * 100}",
                 f"/new@{BOT} " + "y" * 4000):
        await tg.send_text(BOB, text, chat_id=GROUP)
    reply = await tg.wait_for(lambda: tg.last_message(GROUP))
    await tg.send_text(BOB, f"/help@{BOT}", chat_id=GROUP)
    await tg.wait_for(lambda: len(tg.messages(GROUP)) == 2)
    refusal, help_ = tg.messages(GROUP)
    assert reply == refusal and refusal.text == t("input.too_long")
    assert help_.text.startswith("Durak in this group")
    with contextlib.closing(sqlite3.connect(db_path)) as db:   # nothing but the people's rows
        for table in ("tables", "seats", "messages", "actions", "results"):
            assert db.execute(f"SELECT COUNT(*) FROM {table}").fetchone() == (0,), table
        assert db.execute("SELECT COUNT(*) FROM users").fetchone() == (2,)


# ---- updates nobody asked for ----------------------------------------------------------------

def _deliver(tg: FakeTelegram, kind: str, payload: dict[str, Any]) -> None:
    """Telegram sends an update of a kind the bot did not ask for (as it may after a version
    of the bot that asked for more, or one newer than aiogram knows)."""
    queue = tg.state.updates
    allowed, queue.allowed = queue.allowed, frozenset({kind})
    try:
        assert queue.push(kind, payload)
    finally:
        queue.allowed = allowed


async def test_updates_of_other_kinds_are_ignored(
        tg: FakeTelegram, bot: BotApp, caplog: pytest.LogCaptureFixture) -> None:
    # What its getUpdates asks for: what it handles (inline queries: inline mode, issue 39).
    await tg.wait_for(lambda: tg.polling)
    assert tg.state.updates.allowed == {"message", "callback_query", "my_chat_member",
                                        "inline_query"}

    alice = tg.state.user(ALICE).to_api()
    chat = {"id": ALICE, "type": "private", "first_name": "Alice"}
    channel = {"id": -1009876543210, "type": "channel", "title": "News"}
    group = {"id": GROUP, "type": "supergroup", "title": "Durak club"}
    oddities = {
        "edited_message": {"message_id": 7, "date": 1, "edit_date": 2, "chat": chat,
                           "from": alice, "text": "/play"},
        "channel_post": {"message_id": 1, "date": 1, "chat": channel, "text": "/new"},
        "edited_channel_post": {"message_id": 1, "date": 1, "edit_date": 2, "chat": channel,
                                "text": "/stats"},
        "chosen_inline_result": {"result_id": "1", "from": alice, "query": "durak"},
        "poll_answer": {"poll_id": "5", "user": alice, "option_ids": [0],
                        "option_persistent_ids": ["0"]},
        "chat_join_request": {"chat": group, "from": alice, "user_chat_id": ALICE, "date": 1},
        "message_reaction": {"chat": group, "message_id": 1, "date": 1, "user": alice,
                             "old_reaction": [],
                             "new_reaction": [{"type": "emoji", "emoji": "👍"}]},
        "some_update_of_2030": {"id": 1, "from": alice},
    }
    start = len(tg.calls)
    with pytest.warns(RuntimeWarning, match="unknown update type"):   # aiogram says so
        for kind, payload in oddities.items():
            _deliver(tg, kind, payload)
        await tg.wait_for(lambda: not tg.pending_updates)
        await tg.send_text(ALICE, "/help")   # and the bot goes on as ever
        await tg.wait_for(lambda: tg.last_message(ALICE))
    assert _calls_since(tg, start) == ["sendMessage"]
    assert _errors(caplog) == []
