"""Untrusted input: stale, foreign and garbage taps, two taps at once, unknown commands."""

from __future__ import annotations

import asyncio

from engine import Card, Game
from tests.bot.conftest import ALICE, BOB, game_message
from tg_durak.emulator import FakeTelegram
from tg_durak.i18n.translate import translator
from tg_durak.play.stale_taps import round_start
from tg_durak.render.callbacks import Verb
from tg_durak.render.cards import card_label
from tg_durak.storage import Store
from tg_durak.telegram.callbacks import MoveCallback


async def _start_game(tg: FakeTelegram) -> None:
    await tg.send_text(ALICE, "/start")
    await tg.wait_for(lambda: tg.last_message(ALICE) is not None)
    await tg.press(ALICE, tg.last_message(ALICE), "▶ Play")
    await tg.wait_for(lambda: game_message(tg, ALICE) is not None)


async def _version(store: Store) -> int:
    return (await store.tables.for_user(ALICE)).version


async def _alice_moves(store: Store, since: int) -> list:
    """Alice's own moves logged after version `since` (not her turn's time-outs, not a
    computer's): the table's clock goes on meanwhile, however slow the machine."""
    row = await store.tables.for_user(ALICE)
    seat = next(s.seat for s in row.seats if s.user_id == ALICE)
    return [entry for entry in (await store.tables.log(row.id))[since:]
            if entry[0] == "act" and entry[1] == seat and not entry[6]]


async def _when_alice_can_play(tg: FakeTelegram):
    """Wait until Alice's message offers at least two playable cards."""
    def ready():
        m = game_message(tg, ALICE)
        return m if m and sum(b.text.startswith("•") for r in m.buttons for b in r) >= 2 else None
    await tg.wait_for(ready, timeout=60)
    return ready()


async def _game(store: Store) -> tuple[Game, int]:
    """Alice's table as the store holds it (one consistent reading), and her seat."""
    row = await store.tables.for_user(ALICE)
    record = await store.tables.whole(row.id)
    seat = next(s.seat for s in record.row.seats if s.user_id == ALICE)
    return Game.replay({**record.row.snapshot, "log": record.log}), seat


def _lead_or_pass(message):
    """What Alice taps while she is not the defender: a card to lead or throw in, else Pass."""
    buttons = [b for r in message.buttons for b in r if b.callback_data]
    return next((b for b in buttons if b.text.startswith("•")),
                next((b for b in buttons if b.text == "Pass"), None))


