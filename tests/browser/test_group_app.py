"""A group's table in the Mini App, in real browsers at phone size: two people each see the
other's moves, the chat and the app show the same game, an onlooker sees no hand, and a
newcomer joins and plays from the app alone."""

from __future__ import annotations

import json
import random
import re

import pytest
from playwright.async_api import expect

from tests.bot.conftest import ALICE, BOB, choose_button, game_message
from tests.bot.groups import GROUP, join, open_lobby, play_all, seated, start
from tests.browser.conftest import WAIT_MS, OpenPhone, Phone
from tests.browser.people import SUITS, card_label, next_mover, play_one
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram
from tg_durak.emulator.models import Message
from tg_durak.i18n.translate import translator
from tg_durak.render.app_state import code
from tg_durak.tables.live import LiveTable

pytestmark = pytest.mark.asyncio(loop_scope="session")

CAROL, DAVE = 503, 504
TABLE_BUTTON, OPEN_TABLE = "🃏 Table", "🃏 Open the table"
MAX_TAPS = 60
NAMES = {ALICE: "Alice", BOB: "Bob", CAROL: "Carol", DAVE: "Dave"}


async def group_table(tg: FakeTelegram, app_bot: BotApp) -> tuple[Message, LiveTable]:
    """Alice and Bob (who both wrote to the bot) sit at a table of the group, started; Carol
    and Dave are in the group too (and have not written to the bot)."""
    tg.add_user(CAROL, "Carol", language_code="en")
    tg.add_user(DAVE, "Dave", language_code="en")
    tg.add_group(GROUP, "Durak club", members=[ALICE, BOB, CAROL, DAVE], creator=ALICE)
    for person in (ALICE, BOB):
        await tg.send_text(person, "/start")
    lobby = await open_lobby(tg, ALICE)
    await join(tg, BOB, lobby, "Bob")
    await start(tg, ALICE, lobby, [ALICE, BOB])
    return lobby, running(app_bot, ALICE)


def running(app_bot: BotApp, user_id: int) -> LiveTable:
    live = app_bot.tables.core.live_for(user_id)   # one process: it holds every table
    assert live is not None, f"{user_id} has no running table"
    return live


async def own_table(tg: FakeTelegram, phone: OpenPhone, user_id: int) -> Phone:
    """The person taps 🃏 Table on his private game message: his seat in the app."""
    p = await phone(tg.open_web_app(user_id, game_message(tg, user_id), TABLE_BUTTON))
    await expect(p.page.locator("body")).to_have_attribute("data-connected", "1")
    await expect(p.page.locator("body")).to_have_attribute("data-view", "seat")
    return p


def plain(text: str) -> str:
    """Chat text without emoji variation selectors (the chat writes 6♠️, the page 6♠)."""
    return text.replace("\ufe0f", "")


async def card_sent(p: Phone, card: str | None) -> bool:
    """Whether the tap just made put `card` on the table (not a chooser opened, not refused)."""
    if card is None:
        return False
    return await p.page.locator(f'#pairs .card[data-card="{card}"]').count() > 0


async def test_alice_and_bob_at_one_group_table_each_see_the_others_move(
        tg: FakeTelegram, app_bot: BotApp, phone: OpenPhone) -> None:
    await group_table(tg, app_bot)
    alice, bob = await own_table(tg, phone, ALICE), await own_table(tg, phone, BOB)
    # (the turns run at a tenth of real time: the deal may be played on by the time they look)
    await expect(alice.page.get_by_role("img", name=re.compile(r"^Bob: \d+ cards?$"))
                 ).to_be_visible()
    await expect(bob.page.get_by_role("img", name=re.compile(r"^Alice: \d+ cards?$"))
                 ).to_be_visible()
    phones = {alice.page: (alice, bob), bob.page: (bob, alice)}
    seen_by = {alice: 0, bob: 0}   # cards each saw the other play
    for _ in range(MAX_TAPS):
        if all(seen_by.values()):
            break
        mover, other = phones[await next_mover([alice.page, bob.page])]
        before = await other.version()
        what, card = await play_one(mover.page)
        assert what != "over", "the game ended before both had moved"
        if await card_sent(mover, card):
            await other.newer_than(before)
            await other.shown_on_table(card_label(card))
            seen_by[other] += 1
    assert all(seen_by.values()), seen_by


