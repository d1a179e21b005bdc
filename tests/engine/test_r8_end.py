"""R8: leaving the game, the durak, draws."""

from __future__ import annotations

from engine import Game
from tests.helpers.deals import (
    TAKE,
    assert_illegal,
    attack,
    deal,
    defend,
    finish_round,
    play,
    transfer,
)


def test_r8_1_player_leaves_mid_round_when_out_of_cards() -> None:
    """R8.1, R8.4: with no stock, a thrower who plays his last card leaves at once; the round
    goes on, and after the take the seat after the taker that is still in (0, not 2) leads."""
    game = deal("6s 8c", "9d 10d", "6c", trump="h")
    game.apply(0, attack("6s"), 1.0)
    game.apply(2, attack("6c"), 1.5)
    assert game.active_seats == [0, 1]
    assert game.finished_order == [2]
    assert not game.is_over
    assert len(game.table) == 2
    game.apply(1, TAKE, 2.0)
    finish_round(game)
    assert not game.is_over
    assert (game.attacker, game.defender) == (0, 1)


def test_r8_4_defender_is_next_active_after_attacker() -> None:
    """R8.4, R3.3: after a defence the defender leads and the next *active* seat defends."""
    game = deal("6s Kd", "7s 7c 10d", "6c", "Qc Kc", trump="h")
    game.apply(0, attack("6s"), 1.0)
    game.apply(2, attack("6c"), 1.5)
    play(game, 2.0, (1, defend("7s", 0)), (1, defend("7c", 1)))
    finish_round(game)
    assert game.active_seats == [0, 1, 3]
    assert (game.attacker, game.defender) == (1, 3)


def test_r8_1_defender_leaves_with_his_last_beat() -> None:
    """R8.1, R8.4: a defender who beats with his last card leaves; the next active seat leads."""
    game = deal("6s Kd", "7s", "Qc Kc", trump="h")
    game.apply(0, attack("6s"), 1.0)
    game.apply(1, defend("7s", 0), 2.0)
    assert game.finished_order == [1]
    assert game.active_seats == [0, 2]
    finish_round(game)
    assert not game.is_over
    assert (game.attacker, game.defender) == (2, 0)


def test_r8_2_last_player_with_cards_is_durak() -> None:
    """R8.2, R8.5: one player left holding cards is the durak; he cannot end the round with an
    empty hand (two cards for one attack), so the game ends at once (before R8.5 the round was
    played to its close, with the same result)."""
    game = deal("6s", "7s 8d", trump="h")
    game.apply(0, attack("6s"), 1.0)
    assert game.finished_order == [0]
    assert game.is_over
    assert game.durak == 1
    assert game.finished_order == [0]
    assert game.next_deadline is None
    assert [game.legal_actions(s) for s in range(2)] == [[], []]
    assert_illegal(game, 1, attack("8d"), 10.0)


def test_r8_2_durak_after_a_take() -> None:
    """R8.2: a taker left alone with cards is the durak; the others are ranked as they left."""
    game = deal("6s", "9d 10d", "6c", trump="h")
    game.apply(0, attack("6s"), 1.0)
    game.apply(1, TAKE, 2.0)
    game.apply(2, attack("6c"), 2.5)
    finish_round(game)
    assert game.is_over
    assert game.durak == 1
    assert game.finished_order == [0, 2]


def test_r8_2_players_leaving_together_are_ranked_in_drawing_order() -> None:
    """R8.2, R7.1: the last stock card goes to 0; 2 and 1 leave at once, 2 first (draws before
    the defender)."""
    game = deal("6s", "7s 7d", "6d", stock="Ah")
    game.apply(0, attack("6s"), 1.0)
    game.apply(2, attack("6d"), 1.5)
    play(game, 2.0, (1, defend("7s", 0)), (1, defend("7d", 1)))
    assert game.finished_order == [], "the stock is not empty yet: nobody leaves mid-round"
    finish_round(game)
    assert game.is_over
    assert game.finished_order == [2, 1]
    assert game.durak == 0


