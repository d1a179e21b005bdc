"""R5: leading, throwing in, the attack limit and passing."""

from __future__ import annotations

import pytest

from engine import Action, Game
from tests.helpers.deals import (
    PASS,
    TAKE,
    assert_illegal,
    attack,
    cards,
    deal,
    defend,
    finish_round,
    hand,
    kinds,
    passed,
    play,
    table,
)


def attacks(game: Game, seat: int) -> set[str]:
    return {str(a.card) for a in game.legal_actions(seat) if a.kind == "attack"}


def test_r5_1_lead_any_card_only_by_the_attacker() -> None:
    """R5.1: the attacker may lead any card of his hand; nobody else may act on an empty table."""
    game = deal("7s Kd 6h", "8c 9s", "Qc Js", stock="Jd Ah")
    assert set(game.legal_actions(0)) == {Action("attack", c) for c in cards("7s Kd 6h")}
    assert game.legal_actions(1) == []
    assert game.legal_actions(2) == []
    assert_illegal(game, 2, attack("Qc"), 1.0)
    assert_illegal(game, 1, attack("8c"), 1.0)
    assert_illegal(game, 0, PASS, 1.0)
    game.apply(0, attack("Kd"), 1.0)
    assert table(game) == [("K♦", None)]
    assert hand(game, 0) == {"7♠", "6♥"}


