"""Group games end to end when people act at once or stop playing: throw-ins racing a defence,
leaving, time-outs and "away", /kick, a player who blocked the bot (issue 10)."""

from __future__ import annotations

import asyncio
import random
import secrets
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

from engine import Card, Game, Rules
from tests.bot.conftest import (
    ALICE,
    BOB,
    choose_button,
    game_message,
    is_over,
    settings_for,
)
from tests.bot.groups import BOT, GROUP, join, open_lobby, start, wait_started
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram
from tg_durak.emulator.models import InlineButton, Message
from tg_durak.play.lobby_rules import DEFAULT_SEATS
from tg_durak.storage import Store

CAT, DAN = 503, 504
NAMES = {ALICE: "Alice", BOB: "Bob", CAT: "Cat", DAN: "Dan"}
AWAY_YOU = "a computer plays for you"


async def seat(tg: FakeTelegram, people: list[int], chat_id: int = GROUP,
               computers: int = 0) -> Message:
    """The group, each person having opened the bot, a lobby with all of them (the first is
    the host) and `computers` more; started. Returns the lobby (now the table) message."""
    for person in people:
        if person not in (ALICE, BOB):   # the harness knows these two already
            tg.add_user(person, NAMES[person], language_code="en")
    tg.add_group(chat_id, "Durak club", members=people, creator=people[0])
    for person in people:
        await tg.send_text(person, "/start")
    lobby = await open_lobby(tg, people[0], chat_id)
    for person in people[1:]:
        await join(tg, person, lobby, NAMES[person])
    for _ in range(computers):
        before = tg.message(chat_id, lobby.message_id).edit_count
        await tg.press(people[0], tg.message(chat_id, lobby.message_id), "+🤖 Normal")
        await tg.wait_for(lambda b=before: tg.message(chat_id, lobby.message_id).edit_count > b)
    if len(people) + computers < DEFAULT_SEATS:
        await start(tg, people[0], lobby, people)
    else:   # the last seat taken starts the table
        await wait_started(tg, lobby, people)
    return lobby


def table_of(message: Message) -> int:
    return int(next(b.callback_data for row in message.buttons for b in row
                    if b.callback_data and b.callback_data.startswith("m:")).split(":")[1])


def drawn_at(message: Message) -> int:
    return int(next(b.callback_data for row in message.buttons for b in row
                    if b.callback_data and b.callback_data.startswith("m:")).split(":")[2])


def card_button(message: Message, card: Card) -> InlineButton:
    return next(b for row in message.buttons for b in row
                if b.callback_data and b.callback_data.startswith("m:")
                and b.callback_data.split(":")[3] in ("c", "X")
                and int(b.callback_data.split(":")[4]) == card.index)


def table_text(tg: FakeTelegram, lobby: Message) -> str:
    return tg.message(lobby.chat_id, lobby.message_id).text


async def keep_playing(tg: FakeTelegram, user_id: int, stop: asyncio.Event, seed: int = 1
                       ) -> None:
    """The person taps through his game message until `stop` is set or his game is over."""
    rng = random.Random(seed)
    seen = None
    while not stop.is_set():
        message = game_message(tg, user_id)
        if message is None or is_over(message):
            return
        state = (message.message_id, message.edit_count)
        if state != seen:
            seen = state
            button = choose_button(message, rng, {"pass": "Pass", "take": "Take"})
            if button is not None and button.callback_data.startswith("m:"):
                await tg.press(user_id, message, button, timeout=60)
                continue
        await asyncio.sleep(0.05)


# ---- several people at once ----------------------------------------------------------------


def racing_deal(game: Game) -> tuple[Card, Card, Card, Card] | None:
    """The lead, the attacker's second card of its rank, the third player's card of that rank,
    and the defender's card that beats the lead and nothing else of that rank; or None."""
    a, d = game.attacker, game.defender
    o = 3 - a - d
    for lead in game.hand(a):
        if lead.suit == game.trump_suit:
            continue
        second = [c for c in game.hand(a) if c.rank == lead.rank and c != lead]
        third = [c for c in game.hand(o) if c.rank == lead.rank]
        beat = [c for c in game.hand(d) if c.suit == lead.suit and c.rank > lead.rank]
        if second and third and beat:
            return lead, second[0], third[0], beat[0]
    return None


async def stored_moves(db_path: str, table_id: int) -> list[tuple[int, str, str]]:
    """The moves in the table's stored log: (seat, kind, card)."""
    store = await Store.open(db_path)
    try:
        return [(e[1], e[2], e[3]) for e in await store.tables.log(table_id) if e[0] == "act"]
    finally:
        await store.close()