async def test_a_move_in_the_chat_shows_in_the_app_and_one_in_the_app_in_the_chat(
        tg: FakeTelegram, app_bot: BotApp, phone: OpenPhone) -> None:
    _, live = await group_table(tg, app_bot)
    alice = await own_table(tg, phone, ALICE)   # Bob stays in his chat
    bob_message = game_message(tg, BOB)
    rng = random.Random(5)
    chat_to_app = app_to_chat = False
    for _ in range(MAX_TAPS):
        if chat_to_app and app_to_chat:
            break
        assert not live.finished, "the game ended before a move each way"
        on_turn = live.on_turn
        if on_turn == live.seat_of(BOB):
            message = tg.message(BOB, bob_message.message_id)
            button = choose_button(message, rng, {"pass": "Pass", "take": "Take"})
            if button is None:
                await tg.wait_for(lambda m=message: tg.message(BOB, m.message_id).edit_count
                                  != m.edit_count, timeout=WAIT_MS / 1000)
                continue
            before = await alice.version()
            answer = await tg.press(BOB, message, button)
            label = plain(button.text.removeprefix("•").strip())
            if not answer.show_alert and label[:-1] and label[-1] in SUITS.values():
                await alice.newer_than(before)
                await alice.shown_on_table(label)
                chat_to_app = True
        elif on_turn == live.seat_of(ALICE):
            _, card = await play_one(alice.page)
            if await card_sent(alice, card):
                label = card_label(card)
                await tg.wait_for(lambda label=label: any(
                    "Alice" in line and label in line for line in plain(
                        tg.message(BOB, bob_message.message_id).text).splitlines()),
                    timeout=WAIT_MS / 1000, what=f"Bob's chat telling Alice's {label}")
                app_to_chat = True
        else:   # between turns (a throw-in window): the next state tells
            await alice.newer_than(await alice.version())
    assert chat_to_app and app_to_chat


def strings_in(frame: object) -> list[str]:
    """Every string anywhere in a frame (keys are the protocol's own words)."""
    if isinstance(frame, dict):
        return [s for v in frame.values() for s in strings_in(v)]
    if isinstance(frame, list):
        return [s for v in frame for s in strings_in(v)]
    return [frame] if isinstance(frame, str) else []


def hidden_cards_shown(frame: dict, hands: dict[int, list[str]]) -> set[str]:
    """The cards of the hands that the frame shows, as codes or as names in its texts, but for
    the cards everyone knows to be in that hand (R11.1: picked up from the table, the opening
    trump)."""
    known = {seat["seat"]: set(seat["known"]) for seat in frame["seats"]}
    strings = strings_in(frame)
    texts = " ".join(plain(s) for s in strings)
    shown = set()
    for seat, hand in hands.items():
        assert known[seat] <= set(hand), (seat, known[seat], hand)
        for card in set(hand) - known[seat]:
            if card in strings or card_label(card) in texts:
                shown.add(card)
    return shown


async def test_an_onlooker_sees_the_table_and_no_ones_hand(
        tg: FakeTelegram, app_bot: BotApp, phone: OpenPhone) -> None:
    lobby, live = await group_table(tg, app_bot)
    table = tg.message(GROUP, lobby.message_id)
    assert "Trump" in table.text
    carol = await phone(tg.open_start_app(CAROL, table.button(OPEN_TABLE).url, chat_id=GROUP))
    page = carol.page
    await expect(page.locator("body")).to_have_attribute("data-connected", "1")
    await expect(page.locator("body")).to_have_attribute("data-view", "spectator")
    await expect(page.locator("#hand .watching")).to_have_text(translator("en")("app.watching"))
    await expect(page.locator("#seats .seat")).to_have_count(2)
    await expect(page.get_by_role("img", name=re.compile(r"^Alice: \d+ cards?$"))).to_be_visible()

    # Each state she is sent, against the hands at that version (read from the bot as the
    # frame arrives; a frame of a version the game has already left is not compared).
    compared: list[tuple[dict, dict[int, list[str]]]] = []

    def against_hands(payload: str | bytes) -> None:
        frame = json.loads(payload)
        if frame.get("type") == "state" and frame["version"] == live.game.version:
            hands = {s.seat: [code(c) for c in live.game.hand(s.seat)] for s in live.people}
            compared.append((frame, hands))

    carol.sockets[-1].on("framereceived", against_hands)
    await play_all(tg, [ALICE, BOB], seed=4)
    await expect(page.locator("body")).to_have_attribute("data-over", "1")

    states = carol.states()
    assert len(states) > 10, "she watched the game move"
    assert all(s["view"] == "spectator" and s["me"] is None and s["hand"] == [] and
               s["legal"] == [] for s in states)
    assert len(compared) > 5, "enough states were compared with the hands"
    for frame, hands in compared:
        assert not hidden_cards_shown(frame, hands), (frame["version"], hands, frame)
    await expect(page.locator("#hand button.card")).to_have_count(0)
    await expect(page.locator("#actions button")).to_have_count(0)


