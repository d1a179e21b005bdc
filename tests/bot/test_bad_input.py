"""Untrusted input: stale, foreign and garbage taps, two taps at once, unknown commands."""

from __future__ import annotations

import asyncio

from engine import Card
from tests.bot.conftest import ALICE, BOB, game_message
from tg_durak.emulator import FakeTelegram
from tg_durak.i18n.translate import translator
from tg_durak.render.cards import card_label
from tg_durak.storage import Store


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


async def test_garbage_foreign_and_stale_taps_change_nothing(tg, bot, store) -> None:
    await _start_game(tg)
    message = await _when_alice_can_play(tg)
    version = await _version(store)

    for junk in (b"\xff\xfe garbage", b"m:1:2", b"m:x:y:z:1:1", b"s:bots:99", b"l:xx", b""):
        answer = await tg.press(ALICE, message, junk)
        assert answer.text == "Unknown button." and answer.show_alert, junk

    await tg.send_text(BOB, "/start")
    await tg.wait_for(lambda: tg.last_message(BOB) is not None)
    card = next(b for r in message.buttons for b in r if b.text.startswith("•"))
    # Bob forges Alice's button on a message of his own chat.
    answer = await tg.press(BOB, tg.last_message(BOB), card.callback_data.encode())
    assert answer.text == "You are not playing at this table."

    forged = card.callback_data.split(":")
    forged[2] = str(int(forged[2]) - 1)   # a version the table has left behind
    answer = await tg.press(ALICE, message, ":".join(forged).encode())
    assert "moved on" in answer.text

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