def test_r8_3_draw_when_last_players_run_out_together() -> None:
    """R8.3: the defender beats the final attack with his final card, no attacker has cards."""
    game = deal("6s", "7s", trump="h")
    game.apply(0, attack("6s"), 1.0)
    game.apply(1, defend("7s", 0), 2.0)
    finish_round(game)
    assert game.is_over
    assert game.durak is None
    assert game.finished_order == [0, 1]
    assert game.active_seats == []  # nobody is left holding cards


def test_r8_3_draw_with_three_players() -> None:
    """R8.3: three players, all out in the last round: a draw."""
    game = deal("6s", "7s 7c", "6c", trump="h")
    game.apply(0, attack("6s"), 1.0)
    game.apply(2, attack("6c"), 1.5)
    play(game, 2.0, (1, defend("7s", 0)), (1, defend("7c", 1)))
    finish_round(game)
    assert game.is_over
    assert game.durak is None
    assert game.finished_order == [0, 2, 1]


def test_r8_3_no_draws_option_makes_final_defender_durak() -> None:
    """R8.3 option "no draws": the final defender of that round is the durak; R8.5: so once 0
    is out, nothing 1 does can change it and the game ends at once."""
    game = deal("6s", "7s", trump="h", no_draws=True)
    game.apply(0, attack("6s"), 1.0)
    assert game.is_over
    assert game.durak == 1
    assert game.finished_order == [0]


def test_r8_3_draw_after_a_transfer_with_the_last_card() -> None:
    """R8.1, R8.3, R9.3: 1 transfers with his last card and leaves; 0 beats both with his last
    two: the last players ran out together, a draw."""
    game = deal("7s 8s 8d", "7d", trump="h", variant="transfer")
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, transfer("7d"), 2.0)
    assert game.finished_order == [1]
    assert game.defender == 0
    play(game, 3.0, (0, defend("8s", 0)), (0, defend("8d", 1)))
    finish_round(game)
    assert game.is_over
    assert game.durak is None
    assert game.finished_order == [1, 0]


def test_r8_3_no_draws_after_a_transfer_final_defender_is_durak() -> None:
    """R8.3 option "no draws": the final defender (0, after the transfer) is the durak, at once
    (R8.5) though he could beat both cards."""
    game = deal("7s 8s 8d", "7d", trump="h", variant="transfer", no_draws=True)
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, transfer("7d"), 2.0)
    assert game.is_over
    assert game.durak == 0
    assert game.finished_order == [1]


# ---- R8.5: a decided game ends at once ---------------------------------------------------------


def test_r8_5_ends_at_once_when_the_last_attacker_leaves() -> None:
    """R8.5: the stock is empty, 0 leads his last card and is safe; 1 holds two cards for one
    attack card, so whatever he does he keeps a card: no turn clock, no window, the result."""
    game = deal("6s", "7s 8d", trump="h")
    events = game.apply(0, attack("6s"), 1.0)
    assert [e.kind for e in events] == ["attack", "out", "over"]
    assert events[-1].seat == 1
    assert (game.is_over, game.durak, game.finished_order) == (True, 1, [0])
    assert game.next_deadline is None and game.phase == "over"
    assert [game.legal_actions(s) for s in range(2)] == [[], []]
    assert_illegal(game, 1, defend("7s", 0), 2.0)


def test_r8_5_a_possible_draw_is_played() -> None:
    """R8.5, R8.3: 1's one card beats 0's last one: a draw is still possible, so the round is
    played; his beat empties both hands and the draw is the result at once (no window)."""
    game = deal("6s", "7s", trump="h")
    game.apply(0, attack("6s"), 1.0)
    assert not game.is_over
    assert game.next_deadline == 31.0, "R10.2: the defender's clock runs"
    assert game.legal_actions(1) == [defend("7s", 0), TAKE]
    events = game.apply(1, defend("7s", 0), 2.0)
    assert [e.kind for e in events] == ["defend", "out", "over"]
    assert (game.is_over, game.durak, game.finished_order) == (True, None, [0, 1])
    assert game.next_deadline is None


