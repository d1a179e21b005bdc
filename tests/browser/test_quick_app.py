"""The quick game with people in the Mini App, in a real browser at phone size: the app opened
with no table shows it; two people who wait for a two-player game land at one table; one alone
starts with computers after his wait; one leaves the queue (in Russian); a choice outlives a dropped
connection."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from playwright.async_api import expect

from tests.bot.conftest import ALICE, BOB
from tests.browser.conftest import WAIT_MS, OpenPhone, Phone
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram
from tg_durak.play.matching import QUICK_CHAT

pytestmark = pytest.mark.asyncio(loop_scope="session")

FIND, WITH_COMPUTERS = "🔎 Find players", "🤖 Start with computers"
DASHA = 505


async def open_app(tg: FakeTelegram, phone: OpenPhone, user_id: int, **opened) -> Phone:
    """He opens the bot's Mini App from his chat with it (not a table's button): the quick
    game, since he has no table."""
    await tg.send_text(user_id, "/start")   # the bot may write to him
    await tg.wait_for(lambda: tg.last_message(user_id), what="the greeting")
    link = f"https://t.me/{tg.state.bot.username}?startapp"
    p = await phone(tg.open_start_app(user_id, link, chat_id=user_id), **opened)
    await expect(p.page.locator("body")).to_have_attribute("data-connected", "1")
    await expect(p.page.locator("body")).to_have_attribute("data-view", "home")
    return p


async def answered(p: Phone, count: int) -> None:
    """Until the phone's socket has been sent `count` answers."""
    while sum(f["type"] == "answer" for f in p.frames) < count:
        await asyncio.sleep(0.05)


async def choose(p: Phone, label: str, option: str) -> None:
    """A tap on an option of the row `label` (the game, players, deck, wait), once it shows
    as chosen. A tap made as the connection drops (a busy machine can hold the bot's answer to
    a ping past the page's limit) is not sent, the page says so, and its person taps once more,
    as anyone would."""
    page = p.page
    button = page.get_by_role("group", name=label).get_by_role("button", name=option, exact=True)
    for _ in range(3):
        if await button.get_attribute("aria-pressed") == "true":
            return
        await expect(page.locator("body")).to_have_attribute("data-connected", "1")
        sockets = len(p.sockets)
        await button.tap()
        with contextlib.suppress(AssertionError):
            await expect(button).to_have_attribute("aria-pressed", "true", timeout=WAIT_MS // 3)
            return
        assert len(p.sockets) > sockets, (
            f"{label} {option} not chosen on a page that stayed connected: sent {p.sent}, "
            f"received {p.frames}")
    raise AssertionError(f"{label} {option} not chosen in three tries: received {p.frames}")


async def test_two_people_waiting_in_the_app_land_at_one_table(
        tg: FakeTelegram, app_bot: BotApp, phone: OpenPhone) -> None:
    alice = await open_app(tg, phone, ALICE)
    bob = await open_app(tg, phone, BOB)
    for p in (alice, bob):
        await choose(p, "Players", "2")
        await choose(p, "Game", "Transfer")
    await alice.page.get_by_role("button", name=FIND).tap()
    await expect(alice.page.get_by_role("status")).to_contain_text(
        "Waiting for this game: 1 of 2.")
    await bob.page.get_by_role("button", name=FIND).tap()
    for p in (alice, bob):   # both apps move to the table that opened
        await expect(p.page.locator("body")).to_have_attribute("data-view", "seat")
        await expect(p.page.locator("#hand button.card.in-hand")).to_have_count(6)
    tables = {state["table"] for p in (alice, bob) for state in p.states()
              if state["view"] == "seat"}
    assert len(tables) == 1, tables
    store = app_bot.store
    row = await store.tables.get(tables.pop())
    assert row is not None and row.chat_id == QUICK_CHAT
    assert sorted(s.user_id for s in row.seats) == [ALICE, BOB]
    assert await store.quick.waiting() == []


async def test_one_alone_starts_with_computers_after_his_wait(
        tg: FakeTelegram, app_bot: BotApp, phone: OpenPhone) -> None:
    alice = await open_app(tg, phone, ALICE)
    page = alice.page
    await choose(alice, "Players", "3")
    await choose(alice, "Wait for people", "⏱ 15 s")
    await page.get_by_role("button", name=FIND).tap()
    await expect(page.get_by_role("status")).to_contain_text("Waiting for this game: 1 of 3.")
    start = page.get_by_role("button", name=WITH_COMPUTERS)
    await expect(start).to_be_visible()   # once her wait is over
    await start.tap()
    await expect(page.locator("body")).to_have_attribute("data-view", "seat")
    await expect(page.locator("#seats .seat")).to_have_count(2)   # two computers
    table = next(s["table"] for s in alice.states() if s["view"] == "seat")
    row = await app_bot.store.tables.get(table)
    assert row is not None and [s.user_id for s in row.seats] == [ALICE, None, None]


async def test_a_choice_outlives_a_dropped_connection(
        tg: FakeTelegram, app_bot: BotApp, phone: OpenPhone) -> None:
    """The server keeps the choice with the socket: the page tells a new socket the choice its
    person made, so the game he finds is the one he chose."""
    alice = await open_app(tg, phone, ALICE)
    page = alice.page
    await choose(alice, "Players", "3")
    await choose(alice, "Game", "Transfer")
    sockets = len(alice.sockets)
    alice.expect_problem(r"WebSocket connection to .* failed: .*ERR_INTERNET_DISCONNECTED")
    await alice.context.set_offline(True)
    await expect(page.locator("body")).to_have_attribute("data-connected", "0")
    await alice.context.set_offline(False)
    await expect(page.locator("body")).to_have_attribute("data-connected", "1")
    assert len(alice.sockets) > sockets
    for label, option in (("Players", "3"), ("Game", "Transfer")):
        button = page.get_by_role("group", name=label).get_by_role("button", name=option,
                                                                    exact=True)
        await expect(button).to_have_attribute("aria-pressed", "true")
    await page.get_by_role("button", name=FIND).tap()
    await expect(page.get_by_role("status")).to_contain_text("Waiting for this game: 1 of 3.")
    entry, = await app_bot.store.quick.waiting()
    assert (entry.user_id, entry.game.players, entry.game.variant.value) == (
        ALICE, 3, "transfer"), entry


async def test_leaving_the_queue_in_russian(
        tg: FakeTelegram, app_bot: BotApp, phone: OpenPhone) -> None:
    tg.add_user(DASHA, "Даша", language_code="ru")
    dasha = await open_app(tg, phone, DASHA, locale="ru-RU")
    page = dasha.page
    await expect(page.locator(".home-title")).to_have_text("👥 Быстрая игра с людьми")
    await page.get_by_role("button", name="🔎 Найти игроков").tap()
    await expect(page.get_by_role("status")).to_contain_text("Ждут эту игру: 1 из 2.")
    store = app_bot.store
    assert [e.user_id for e in await store.quick.waiting()] == [DASHA]
    await page.get_by_role("button", name="✖ Выйти из очереди").tap()
    await expect(page.get_by_role("button", name="🔎 Найти игроков")).to_be_visible()
    assert await store.quick.waiting() == []
    # Find and Leave were both taken (an answer may come after the state it caused).
    await asyncio.wait_for(answered(dasha, 2), WAIT_MS / 1000)
    answers = [f for f in dasha.frames if f["type"] == "answer"]
    assert [a["ok"] for a in answers] == [True, True], answers
