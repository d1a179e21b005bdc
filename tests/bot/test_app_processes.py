"""The Mini App on any process: two bots on one PostgreSQL and one Redis, Telegram posting every
update to the first while Alice's app is open on the second. The changes the first makes (her
chat taps, the computer's moves by its timers) reach her socket on the second within the Mini
App's usual wait, and a move she makes in the app there is played like any other."""

from __future__ import annotations

import os
import random
import uuid
from collections.abc import AsyncIterator
from dataclasses import replace

import aiohttp
import pytest

from tests.bot.app_pages import Page, free_port, open_page
from tests.bot.conftest import ALICE, CALLBACK_TTL, game_message, settings_for
from tests.bot.test_app_socket import TABLE, private_game
from tests.shared.conftest import URL as REDIS_URL
from tests.store.conftest import pg_database, pg_url  # noqa: F401  (fixtures)
from tg_durak.app import BotApp, set_webhook
from tg_durak.emulator import FakeTelegram
from tg_durak.emulator.models import Message

SECRET = "relay-test-secret"


@pytest.fixture
async def own_tg() -> AsyncIterator[FakeTelegram]:
    """An emulator whose bot has an id of its own: the Redis keys and channel it names are the
    test's alone (pytest-xdist runs others beside it on the same Redis)."""
    bot_id = random.randrange(10**9, 10**10)
    async with FakeTelegram(token=f"{bot_id}:{uuid.uuid4().hex}",
                            callback_ttl=CALLBACK_TTL) as fake:
        fake.add_user(ALICE, "Alice", language_code="en")
        yield fake


@pytest.fixture
async def two_bots(own_tg: FakeTelegram,
                   pg_url: str) -> AsyncIterator[tuple[BotApp, BotApp]]:  # noqa: F811
    if os.environ.get("DURAK_TEST_NO_REDIS") == "1":
        pytest.skip("DURAK_TEST_NO_REDIS=1: no Redis")
    bots = []
    for _ in range(2):
        port = free_port()
        url = f"http://127.0.0.1:{port}/"
        settings = replace(settings_for(own_tg, pg_url), webapp_url=url, web_port=port,
                           webhook_url=f"{url}telegram/updates", webhook_secret=SECRET,
                           redis_url=REDIS_URL)
        bot = BotApp(settings, webhook=True)
        await bot.start()
        bots.append(bot)
    own_tg.set_web_app(bots[0].settings.webapp_url)
    await set_webhook(bots[0].settings)   # every update goes to the first
    try:
        yield bots[0], bots[1]
    finally:
        for bot in bots:
            await bot.stop()


async def test_a_change_on_one_process_reaches_the_app_open_on_another(
        own_tg: FakeTelegram, two_bots: tuple[BotApp, BotApp],
        http: aiohttp.ClientSession) -> None:
    tg = own_tg
    first, second = two_bots
    _, page, state = await app_on(second, tg, http)
    assert state["view"] == "seat" and state["me"] == 0

    # Changes the first process makes, by her chat taps or its computer's timer, reach her.
    changed = await the_first_moves_on(tg, page, state)
    assert changed["version"] > state["version"]
    assert first.counted["relay"].stats()["announced"] > 0
    assert second.counted["relay"].stats()["relayed"] > 0

    # A move made in the app on the second process is played, and the game goes on from there.
    state = changed
    while not state["legal"] and not state["over"]:
        state = await page.state(newer_than=state["version"])
    if not state["over"]:
        answer = await page.move(state, state["legal"][0])
        assert answer["ok"], answer
        state = await page.state(newer_than=state["version"])
    table = state["table"]
    stored = await second.store.tables.get(table)
    assert stored.version >= state["version"]
    await page.close()


async def app_on(bot: BotApp, tg: FakeTelegram, http: aiohttp.ClientSession
                 ) -> tuple[Message, Page, dict]:
    """Alice's private game, its message, and her app opened on `bot`'s page with its first
    state."""
    message = await private_game(tg)
    page = await open_page(http, bot.settings.webapp_url, tg.open_web_app(ALICE, message, TABLE))
    assert (await page.receive())["type"] == "welcome"
    return message, page, await page.state()


async def the_first_moves_on(tg: FakeTelegram, page: Page, state: dict) -> dict:
    """A newer state on the page, after a tap on her chat message if it offers one (the first
    process handles every update); else the computer's move, by the first process's timer."""
    message = game_message(tg, ALICE)
    cards = [b for row in message.buttons for b in row if b.text.startswith("•")]
    if cards:
        answer = await tg.press(ALICE, message, cards[0].text)
        assert not answer.show_alert, answer.text
    return await page.state(newer_than=state["version"])


async def test_an_app_open_on_another_process_keeps_the_chat_message_waiting(
        own_tg: FakeTelegram, two_bots: tuple[BotApp, BotApp],
        http: aiohttp.ClientSession) -> None:
    tg = own_tg
    first, second = two_bots
    message, page, state = await app_on(second, tg, http)
    table = state["table"]
    # The first process hears that her app is open on the second.
    await tg.wait_for(lambda: ALICE in first.web_app.sockets.presence.elsewhere(table),
                      what="the first hears of her app")
    edits = tg.message(ALICE, message.message_id).edit_count
    changed = await the_first_moves_on(tg, page, state)
    await first.publisher.flush()
    assert changed["version"] > state["version"]
    assert tg.message(ALICE, message.message_id).edit_count == edits, \
        "her chat message waits while her app is open, whichever process changed the table"
    await page.close()