def test_r8_5_the_defender_who_could_draw_takes_and_the_game_ends() -> None:
    """R8.5: taking keeps the cards: decided, the game ends at once (also by a time-out)."""
    game = deal("6s", "7s", trump="h")
    game.apply(0, attack("6s"), 1.0)
    game.apply(1, TAKE, 2.0)
    assert (game.is_over, game.durak, game.next_deadline) == (True, 1, None)
    timed_out = deal("6s", "7s", trump="h")
    timed_out.apply(0, attack("6s"), 1.0)
    events = timed_out.advance(31.0)
    assert [e.kind for e in events] == ["timeout", "take", "over"]
    assert (timed_out.is_over, timed_out.durak) == (True, 1)


def test_r8_5_as_many_cards_as_attacks_but_no_way_to_beat_them_all() -> None:
    """R8.5: 1 holds two cards for two attack cards, but no spade beats 6♣ (trump ♥): he cannot
    end the round empty-handed, so once 2 (the last thrower) is out the game ends."""
    game = deal("6s", "7s 8s", "6c", trump="h")
    game.apply(0, attack("6s"), 1.0)
    assert not game.is_over, "R8.1: 1 and 2 still hold cards"
    game.apply(2, attack("6c"), 1.5)
    assert (game.is_over, game.durak, game.finished_order) == (True, 1, [0, 2])


def test_r8_5_a_beat_that_spoils_the_draw_ends_the_game() -> None:
    """R8.5: 7♠ only beats 6♠, 7♥ (trump) beats either: 1 could still draw; beating 6♠ with
    7♥ leaves 7♠ against 6♣, and the game ends at once."""
    game = deal("6s", "7s 7h", "6c", trump="h")
    play(game, 1.0, (0, attack("6s")), (2, attack("6c")))
    assert not game.is_over, "R8.5: 7♠ on 6♠ and 7♥ on 6♣ would draw"
    game.apply(1, defend("7h", 0), 2.0)
    assert (game.is_over, game.durak) == (True, 1)


def test_r8_5_the_defender_leaving_ends_the_game_for_the_one_left() -> None:
    """R8.5, R8.1: 1 beats with his last card and is safe; 0 keeps 9♣ and has nothing left to
    play (the limit is reached): he is the durak at once, without the window."""
    game = deal("6s 9c", "7s", trump="h")
    game.apply(0, attack("6s"), 1.0)
    events = game.apply(1, defend("7s", 0), 2.0)
    assert [e.kind for e in events] == ["defend", "out", "over"]
    assert (game.is_over, game.durak, game.finished_order) == (True, 0, [1])


def test_r8_5_two_players_left_play_on() -> None:
    """R8.5, R8.1: with two players still holding cards nothing is decided."""
    game = deal("6s", "7s 8d", "9c", trump="h")
    game.apply(0, attack("6s"), 1.0)
    assert game.active_seats == [1, 2] and not game.is_over
    assert game.next_deadline == 31.0


def test_r8_5_a_forced_last_lead_decides_the_game() -> None:
    """R8.5, R10.2: 0's clock runs out; his forced lead is his last card; 1 cannot draw."""
    game = deal("6s", "7c 8d", trump="h")
    events = game.advance(30.0)
    assert [e.kind for e in events] == ["timeout", "attack", "out", "over"]
    assert (game.is_over, game.durak) == (True, 1)


def test_r8_5_the_early_end_replays_exactly() -> None:
    """R8.5, R10.5: the end comes from the move itself, so the log replays to it."""
    game = deal("6s", "7s 8d", trump="h")
    game.apply(0, attack("6s"), 1.0)
    d = game.to_dict()
    assert Game.replay(d).to_dict() == d
