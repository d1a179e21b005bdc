"""R10: turn deadlines, time-outs, away players, and how advance() fires deadlines."""

from __future__ import annotations

import pytest

from engine import Game, Rules
from tests.helpers.deals import PASS, TAKE, attack, deal, defend, hand, table


def unchanged_until(game: Game, now: float) -> None:
    before = game.to_dict()
    game.advance(now)
    assert game.to_dict() == before, f"advance({now}) fired a deadline that is not due yet"


def chain_game() -> Game:
    """Two players who never act: every step below is a time-out."""
    return deal(
        "7s 9c Jd Ks Ad 6h", "8d 10c Qs Qd 8h Ac", stock="10s Jc Qc Ah"
    )


def test_r10_2_lead_deadline_counts_from_the_start() -> None:
    """R10.2: the leading attacker has 30 s from when the round can start."""
    game = deal("7s Kd", "9s 10s", stock="Jc Ah", now=5.0)
    assert game.next_deadline == pytest.approx(35.0)


@pytest.mark.parametrize(
    ("lead_hand", "trump_card", "played"),
    [
        ("6h 7d 7s 9c", "Ah", "7♠"),  # lowest non-trump, ♠ first among the 7s
        ("7d 7c 9s 6h", "Ah", "7♣"),  # ♣ before ♦
        ("7h 7d 8s", "Ac", "7♦"),  # ♦ before ♥
        ("As 6h", "Ah", "A♠"),  # a non-trump before any trump
        ("9h 6h Qh", "Ah", "6♥"),  # only trumps: the lowest
    ],
)
def test_r10_2_lead_timeout_plays_lowest_non_trump(
    lead_hand: str, trump_card: str, played: str
) -> None:
    """R10.2, R3.2: a leading attacker who times out plays his lowest non-trump (else lowest)
    card, ties broken by suit order ♠ ♣ ♦ ♥."""
    game = deal(lead_hand, "Js Jd Jc Qs", stock=f"Kc {trump_card}")
    unchanged_until(game, 29.99)
    game.advance(30.0)
    assert table(game) == [(played, None)]
    assert played not in hand(game, 0)


