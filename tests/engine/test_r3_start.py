"""R3: who starts."""

from __future__ import annotations

import pytest

from engine import Game, Rules
from tests.helpers.deals import deal


def test_r3_1_lowest_trump_attacks_first() -> None:
    """R3.1: the holder of the lowest trump in hand leads; the face-up card does not count."""
    game = deal("6s 10h", "7h 8c", "9h 6d", stock="Jc 6h", first_attacker=None)
    assert (game.attacker, game.defender) == (1, 2)


def test_r3_1_and_r3_3_defender_wraps_around() -> None:
    """R3.1, R3.3: the defender is the next seat clockwise, wrapping past the last seat."""
    game = deal("6s 10s", "7c 8c", "9h 6d", stock="Jc Ah", first_attacker=None)
    assert (game.attacker, game.defender) == (2, 0)


def test_r3_2_no_trump_lowest_card_attacks() -> None:
    """R3.2: nobody holds a trump: the holder of the lowest card (7♦) leads."""
    game = deal("8s 9d", "7d 10s", "Qc Ks", stock="Jc Ah", first_attacker=None)
    assert (game.attacker, game.defender) == (1, 2)


@pytest.mark.parametrize(
    ("hands", "trump_card", "attacker"),
    [
        (("7s 8d", "6d 9s", "6c 10s"), "Ah", 2),  # ♣ before ♦
        (("6s 8d", "6c 9s", "7c 10s"), "Ah", 0),  # ♠ before ♣
        (("6h 8d", "6d 9s", "7s 10s"), "Ac", 1),  # ♦ before ♥
        (("6h 8d", "7d 9s", "6s 10s"), "Ac", 2),  # ♠ before ♥
    ],
)
def test_r3_2_no_trump_tie_broken_by_suit_order(
    hands: tuple, trump_card: str, attacker: int
) -> None:
    """R3.2: equal lowest ranks are ordered ♠ ♣ ♦ ♥."""
    game = deal(*hands, stock=f"Jd {trump_card}", first_attacker=None)
    assert game.attacker == attacker
    assert game.defender == (attacker + 1) % 3


def test_r3_explicit_first_attacker_overrides() -> None:
    """API: from_deal(first_attacker=k) makes seat k lead and the next seat defend."""
    game = deal("6h 10h", "7h 8c", "9h 6d", stock="Jc Ah", first_attacker=2)
    assert (game.attacker, game.defender) == (2, 0)


@pytest.mark.parametrize("seed", range(12))
def test_r3_new_game_lowest_trump_or_lowest_card(seed: int) -> None:
    """R3.1-R3.3: Game.new picks the first attacker by R3 from the dealt hands."""
    players = 2 + seed % 5
    game = Game.new(Rules(players=players), seed=seed)
    hands = {s: game.hand(s) for s in range(players)}
    trumps = [(c.rank, s) for s, h in hands.items() for c in h if c.suit == game.trump_suit]
    if trumps:
        expected = min(trumps)[1]
    else:
        order = "♠♣♦♥"
        expected = min((c.rank, order.index(c.suit), s) for s, h in hands.items() for c in h)[2]
    assert game.attacker == expected
    assert game.defender == (expected + 1) % players