async def test_a_newcomer_joins_from_the_app_plays_and_his_closed_app_shows(
        tg: FakeTelegram, app_bot: BotApp, phone: OpenPhone) -> None:
    tg.add_user(DAVE, "Dave", language_code="en")   # he has never written to the bot
    tg.add_group(GROUP, "Durak club", members=[ALICE, DAVE], creator=ALICE)
    await tg.send_text(ALICE, "/start")
    lobby = await open_lobby(tg, ALICE)
    link = tg.message(GROUP, lobby.message_id).button(OPEN_TABLE).url
    dave = await phone(tg.open_start_app(DAVE, link, chat_id=GROUP))
    await expect(dave.page.locator("body")).to_have_attribute("data-view", "lobby")
    join_button = dave.page.get_by_role("button", name="Join", exact=True)
    await expect(join_button).to_be_visible()
    await join_button.tap()
    await tg.wait_for(lambda: seated(tg, lobby, "Dave"), timeout=WAIT_MS / 1000,
                      what="Dave listed in the lobby message")
    await expect(dave.page.locator("#panel .panel-note")).to_have_text(
        "You have a seat. The game starts when the host starts it.")
    await expect(join_button).to_have_count(0)
    assert tg.messages(DAVE) == [], "the bot could not write to him, and did not"

    await start(tg, ALICE, lobby, [ALICE])
    await expect(dave.page.locator("body")).to_have_attribute("data-view", "seat")
    await expect(dave.page.locator("#hand button.card.in-hand").first).to_be_visible()
    live = running(app_bot, DAVE)
    alice = await own_table(tg, phone, ALICE)
    dave_seat = str(live.seat_of(DAVE))

    # They play until a move of Dave's is taken.
    answers = len(dave.frames)
    for _ in range(MAX_TAPS):
        if any(f["type"] == "answer" and f["ok"] for f in dave.frames[answers:]):
            break
        mover = await next_mover([alice.page, dave.page])
        assert (await play_one(mover))[0] != "over", "the game ended before Dave moved"
    else:
        raise AssertionError("Dave made no move")

    seat = alice.page.locator(f'#seats .seat[data-seat="{dave_seat}"]')
    await expect(seat.locator(".seat-closed")).to_have_count(0)
    await dave.close()
    await expect(seat.locator(".seat-closed")).to_have_text("app closed")
    await expect(seat).to_have_attribute("data-away", "1")


async def test_the_host_starts_his_lobby_from_the_app_and_reads_its_options(
        tg: FakeTelegram, app_bot: BotApp, phone: OpenPhone) -> None:
    tg.add_group(GROUP, "Durak club", members=[ALICE, BOB], creator=ALICE)
    for person in (ALICE, BOB):
        await tg.send_text(person, "/start")
    lobby = await open_lobby(tg, ALICE)
    await join(tg, BOB, lobby, "Bob")
    link = tg.message(GROUP, lobby.message_id).button(OPEN_TABLE).url
    alice = await phone(tg.open_start_app(ALICE, link, chat_id=GROUP))
    bob = await phone(tg.open_start_app(BOB, link, chat_id=GROUP))
    for p in (alice, bob):
        await expect(p.page.locator("body")).to_have_attribute("data-view", "lobby")
        await expect(p.page.locator("#panel .lobby-options")).to_contain_text("36 cards")
    await expect(bob.page.get_by_role("button", name="Start", exact=True)).to_have_count(0)
    start_button = alice.page.get_by_role("button", name="Start", exact=True)
    await expect(alice.page.locator("#panel .panel-note")).to_have_text(
        translator("en")("app.lobby_host"))
    await start_button.tap()
    for p in (alice, bob):
        await expect(p.page.locator("body")).to_have_attribute("data-view", "seat")
    assert running(app_bot, ALICE) is running(app_bot, BOB)