def test_r10_2_defender_timeout_takes() -> None:
    """R10.2: a defender who does not answer within 30 s takes; the window opens then."""
    game = deal("7s 7d Kd", "9s 10s Qd", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    assert game.next_deadline == pytest.approx(31.0)
    unchanged_until(game, 30.99)
    game.advance(31.0)
    assert game.taking
    assert game.next_deadline == pytest.approx(39.0), "R6.3: window counted from the time-out"


def test_r10_2_defender_clock_restarts_on_each_beat() -> None:
    """R10.2: the defender's clock restarts when he beats a card."""
    game = deal("7s 7d Kd", "9s 10s 9d", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    game.apply(0, attack("7d"), 1.0)
    game.apply(1, defend("9s", 0), 10.0)
    assert game.next_deadline == pytest.approx(40.0)


def test_r10_5_apply_never_fires_deadlines() -> None:
    """R10.5: a move made after a deadline passed, without advance(), is an ordinary move."""
    game = deal("7s Kd", "9s 10s", stock="Jc Ah")
    game.apply(0, attack("Kd"), 100.0)
    assert table(game) == [("K♦", None)]
    assert game.next_deadline == pytest.approx(130.0)


def test_r10_5_apply_after_window_end_is_still_a_throw_in() -> None:
    """R10.5: the window ended at t=10 but was not advanced: a throw-in at t=50 still counts."""
    game = deal("7s 7d Kd", "9s 10s Qd", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, defend("9s", 0), 2.0)
    assert game.next_deadline == pytest.approx(10.0)
    game.apply(0, attack("7d"), 50.0)
    assert table(game) == [("7♠", "9♠"), ("7♦", None)]
    assert game.next_deadline == pytest.approx(80.0)


def test_r10_5_each_deadline_fires_at_its_own_due_time() -> None:
    """R10.5, R10.2: one advance(100) fires the lead time-out at 30, the defender's at 60, the
    close at 61 (nothing playable), the next lead time-out at 91 -- each counted from the last."""
    game = chain_game()
    game.advance(100.0)
    assert table(game) == [("9♣", None)]
    assert {"7♠", "8♦", "10♣", "Q♠", "Q♦", "8♥", "A♣"} == hand(game, 1)
    assert hand(game, 0) == {"J♦", "K♠", "A♦", "6♥", "10♠"}
    assert game.stock_count == 3
    assert game.next_deadline == pytest.approx(121.0)
    assert (game.attacker, game.defender) == (0, 1)
    assert game.version == len(game.log) == 4, "API: the log holds each fired deadline"


def test_r10_5_one_big_advance_equals_many_small_ones() -> None:
    """R10.5: advancing in one step or step by step gives the same state."""
    big = chain_game()
    big.advance(100.0)
    small = chain_game()
    for now in (10.0, 30.0, 45.0, 60.0, 60.5, 61.0, 90.0, 91.0, 100.0):
        small.advance(now)
    assert small.to_dict() == big.to_dict()


def test_r10_2_away_after_two_consecutive_timeouts() -> None:
    """R10.2: two time-outs in a row mark a seat away; one does not."""
    game = chain_game()
    game.advance(30.0)
    assert game.away == frozenset()
    game.advance(100.0)
    assert game.away == frozenset({0})
    game.advance(121.0)
    assert game.away == frozenset({0, 1})


def test_r10_2_away_cleared_when_the_player_acts() -> None:
    """R10.2: an away player who acts again is no longer away."""
    game = chain_game()
    game.advance(100.0)
    assert game.away == frozenset({0})
    game.apply(0, PASS, 101.0)
    assert game.away == frozenset()


def test_r10_2_an_action_between_timeouts_resets_the_count() -> None:
    """R10.2: time-outs must be consecutive: time-out, own move, time-out is not away."""
    game = chain_game()
    game.advance(30.0)
    game.apply(0, PASS, 30.5)
    game.apply(1, TAKE, 31.0)
    game.advance(32.0)
    assert game.table == []
    assert game.next_deadline == pytest.approx(62.0)
    game.advance(62.0)
    assert len(game.table) == 1
    assert game.away == frozenset()


def test_r10_1_timer_options_are_used() -> None:
    """R10.1, R10.2: custom turn, window and grace lengths."""
    game = deal(
        "7s 7d Kd", "9s 10s Qd", stock="Jc Ah",
        turn_seconds=10.0, throw_in_seconds=5.0, close_grace_seconds=0.5,
    )
    assert game.next_deadline == pytest.approx(10.0)
    game.apply(0, attack("7s"), 1.0)
    assert game.next_deadline == pytest.approx(11.0)
    game.apply(1, defend("9s", 0), 2.0)
    assert game.next_deadline == pytest.approx(7.0)
    game.apply(0, PASS, 3.0)
    assert game.next_deadline == pytest.approx(3.5)


def test_r10_3_computer_delay_is_drawn_from_the_seed_within_the_range() -> None:
    """R10.3: a computer player's reaction delay is 1.5–3 s and replays exactly."""
    game = Game.new(Rules(players=3), seed=99)
    delays = [game.reaction_delay(seat) for seat in range(3)]
    assert all(1.5 <= d <= 3.0 for d in delays)
    assert len(set(delays)) == 3, "each seat draws its own delay"
    again = Game.new(Rules(players=3), seed=99)
    assert [again.reaction_delay(seat) for seat in range(3)] == delays
    other = Game.new(Rules(players=3), seed=100)
    assert [other.reaction_delay(seat) for seat in range(3)] != delays
    game.apply(game.attacker, game.legal_actions(game.attacker)[0], 1.0)
    assert game.reaction_delay(0) != delays[0], "a new position, a new draw"


def test_r10_4_postpone_moves_every_deadline_and_replays() -> None:
    """R10.4: after a restart the deadlines move by the downtime; the log keeps it."""
    game = deal("7s 8s", "9s 10s", stock="Jh Ah", first_attacker=0, now=0.0)
    assert game.next_deadline == 30.0
    game.postpone(12.5)
    assert game.next_deadline == 42.5
    assert game.advance(42.0) == [] and not game.table
    game.advance(42.5)
    assert table(game) == [("7♠", None)], "the forced lead happens at the moved deadline"
    assert Game.replay(game.to_dict()).to_dict() == game.to_dict()
