"""R6: defending, taking, the throw-in window and closing the round."""

from __future__ import annotations

import pytest

from engine import Game
from tests.helpers.deals import (
    PASS,
    TAKE,
    assert_illegal,
    attack,
    deal,
    defend,
    finish_round,
    hand,
    kinds,
    passed,
    play,
    table,
)


def unchanged_until(game: Game, now: float) -> None:
    """advance(now) before the next deadline changes nothing."""
    before = game.to_dict()
    game.advance(now)
    assert game.to_dict() == before, f"advance({now}) fired a deadline that is not due yet"


def test_r6_1_defender_beats_or_takes() -> None:
    """R6.1: facing an unbeaten card the defender may beat it or take, nothing else."""
    game = deal("7s Kd", "9s 10s Jd", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    assert kinds(game, 1) == {"defend", "take"}


def test_r6_1_defender_who_cannot_beat_may_only_take() -> None:
    """R6.1: no card beats 7♠ (trump ♥): take is the only move."""
    game = deal("7s Kd", "6s 10d Jd", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    assert kinds(game, 1) == {"take"}


def test_r6_1_defender_with_everything_beaten_waits() -> None:
    """R6.1 / API: once every attack card is beaten the defender has no move (take included)."""
    game = deal("7s Kd", "9s 10s Jd", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, defend("9s", 0), 2.0)
    assert game.legal_actions(1) == []
    assert_illegal(game, 1, TAKE, 3.0)


def test_r6_2_take_picks_up_every_table_card() -> None:
    """R6.2: the taker picks up attack and defence cards, including throw-ins after the take."""
    game = deal("7s 9d 7c Ks", "9s 10s Jd Qd", stock="6h 6d Ac")
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, defend("9s", 0), 2.0)
    game.apply(0, attack("9d"), 3.0)
    game.apply(1, TAKE, 4.0)
    assert game.taking
    assert game.legal_actions(1) == []
    assert_illegal(game, 1, TAKE, 4.5)
    game.apply(0, attack("7c"), 5.0)
    finish_round(game)
    assert hand(game, 1) == {"10♠", "J♦", "Q♦", "7♠", "9♠", "9♦", "7♣"}
    assert game.discard_count == 0
    assert not game.taking


def test_r6_3_window_runs_8_seconds_when_nobody_passes() -> None:
    """R6.3, R10.1: all beaten at t=2 and a thrower could still play: the round closes at t=10."""
    game = deal("7s 8s 9d", "9s 10s Jd Qd", stock="6h 6d Ac")
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, defend("9s", 0), 2.0)
    assert game.next_deadline == pytest.approx(10.0)
    unchanged_until(game, 9.99)
    game.advance(10.0)
    assert game.table == []
    assert game.discard_count == 2
    assert "9♦" in hand(game, 0)


def test_r6_3_new_card_interrupts_window_while_defending() -> None:
    """R6.3: a throw-in in the window gives the defender a turn; beating it reopens the window."""
    game = deal("7s 8s 9d", "9s 10s Jd Qd", stock="6h 6d Ac")
    game.apply(0, attack("7s"), 1.0)
    assert game.next_deadline == pytest.approx(31.0)
    game.apply(1, defend("9s", 0), 2.0)
    assert game.next_deadline == pytest.approx(10.0)
    game.apply(0, attack("9d"), 4.0)
    assert game.next_deadline == pytest.approx(34.0), "defender's turn clock restarts (R10.2)"
    unchanged_until(game, 20.0)
    assert table(game) == [("7♠", "9♠"), ("9♦", None)]
    game.apply(1, defend("Jd", 1), 5.0)
    # Seat 0 now holds only 8♠ (ranks on the table: 7, 9, J): nothing playable, so grace.
    assert game.next_deadline == pytest.approx(6.0)
    unchanged_until(game, 5.99)
    game.advance(6.0)
    assert game.table == []
    assert game.discard_count == 4


def test_r6_3_all_passed_closes_after_grace() -> None:
    """R6.3, R10.1: the only thrower passes at t=3 in a window opened at t=2: closes at t=4."""
    game = deal("7s 8s 9d", "9s 10s Jd Qd", stock="6h 6d Ac")
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, defend("9s", 0), 2.0)
    game.apply(0, PASS, 3.0)
    assert game.next_deadline == pytest.approx(4.0)
    unchanged_until(game, 3.99)
    game.advance(4.0)
    assert game.table == []


def test_r6_3_grace_never_outlasts_the_window() -> None:
    """R6.3 / API: a pass 0.5 s before the window's end closes the round at the window's end."""
    game = deal("7s 8s 9d", "9s 10s Jd Qd", stock="6h 6d Ac")
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, defend("9s", 0), 2.0)
    game.apply(0, PASS, 9.5)
    assert game.next_deadline == pytest.approx(10.0)


def test_r6_3_nothing_playable_closes_after_grace() -> None:
    """R6.3: the window opens and no thrower has a playable card: the round closes 1 s later."""
    game = deal("7s 8s Kd", "9s 10s Jd Qd", stock="6h 6d Ac")
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, defend("9s", 0), 2.0)
    assert game.next_deadline == pytest.approx(3.0)
    unchanged_until(game, 2.99)
    game.advance(3.0)
    assert game.table == []