def test_r5_1_several_cards_of_one_rank_may_be_led() -> None:
    """R5.1: after the lead the attacker may add the other cards of the same rank at once."""
    game = deal("7s 7d 7c Kd", "8c 9s 10s Jd", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    assert attacks(game, 0) == {"7♦", "7♣"}
    play(game, 1.0, (0, attack("7d")), (0, attack("7c")))
    assert table(game) == [("7♠", None), ("7♦", None), ("7♣", None)]


def test_r5_2_every_non_defender_may_throw_in_while_defender_beats() -> None:
    """R5.2: any active non-defender throws in a rank on the table, even before any beat."""
    game = deal("7s Kd", "8c 9s 10s Jd", "7d Qc", "7c Qs", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    assert attacks(game, 2) == {"7♦"}
    assert attacks(game, 3) == {"7♣"}
    assert "attack" not in kinds(game, 1)
    game.apply(3, attack("7c"), 2.0)
    game.apply(2, attack("7d"), 2.5)
    assert table(game) == [("7♠", None), ("7♣", None), ("7♦", None)]


def test_r5_2_throw_in_ranks_are_attack_and_defence_ranks() -> None:
    """R5.2: ranks of defence cards are open for throw-ins as well; other ranks are not."""
    game = deal("7s 9d 7c Kd", "9s 10s Jd Qd", "Js 8h", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    assert attacks(game, 0) == {"7♣"}
    game.apply(1, defend("9s", 0), 2.0)
    assert attacks(game, 0) == {"7♣", "9♦"}
    assert attacks(game, 2) == set()
    assert_illegal(game, 0, attack("Kd"), 3.0)
    assert_illegal(game, 2, attack("Js"), 3.0)


def test_r5_2_neighbours_option_four_players() -> None:
    """R5.2 option "neighbours": with 4 players only the seats next to the defender throw in."""
    game = deal("7s Kd", "8c 9s 10s Jd", "7d Qc", "7c Qs", stock="Jc Ah", throw_in="neighbours")
    game.apply(0, attack("7s"), 1.0)
    assert attacks(game, 2) == {"7♦"}
    assert game.legal_actions(3) == []
    assert_illegal(game, 3, attack("7c"), 2.0)
    assert_illegal(game, 3, PASS, 2.0)
    game.apply(2, attack("7d"), 2.0)
    game.apply(0, PASS, 2.0)
    assert table(game) == [("7♠", None), ("7♦", None)]


def test_r5_2_neighbours_option_five_players() -> None:
    """R5.2 option "neighbours": with 5 players, seats 3 and 4 (not next to defender 1) may not."""
    game = deal(
        "7s Kd", "8c 9s 10s Jd", "Qd Qc", "7c Qs", "7d Ks", stock="Jc Ah", throw_in="neighbours"
    )
    game.apply(0, attack("7s"), 1.0)
    assert game.legal_actions(3) == []
    assert game.legal_actions(4) == []
    assert kinds(game, 2) == {"pass"}


def test_r5_2_neighbours_with_three_players_is_everyone() -> None:
    """R5.2 option "neighbours": with 3 players both non-defenders are neighbours."""
    game = deal("7s Kd", "8c 9s 10s Jd", "7d Qc", stock="Jc Ah", throw_in="neighbours")
    game.apply(0, attack("7s"), 1.0)
    assert attacks(game, 2) == {"7♦"}


def test_r5_2_all_option_four_players_everyone() -> None:
    """R5.2 default "all": the seat across the table (not next to the defender) throws in too."""
    game = deal("7s Kd", "8c 9s 10s Jd", "7d Qc", "7c Qs", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    assert attacks(game, 3) == {"7♣"}
    assert "pass" in kinds(game, 3)


def test_r5_3_at_most_six_attack_cards() -> None:
    """R5.3: never more than 6 attack cards in a round, even if the defender holds more."""
    game = deal("6s 6h 6c 6d 7h 7c 7d", "7s As Ah Ac Ks Kh Kc", stock="9s 9h 9c 10s Jd")
    play(game, 1.0, (0, attack("6s")), (0, attack("6h")), (0, attack("6c")))
    game.apply(1, defend("7s", 0), 2.0)
    play(game, 3.0, (0, attack("7h")), (0, attack("7c")), (0, attack("7d")))
    assert len(game.table) == 6
    assert game.attack_limit == 6
    assert attacks(game, 0) == set()
    assert_illegal(game, 0, attack("6d"), 4.0)


def test_r5_3_limit_is_defenders_hand_at_start_of_round() -> None:
    """R5.3: the limit is the defender's hand when the round began (3), not his current hand."""
    game = deal("7s 7d 7c 9c 8s", "9s 9d 8c", stock="Jc Qc Ah")
    game.apply(0, attack("7s"), 1.0)
    assert game.attack_limit == 3
    game.apply(1, defend("9s", 0), 2.0)
    assert game.attack_limit == 3
    play(game, 3.0, (0, attack("7d")), (0, attack("7c")))
    assert len(game.table) == 3
    assert attacks(game, 0) == set()
    assert_illegal(game, 0, attack("9c"), 4.0)


def test_r5_3_limit_holds_when_the_defender_takes() -> None:
    """R5.3, R6.2: throw-ins to a taker stay within the limit set at the start of the round."""
    game = deal("7s 7d 7c Qs", "9s 9d", stock="Jc Qc Ah")
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, TAKE, 2.0)
    game.apply(0, attack("7d"), 3.0)
    assert attacks(game, 0) == set()
    assert game.next_deadline == pytest.approx(4.0), "R6.3: limit reached, so only the grace"
    assert_illegal(game, 0, attack("7c"), 3.5)
    finish_round(game)
    assert hand(game, 1) == {"9♠", "9♦", "7♠", "7♦"}


def test_r5_3_first_round_limit_option_applies_to_the_first_round_only() -> None:
    """R5.3 option: first_round_limit=5 caps round one at 5 cards; round two is back to 6."""
    game = deal(
        "6s 6h 6c 6d 7h 7c 7d", "7s As Ah Ac Ks Kh Kc",
        stock="9s 9h 9c 10s Jd", first_round_limit=5,
    )
    play(game, 1.0, (0, attack("6s")), (0, attack("6h")), (0, attack("6c")))
    assert game.attack_limit == 5
    game.apply(1, defend("7s", 0), 2.0)
    play(game, 3.0, (0, attack("7h")), (0, attack("7c")))
    assert len(game.table) == 5
    assert attacks(game, 0) == set()
    assert_illegal(game, 0, attack("7d"), 4.0)
    assert_illegal(game, 0, attack("6d"), 4.0)
    game.apply(1, TAKE, 5.0)
    finish_round(game)
    assert (game.attacker, game.defender) == (0, 1)
    assert len(game.hand(1)) == 12
    game.apply(0, attack("9s"), 10.0)
    assert game.attack_limit == 6


def test_r5_3_default_first_round_is_not_limited_to_five() -> None:
    """R5.3: without the option the first round allows 6 attack cards."""
    game = deal("6s 6h 6c 6d 7h 7c 7d", "7s As Ah Ac Ks Kh Kc", stock="9s 9h 9c 10s Jd")
    game.apply(0, attack("6s"), 1.0)
    assert game.attack_limit == 6


def test_r5_4_pass_stands_and_passer_may_still_throw_in() -> None:
    """R5.4: once a card is down a thrower may pass; the pass stands; he may still throw in."""
    game = deal("7s 7d Kd", "8c 9s 10s Jd", "7c Qs", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    game.apply(2, PASS, 2.0)
    assert passed(game) == frozenset({2})
    assert "pass" not in kinds(game, 2)
    assert_illegal(game, 2, PASS, 2.5)
    assert attacks(game, 2) == {"7♣"}
    game.apply(2, attack("7c"), 3.0)
    assert table(game) == [("7♠", None), ("7♣", None)]


def test_r5_4_defender_never_passes_or_throws_in() -> None:
    """R5.2, R5.4: the defender is no attacker: no pass, no throw-in."""
    game = deal("7s Kd", "7d 9s 10s Jd", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    assert kinds(game, 1) <= {"defend", "take", "transfer"}
    assert_illegal(game, 1, PASS, 2.0)
    assert_illegal(game, 1, attack("7d"), 2.0)
