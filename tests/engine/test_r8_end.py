"""R8: leaving the game, the durak, draws."""

from __future__ import annotations

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
    """R8.2: the round closes with one player holding cards: he is the durak."""
    game = deal("6s", "7s 8d", trump="h")
    game.apply(0, attack("6s"), 1.0)
    assert game.finished_order == [0]
    assert not game.is_over, "R8.1: leaving does not end the round in progress"
    game.apply(1, defend("7s", 0), 2.0)
    finish_round(game)
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
    """R8.3 option "no draws": the final defender of that round is the durak."""
    game = deal("6s", "7s", trump="h", no_draws=True)
    game.apply(0, attack("6s"), 1.0)
    game.apply(1, defend("7s", 0), 2.0)
    finish_round(game)
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
    """R8.3 option "no draws": the final defender (0, after the transfer) is the durak."""
    game = deal("7s 8s 8d", "7d", trump="h", variant="transfer", no_draws=True)
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, transfer("7d"), 2.0)
    play(game, 3.0, (0, defend("8s", 0)), (0, defend("8d", 1)))
    finish_round(game)
    assert game.is_over
    assert game.durak == 0
    assert game.finished_order == [1]
