"""Illegal moves raise IllegalMove with a reason and leave the game exactly as it was."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine import Action, Card, Game
from tests.helpers.deals import PASS, TAKE, assert_illegal, attack, card, deal, defend, transfer


def after_lead(variant: str = "throw-in") -> Game:
    """Trump ♥; seat 0 led 7♠ to seat 1 at t=1; seat 2 may throw in."""
    game = deal("7s 9c Kd 8s", "7d 9s 10s Jd", "7c Qs", stock="6c 6d Ah", variant=variant)
    game.apply(0, attack("7s"), 1.0)
    return game


def at_start() -> Game:
    return deal("7s 9c Kd 8s", "7d 9s 10s Jd", "7c Qs", stock="6c 6d Ah")


def at_limit() -> Game:
    """The defender held 2 cards: two attack cards are the limit."""
    game = deal("7s 7c 7h", "9s 9d", stock="6c 6d Ah")
    game.apply(0, attack("7s"), 1.0)
    game.apply(0, attack("7c"), 1.0)
    return game


def taking() -> Game:
    game = after_lead()
    game.apply(1, TAKE, 1.5)
    return game


def all_beaten() -> Game:
    game = after_lead()
    game.apply(1, defend("9s", 0), 1.5)
    return game


CASES: list[tuple[str, Callable[[], Game], int, Action]] = [
    ("card not in hand (lead)", at_start, 0, attack("Qd")),
    ("card in another hand (lead)", at_start, 0, attack("7c")),
    ("lead by a non-attacker", at_start, 1, attack("9s")),
    ("lead by a third seat", at_start, 2, attack("Qs")),
    ("pass on an empty table", at_start, 0, PASS),
    ("take on an empty table", at_start, 1, TAKE),
    ("defend on an empty table", at_start, 1, defend("9s", 0)),
    ("throw-in of a card not in hand", after_lead, 2, attack("7d")),
    ("throw-in of a rank not on the table", after_lead, 0, attack("Kd")),
    ("defender throws in", after_lead, 1, attack("7d")),
    ("defender passes", after_lead, 1, PASS),
    ("attacker takes", after_lead, 0, TAKE),
    ("thrower defends", after_lead, 2, defend("Qs", 0)),
    ("defend with a card that does not beat", after_lead, 1, defend("Jd", 0)),
    ("defend with a card of another hand", after_lead, 1, defend("Qs", 0)),
    ("defend with a trump not in hand", after_lead, 1, defend("Ah", 0)),
    ("defend target past the table", after_lead, 1, defend("9s", 1)),
    ("defend target negative", after_lead, 1, defend("9s", -1)),
    ("defend without target", after_lead, 1, Action("defend", card("9s"))),
    ("defend without card", after_lead, 1, Action("defend", None, 0)),
    ("attack without card", after_lead, 0, Action("attack")),
    ("unknown kind", after_lead, 0, Action("dance")),
    ("unknown kind with a card", after_lead, 0, Action("dance", card("9c"))),
    ("transfer in the throw-in game", after_lead, 1, transfer("7d")),
    ("show trump in the throw-in game", after_lead, 1, Action("show_trump", card("7d"))),
    ("transfer by a thrower", lambda: after_lead("transfer"), 2, transfer("7c")),
    ("transfer with a card of another rank", lambda: after_lead("transfer"), 1, transfer("9s")),
    ("seat out of range", after_lead, 3, PASS),
    ("seat far out of range", after_lead, 99, PASS),
    ("negative seat (untrusted input must not crash)", after_lead, -1, PASS),
    ("forged 2♠ in a 36-card game (lead)", at_start, 0, Action("attack", Card(2, "♠"))),
    ("forged 5♥ beats 7♠ as a trump", after_lead, 1, Action("defend", Card(5, "♥"), 0)),
    ("forged 2♠ as throw-in", after_lead, 2, Action("attack", Card(2, "♠"))),
    ("over the limit", at_limit, 0, attack("7h")),
    ("take twice", taking, 1, TAKE),
    ("defend after take", taking, 1, defend("9s", 0)),
    ("take with everything beaten", all_beaten, 1, TAKE),
    ("defend an already beaten card", all_beaten, 1, defend("10s", 0)),
    ("pass twice", lambda: _passed(after_lead()), 2, PASS),
]


def _passed(game: Game) -> Game:
    game.apply(2, PASS, 1.2)
    return game


@pytest.mark.parametrize(("name", "setup", "seat", "action"), CASES, ids=[c[0] for c in CASES])
def test_illegal_move_raises_and_changes_nothing(
    name: str, setup: Callable[[], Game], seat: int, action: Action
) -> None:
    """R4-R9 / API: every kind of illegal move raises IllegalMove; to_dict() is unchanged."""
    game = setup()
    if 0 <= seat < game.rules.players:
        assert action not in game.legal_actions(seat)
    assert_illegal(game, seat, action, 2.0)


def test_forged_card_in_a_24_card_game() -> None:
    """R1.1: a 6♠ does not exist in a 24-card game, even if a forged action names it."""
    game = deal("9s 10s", "Js Qs", stock="Kc Ah", deck=24)
    assert_illegal(game, 0, Action("attack", Card(6, "♠")), 1.0)


def test_illegal_move_after_game_over() -> None:
    """R8.2: nothing is legal once the game is over."""
    game = deal("6s", "7s", trump="h")
    game.apply(0, attack("6s"), 1.0)
    game.apply(1, defend("7s", 0), 2.0)
    game.advance(100.0)
    assert game.is_over
    assert_illegal(game, 0, attack("6s"), 101.0)
    assert_illegal(game, 1, PASS, 101.0)
