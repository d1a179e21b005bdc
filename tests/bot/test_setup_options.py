"""The extended setup end to end: /play → More options → a 24-card deck, 15 s turns, neighbours
only, 3 opponents → Start, and that game played to its result (issue 9, "Must show")."""

from __future__ import annotations

import re

import pytest

from engine import Game, ThrowIn
from tests.bot.conftest import ALICE, TIME_SCALE, game_message, is_over, play_to_end
from tg_durak.emulator import FakeTelegram
from tg_durak.storage import Store


async def _tap(tg: FakeTelegram, message_id: int, label: str, then: str) -> None:
    """Tap `label` on the setup message and wait until it shows `then` (menus are edited
    through the publisher, a moment after the tap is answered)."""
    message = await tg.wait_for(lambda: _with_button(tg, message_id, label))
    await tg.press(ALICE, message, label)
    await tg.wait_for(lambda: _with_button(tg, message_id, then), what=f"{then!r} after {label!r}")


def _with_button(tg: FakeTelegram, message_id: int, label: str):
    message = tg.message(ALICE, message_id)
    return message if any(b.text == label for row in message.buttons for b in row) else None


async def test_a_whole_game_with_options_from_the_extended_setup(tg: FakeTelegram, bot,
                                                                 store: Store) -> None:
    await tg.send_text(ALICE, "/play")
    setup = await tg.wait_for(lambda: tg.last_message(ALICE))
    setup_id = setup.message_id
    await _tap(tg, setup_id, "⚙ More options", then="⬅ Back")
    await _tap(tg, setup_id, "24 cards", then="✅ 24 cards")
    await _tap(tg, setup_id, "15 s", then="✅ 15 s")
    await _tap(tg, setup_id, "Only neighbours", then="✅ Only neighbours")
    summary = "Throw-in · 24 cards · 15 s per turn · only neighbours throw in"
    assert summary in tg.message(ALICE, setup_id).text
    await _tap(tg, setup_id, "⬅ Back", then="⚙ More options")
    await _tap(tg, setup_id, "3", then="✅ 3")
    assert summary in tg.message(ALICE, setup_id).text
    assert "Opponents: 3" in tg.message(ALICE, setup_id).text

    await tg.press(ALICE, tg.message(ALICE, setup_id), "▶ Start")
    first = await tg.wait_for(lambda: game_message(tg, ALICE))
    assert first.message_id == setup_id, "the setup message becomes the game"
    # Four players hold all 24 cards: nothing is left to draw (36 cards would leave 12).
    assert re.search(r"\bStock 0\b", first.text), first.text
    assert all(f"Computer {n}" in first.text for n in (1, 2, 3))
    assert "Computer 4" not in first.text

    final = await play_to_end(tg, ALICE, seed=5)
    assert final.message_id == setup_id and is_over(final)
    assert any(w in final.text.lower() for w in ("durak", "draw", "safe"))

    table = await store.tables.for_user(ALICE, statuses=("finished",))
    assert table is not None
    assert {k: table.options[k] for k in ("deck", "turn_seconds", "throw_in", "bots")} == {
        "deck": 24, "turn_seconds": 15, "throw_in": "neighbours", "bots": 3}
    replayed = Game.replay({**table.snapshot, "log": await store.tables.log(table.id)})
    assert replayed.to_dict(log=False) == table.snapshot, "snapshot and log agree"
    rules = replayed.rules
    assert (rules.players, rules.deck, rules.throw_in) == (4, 24, ThrowIn.NEIGHBOURS)
    assert rules.turn_seconds == pytest.approx(15 * TIME_SCALE)
    assert replayed.is_over or 0 not in replayed.active_seats

    # The choices are Alice's last settings: the next /play starts from them.
    await tg.send_text(ALICE, "/play")
    again = await tg.wait_for(lambda: (lambda m: m.message_id != setup_id and m)(
        tg.last_message(ALICE)))
    assert summary in again.text and "Opponents: 3" in again.text
