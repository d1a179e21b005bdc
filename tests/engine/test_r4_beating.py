"""R4: which card beats which."""

from __future__ import annotations

from engine import Game
from tests.helpers.deals import assert_illegal, attack, deal, defend, table


def defends(game: Game) -> set[tuple[str, int]]:
    moves = game.legal_actions(game.defender)
    return {(str(a.card), a.target) for a in moves if a.kind == "defend"}


def test_r4_1_same_suit_higher_or_any_trump() -> None:
    """R4.1: 7♠ is beaten by a higher spade or by any trump, nothing else."""
    game = deal("7s Kd", "6s 8s 7d Ac 6h", stock="Qd Jh")
    game.apply(0, attack("7s"), 1.0)
    assert defends(game) == {("8♠", 0), ("6♥", 0)}
    for text in ("6s", "7d", "Ac"):
        assert_illegal(game, 1, defend(text, 0), 2.0)


def test_r4_1_trump_beats_a_high_non_trump() -> None:
    """R4.1: the lowest trump beats a non-trump ace."""
    game = deal("As Kd", "6h 7d", stock="Qd Jh")
    game.apply(0, attack("As"), 1.0)
    game.apply(1, defend("6h", 0), 2.0)
    assert table(game) == [("A♠", "6♥")]


def test_r4_2_trump_beaten_only_by_higher_trump() -> None:
    """R4.2: a trump attack card is beaten only by a higher trump, not by any high non-trump."""
    game = deal("8h Kd", "7h 9h As Ad", stock="Qd Jh")
    game.apply(0, attack("8h"), 1.0)
    assert defends(game) == {("9♥", 0)}
    for text in ("7h", "As", "Ad"):
        assert_illegal(game, 1, defend(text, 0), 2.0)
    game.apply(1, defend("9h", 0), 2.0)
    assert table(game) == [("8♥", "9♥")]


def test_r4_3_defender_chooses_which_card_beats_which() -> None:
    """R4.3: a card that beats several attack cards may be put on any of them."""
    game = deal("7s 7d Kc", "9h 8d", "Qc Qs", stock="Jd 6h")
    game.apply(0, attack("7s"), 1.0)
    game.apply(0, attack("7d"), 1.0)
    assert defends(game) == {("9♥", 0), ("9♥", 1), ("8♦", 1)}
    game.apply(1, defend("9h", 1), 2.0)
    assert table(game) == [("7♠", None), ("7♦", "9♥")]
    assert defends(game) == set()


def test_r4_3_each_attack_card_is_beaten_once() -> None:
    """R4.3: an attack card that is already beaten cannot be beaten again."""
    game = deal("7s 7d Kc", "9h 10h 8s", stock="Jd 6h")
    game.apply(0, attack("7s"), 1.0)
    game.apply(0, attack("7d"), 1.0)
    game.apply(1, defend("9h", 0), 2.0)
    assert defends(game) == {("10♥", 1)}
    assert_illegal(game, 1, defend("8s", 0), 3.0)
    assert_illegal(game, 1, defend("10h", 0), 3.0)