async def _when_alice_defends(tg: FakeTelegram, store: Store) -> Game:
    """Play for Alice until a computer has led against her; the game then.

    She leads and lets rounds close herself: her clock never runs out meanwhile, so no
    computer plays for her (R10.2, two time-outs in a row make her away).
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 120
    while loop.time() < deadline:
        game, seat = await _game(store)
        view = game.view(seat)
        if view.defender == seat and view.phase == "defend":
            return game
        message = game_message(tg, ALICE)
        button = _lead_or_pass(message)
        if button is not None and view.defender != seat:
            await tg.press(ALICE, message, button, timeout=60)
        else:
            await asyncio.sleep(0.05)
    raise AssertionError("no computer led against Alice in time")


async def test_garbage_foreign_and_stale_taps_change_nothing(tg, bot, store) -> None:
    await _start_game(tg)
    game = await _when_alice_defends(tg, store)
    version = game.version
    message = game_message(tg, ALICE)
    card = next(b for r in message.buttons for b in r
                if b.callback_data and b.callback_data.startswith("m:")
                and MoveCallback.unpack(b.callback_data).verb == Verb.CARD)

    # A version the table has left behind: the round's start, its table still empty, where the
    # card led an attack; now it answers one. Alice is the defender of this two-seat game from
    # now on, whatever the table does meanwhile, for she does not move (the table's clock takes
    # for her): the card never means that attack again, and the tap is stale however late the
    # bot reads it.
    forged = card.callback_data.split(":")
    forged[2] = str(round_start(game))
    answer = await tg.press(ALICE, message, ":".join(forged).encode())
    assert answer.text and "moved on" in answer.text, answer
    game_now, seat = await _game(store)
    assert seat not in game_now.away, "a computer played for Alice: the premise does not hold"

    for junk in (b"\xff\xfe garbage", b"m:1:2", b"m:x:y:z:1:1", b"s:bots:99", b"l:xx", b""):
        answer = await tg.press(ALICE, message, junk)
        assert answer.text == "Unknown button." and answer.show_alert, junk

    await tg.send_text(BOB, "/start")
    await tg.wait_for(lambda: tg.last_message(BOB) is not None)
    # Bob forges Alice's button on a message of his own chat.
    answer = await tg.press(BOB, tg.last_message(BOB), card.callback_data.encode())
    assert answer.text == "You are not playing at this table."

    forged[2], forged[4] = str(version), "77"   # no such card
    answer = await tg.press(ALICE, message, ":".join(forged).encode())
    assert answer.text == "Unknown button."
    assert await _alice_moves(store, version) == [], "none of these moved for her"


async def test_two_taps_at_the_same_moment(tg, bot, store) -> None:
    """Two cards tapped at once on one screen: each tap is applied at most once, in the order
    the table's lock takes them; the second one only if it still means the same move on the
    table the first left (a lead then a throw-in of the same rank, two beats), else it is
    answered as stale. Nothing is applied that the player did not tap."""
    await _start_game(tg)
    message = await _when_alice_can_play(tg)
    before = await _version(store)
    cards = [b for r in message.buttons for b in r if b.text.startswith("•")][:2]
    answers = await asyncio.gather(*(tg.press(ALICE, message, c) for c in cards))
    texts = [a.text or "" for a in answers]
    alice_moves = await _alice_moves(store, before)
    tapped = {c.text.lstrip("•") for c in cards}
    played = [e[3] for e in alice_moves]
    assert len(played) == len(set(played)) <= 2, "no tap is applied twice"
    assert all(_label(card) in tapped for card in played), (played, tapped)
    if len(alice_moves) == 2 and alice_moves[0][2] == "attack":
        first, second = (Card.parse(c) for c in played)
        assert first.rank == second.rank, "a second card thrown in must match the table"
    if len(alice_moves) < 2:
        assert any("moved on" in t or "beats several" in t for t in texts), texts


def _label(card: str) -> str:
    """A card as the English game keyboard writes it (red suits as emoji)."""
    return card_label(Card.parse(card), translator("en"))


async def test_unknown_command_and_help(tg, bot) -> None:
    await tg.send_text(ALICE, "/frobnicate")
    await tg.wait_for(lambda: tg.last_message(ALICE) is not None)
    assert "/help" in tg.last_message(ALICE).text
    await tg.send_text(ALICE, "/help")
    await tg.wait_for(lambda: "/play" in tg.last_message(ALICE).text)
    await tg.send_text(ALICE, "/rules")
    await tg.wait_for(lambda: "Throw-in rules" in [b.text for r in tg.last_message(
        ALICE).buttons for b in r])
    await tg.press(ALICE, tg.last_message(ALICE), "Transfer rules")
    await tg.wait_for(lambda: "transfer" in tg.last_message(ALICE).text.lower()
                      and len(tg.last_message(ALICE).text) > 1000)


async def test_a_command_in_a_group_points_to_the_private_chat(tg, bot) -> None:
    tg.add_group(-100, "Friends", members=[ALICE, BOB])
    await tg.send_text(ALICE, "/play@durak_test_bot", chat_id=-100)
    await tg.wait_for(lambda: tg.last_message(-100) is not None)
    reply = tg.last_message(-100)
    assert "private chat" in reply.text
    assert reply.buttons[0][0].url == "https://t.me/durak_test_bot?start=group"