@pytest.fixture
async def patient_bot(tg: FakeTelegram, db_path: str) -> AsyncIterator[BotApp]:
    """The bot at real time (a 30 s turn): no time-out may overtake the taps under test."""
    app = BotApp(replace(settings_for(tg, db_path), time_scale=1.0))
    await app.start()
    yield app
    await app.stop()


async def test_throw_ins_racing_a_defence_each_land_once(
        tg: FakeTelegram, patient_bot: BotApp, db_path: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    seed = next(s for s in range(100_000) if racing_deal(Game.new(Rules(players=3), s)))
    monkeypatch.setattr(secrets, "randbits", lambda bits: seed)
    people = [ALICE, BOB, CAT]
    await seat(tg, people)
    game = Game.new(Rules(players=3), seed)
    lead, second, third, beat = racing_deal(game)
    attacker, defender = people[game.attacker], people[game.defender]
    other = next(p for p in people if p not in (attacker, defender))
    table_id = table_of(game_message(tg, attacker))

    await tg.press(attacker, game_message(tg, attacker), card_button(game_message(tg, attacker),
                                                                     lead))
    await tg.wait_for(lambda: all(drawn_at(game_message(tg, p)) == 1 for p in people),
                      what="every screen showing the lead")
    screens = {p: game_message(tg, p) for p in people}
    answers = await asyncio.gather(
        tg.press(defender, screens[defender], card_button(screens[defender], beat)),
        tg.press(attacker, screens[attacker], card_button(screens[attacker], second)),
        tg.press(other, screens[other], card_button(screens[other], third)))
    assert [(a.text, a.show_alert) for a in answers] == [(None, False)] * 3

    moves = await stored_moves(db_path, table_id)
    seats = {p: i for i, p in enumerate(people)}
    assert moves[0] == (seats[attacker], "attack", str(lead))
    assert sorted(moves[1:]) == sorted([
        (seats[defender], "defend", str(beat)), (seats[attacker], "attack", str(second)),
        (seats[other], "attack", str(third))]), "each tap applied once"
    # The same taps again, on the same old screens: nothing more happens.
    again = await asyncio.gather(
        tg.press(attacker, screens[attacker], card_button(screens[attacker], second)),
        tg.press(other, screens[other], card_button(screens[other], third)))
    assert all(a.text == "The table has moved on: here is where it stands now." for a in again)
    assert await stored_moves(db_path, table_id) == moves


# ---- leaving ---------------------------------------------------------------------------------


async def test_people_leave_mid_game_and_the_game_goes_on(
        tg: FakeTelegram, bot: BotApp, store: Store) -> None:
    people = [ALICE, BOB, CAT]
    lobby = await seat(tg, people, computers=1)
    table_id = table_of(game_message(tg, ALICE))

    await tg.send_text(BOB, f"/leave@{BOT}", chat_id=GROUP)
    await tg.wait_for(lambda: tg.last_message(GROUP).text.startswith("Bob leaves the game"))
    await tg.wait_for(lambda: "no longer in this game" in tg.last_message(BOB).text)
    await tg.wait_for(lambda: "left: a computer plays the seat" in table_text(tg, lobby))

    # Cat uses the Leave button on his game message, and confirms.
    await tg.press(CAT, game_message(tg, CAT), "🚪 Leave")
    confirm = await tg.wait_for(lambda: (m := tg.last_message(CAT)) is not None
                                and m.text.startswith("Leave this game?") and m)
    await tg.press(CAT, confirm, "Leave")
    await tg.wait_for(lambda: "no longer in this game" in tg.last_message(CAT).text)

    await asyncio.wait_for(keep_playing(tg, ALICE, asyncio.Event()), 120)
    # Out of cards before the end, her message has nothing to tap until its last screen.
    await tg.wait_for(lambda: (m := game_message(tg, ALICE)) is not None and is_over(m),
                      timeout=120, what="Alice's last screen")
    row = await store.tables.get(table_id)
    assert row.status == "finished"
    outcomes = {p: (await store.results.stats(p)) for p in people}
    assert outcomes[BOB].resigned == outcomes[CAT].resigned == 1
    assert outcomes[ALICE].resigned == 0 and outcomes[ALICE].games == 1


# ---- away, and back --------------------------------------------------------------------------


async def test_time_outs_mark_away_on_every_screen_until_he_taps_again(
        tg: FakeTelegram, bot: BotApp) -> None:
    people = [ALICE, BOB]
    lobby = await seat(tg, people, computers=1)
    stop = asyncio.Event()
    alice = asyncio.create_task(keep_playing(tg, ALICE, stop))
    try:
        await tg.wait_for(lambda: AWAY_YOU in game_message(tg, BOB).text, timeout=60,
                          what="Bob away after two time-outs")
        await tg.wait_for(lambda: "Bob" in table_text(tg, lobby)
                          and "away" in table_text(tg, lobby), timeout=60)
        await tg.wait_for(lambda: is_over(game_message(tg, ALICE))
                          or "away" in game_message(tg, ALICE).text, timeout=60)
        bob = game_message(tg, BOB)
        button = next(b for row in bob.buttons for b in row if b.callback_data.startswith("m:"))
        await tg.press(BOB, bob, button)
        await tg.wait_for(lambda: is_over(game_message(tg, BOB))
                          or AWAY_YOU not in game_message(tg, BOB).text, timeout=60,
                          what="Bob back at his seat")
        await tg.wait_for(lambda: "away" not in table_text(tg, lobby)
                          or "durak" in table_text(tg, lobby).lower(), timeout=60)
    finally:
        stop.set()
        await alice


# ---- /kick -----------------------------------------------------------------------------------


async def test_the_host_removes_a_player_who_is_away(
        tg: FakeTelegram, bot: BotApp, store: Store) -> None:
    people = [ALICE, BOB, CAT]
    lobby = await seat(tg, people)
    table_id = table_of(game_message(tg, ALICE))
    said = await tg.send_text(CAT, "brb", chat_id=GROUP)
    answered = len(tg.messages(GROUP))
    await tg.send_text(ALICE, "/kick", chat_id=GROUP, reply_to=said.message_id)
    await tg.wait_for(lambda: len(tg.messages(GROUP)) > answered)
    assert tg.last_message(GROUP).text == "Cat is here: only a player who is away can be removed."
    await tg.send_text(BOB, "/kick", chat_id=GROUP, reply_to=said.message_id)
    await tg.wait_for(lambda: tg.last_message(GROUP).text
                      == "Only the host or a chat admin can remove a player.")

    stop = asyncio.Event()
    players = [asyncio.create_task(keep_playing(tg, p, stop, seed=p)) for p in (ALICE, BOB)]
    try:
        await tg.wait_for(lambda: AWAY_YOU in game_message(tg, CAT).text, timeout=90,
                          what="Cat away after two time-outs")
    finally:
        stop.set()
        await asyncio.gather(*players)
    await tg.send_text(ALICE, f"/kick@{BOT}", chat_id=GROUP)
    choice = await tg.wait_for(lambda: (m := tg.last_message(GROUP)).text.startswith("Who is away")
                               and m)
    assert [b.text for row in choice.buttons for b in row] == ["Cat"]
    assert (await tg.press(BOB, choice, "Cat")).show_alert, "not the host"
    answer = await tg.press(ALICE, choice, "Cat")
    assert answer.text == "Cat is out of the game: a computer plays the seat to the end."
    await tg.wait_for(lambda: tg.message(GROUP, choice.message_id).text == answer.text)
    await tg.wait_for(lambda: "removed from this game" in tg.last_message(CAT).text)
    await tg.wait_for(lambda: "left: a computer plays the seat" in table_text(tg, lobby))
    row = await store.tables.get(table_id)
    assert [s.status for s in row.seats] == ["playing", "playing", "kicked"]


# ---- a player who blocked the bot ------------------------------------------------------------


async def test_a_player_who_blocks_the_bot_is_away_and_the_group_is_told_once(
        tg: FakeTelegram, bot: BotApp) -> None:
    people = [ALICE, BOB, CAT]
    lobby = await seat(tg, people)
    tg.block_bot(CAT)
    notice = await tg.wait_for(lambda: next(
        (m for m in tg.messages(GROUP) if m.text.startswith("I can't write to Cat")), None),
        what="the group told about Cat")
    [[opener]] = notice.buttons
    assert opener.url == f"https://t.me/{BOT}"
    await tg.wait_for(lambda: "away" in table_text(tg, lobby))

    stop = asyncio.Event()
    players = [asyncio.create_task(keep_playing(tg, p, stop, seed=p)) for p in (ALICE, BOB)]
    try:
        version = drawn_at(game_message(tg, ALICE))
        await tg.wait_for(lambda: is_over(game_message(tg, ALICE))
                          or drawn_at(game_message(tg, ALICE)) > version + 6, timeout=60,
                          what="the game going on with a computer in Cat's seat")
        assert sum(m.text.startswith("I can't write to Cat") for m in tg.messages(GROUP)) == 1
        await tg.send_text(CAT, "/start")   # he unblocks the bot
        cat = game_message(tg, CAT)
        button = next(b for row in cat.buttons for b in row if b.callback_data.startswith("m:"))
        await tg.press(CAT, cat, button)
        await tg.wait_for(lambda: game_message(tg, CAT).edit_count > cat.edit_count
                          and AWAY_YOU not in game_message(tg, CAT).text, timeout=60,
                          what="Cat back at his seat")
    finally:
        stop.set()
        await asyncio.gather(*players)
    assert sum(m.text.startswith("I can't write to Cat") for m in tg.messages(GROUP)) == 1
