"""Replies to commands share the bot's one budget with every game message (issue 11): with
Telegram's limits on, a crowd typing /start at the same moment is answered in turn — everyone,
once, without a 429 or a traceback."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

from tests.bot.conftest import ALICE, game_message, settings_for
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram, RateLimits
from tg_durak.i18n.translate import translator

CROWD = range(9001, 9091)   # 90 people: three seconds of the bot's whole budget
TELEGRAM = RateLimits(private_per_second=1, group_per_minute=20, global_per_second=30)


@pytest.fixture
async def bot(tg: FakeTelegram, db_path: str) -> AsyncIterator[BotApp]:
    """The bot as configured for Telegram: a private chat's budget is one message a second."""
    app = BotApp(replace(settings_for(tg, db_path), edit_interval=1.0))
    await app.start()
    yield app
    await app.stop()


def bot_messages(tg: FakeTelegram, chat_id: int) -> list:
    return [m for m in tg.messages(chat_id) if m.from_bot]


async def test_a_crowd_of_starts_is_answered_within_telegrams_limits(
        tg: FakeTelegram, bot: BotApp, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    tg.rate_limits = TELEGRAM
    greeting = translator("en")("start.greeting", name="Ann").splitlines()[0]
    # A game is running meanwhile: its screens go through the same budget.
    await tg.send_text(ALICE, "/start")
    await tg.wait_for(lambda: bot_messages(tg, ALICE), timeout=60)
    await tg.press(ALICE, tg.last_message(ALICE), "▶ Play")
    await tg.wait_for(lambda: game_message(tg, ALICE) is not None, timeout=60)

    for user_id in CROWD:
        tg.add_user(user_id, "Ann", language_code="en")
    for user_id in CROWD:
        await tg.send_text(user_id, "/start")
    await tg.wait_for(lambda: all(bot_messages(tg, u) for u in CROWD), timeout=60,
                      what="a greeting for everyone")
    await bot.publisher.flush(timeout=60)

    assert all(len(bot_messages(tg, u)) == 1 for u in CROWD), "one answer each"
    assert all(bot_messages(tg, u)[0].text.startswith(greeting) for u in CROWD)
    assert [str(c) for c in tg.calls if c.error_code == 429] == []
    assert bot.publisher.stats()["errors_429"] == 0
    assert [r.getMessage() for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR
            ] == [], "no traceback, no error"