def test_r6_3_every_thrower_must_pass() -> None:
    """R6.3: with two throwers holding playable cards, the grace starts after the second pass."""
    game = deal("7s 9d Kd", "9s 10s Jd Qd", "9c Qs", stock="6h 6d Ac")
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, defend("9s", 0), 2.0)
    game.apply(0, PASS, 3.0)
    assert game.next_deadline == pytest.approx(10.0)
    game.apply(2, PASS, 4.0)
    assert game.next_deadline == pytest.approx(5.0)
    game.advance(5.0)
    assert game.table == []


def test_r6_3_new_card_renews_window_while_taking() -> None:
    """R6.3: while the defender takes, each throw-in renews the 8 s window."""
    game = deal("7s 7d 7c Ks", "9s 10s Jd Qd", stock="6h 6d Ac")
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, TAKE, 2.0)
    assert game.next_deadline == pytest.approx(10.0)
    game.apply(0, attack("7d"), 4.0)
    assert game.next_deadline == pytest.approx(12.0)
    unchanged_until(game, 11.99)
    # The last playable card: the window renews to 13, but nothing is left to play: grace.
    game.apply(0, attack("7c"), 5.0)
    assert game.next_deadline == pytest.approx(6.0)
    game.advance(6.0)
    assert hand(game, 1) == {"9♠", "10♠", "J♦", "Q♦", "7♠", "7♦", "7♣"}


def test_r6_3_taker_window_closes_at_its_end() -> None:
    """R6.3: a take at t=2 with a thrower who never acts: the taker picks up at t=10."""
    game = deal("7s 7d Ks", "9s 10s Jd Qd", stock="6h 6d Ac")
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, TAKE, 2.0)
    unchanged_until(game, 9.99)
    game.advance(10.0)
    assert "7♠" in hand(game, 1)
    assert game.table == []


def test_r6_3_defence_card_of_a_new_rank_cancels_passes() -> None:
    """R6.3: a new rank on the table (here the defence card 9♠) cancels every pass."""
    game = deal("7s 9d Kd", "9s 10s Jd Qd", "9c Qs", stock="6h 6d Ac")
    game.apply(0, attack("7s"), 1.0)
    game.apply(2, PASS, 1.5)
    game.apply(0, PASS, 1.6)
    assert passed(game) == frozenset({0, 2})
    game.apply(1, defend("9s", 0), 2.0)
    assert passed(game) == frozenset()
    assert game.next_deadline == pytest.approx(10.0)


def test_r6_3_defence_card_of_a_rank_on_the_table_keeps_passes() -> None:
    """R6.3: beating 7♠ with the trump 7♥ brings no new rank: the passes stand."""
    game = deal("7s 9d Kd", "7h 10s Jd Qd", "9c Qs", stock="6c 6d Ah")
    game.apply(0, attack("7s"), 1.0)
    game.apply(2, PASS, 1.5)
    game.apply(1, defend("7h", 0), 2.0)
    assert passed(game) == frozenset({2})


def test_r6_3_throw_in_of_a_rank_on_the_table_keeps_passes() -> None:
    """R6.3: only a new rank cancels passes; another 7 does not."""
    game = deal("7s 7d Kd", "9s 10s Jd Qd", "9c Qs", stock="6h 6d Ac")
    game.apply(0, attack("7s"), 1.0)
    game.apply(2, PASS, 1.5)
    game.apply(0, attack("7d"), 2.0)
    assert passed(game) == frozenset({2})


def test_r6_3_take_cancels_passes() -> None:
    """R6.3: the defender's decision to take cancels every pass."""
    game = deal("7s 7d Kd", "9s 10s Jd Qd", "7c Qs", stock="6h 6d Ac")
    game.apply(0, attack("7s"), 1.0)
    play(game, 1.5, (2, PASS), (0, PASS))
    game.apply(1, TAKE, 2.0)
    assert passed(game) == frozenset()
    assert game.next_deadline == pytest.approx(10.0)


def test_r6_4_beaten_cards_go_to_the_discard() -> None:
    """R6.4: after a defence every table card is discarded (only the count is public)."""
    game = deal("7s 7d 8s", "9s 8d Jd Qd", stock="6h 6d Ac")
    play(game, 1.0, (0, attack("7s")), (0, attack("7d")))
    play(game, 2.0, (1, defend("9s", 0)), (1, defend("8d", 1)))
    finish_round(game)
    assert game.discard_count == 4
    assert game.table == []
    held = {str(c) for s in range(2) for c in game.hand(s)}
    assert held.isdisjoint({"7♠", "7♦", "9♠", "8♦"})


def test_r6_5_defender_attacks_after_a_defence() -> None:
    """R6.5: after a successful defence the defender leads; the next seat defends."""
    game = deal("7s Kd", "9s 10s Jd", "Qc Qs", stock="6h 6d Ac")
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, defend("9s", 0), 2.0)
    finish_round(game)
    assert (game.attacker, game.defender) == (1, 2)


def test_r6_5_after_a_take_the_taker_skips_his_attack() -> None:
    """R6.5: after a take the seat after the taker leads."""
    game = deal("7s Kd", "9s 10s Jd", "Qc Qs", stock="6h 6d Ac")
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, TAKE, 2.0)
    finish_round(game)
    assert (game.attacker, game.defender) == (2, 0)


def test_r6_5_two_players_take_attacker_leads_again() -> None:
    """R6.5: with two players the attacker leads again after the defender took."""
    game = deal("7s Kd", "9s 10s Jd", stock="6h 6d Ac")
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, TAKE, 2.0)
    finish_round(game)
    assert (game.attacker, game.defender) == (0, 1)
    assert {a.kind for a in game.legal_actions(0)} == {"attack"}
