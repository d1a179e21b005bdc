"""R7: drawing up to six after each round."""

from __future__ import annotations

from tests.helpers.deals import PASS, TAKE, attack, deal, defend, finish_round, hand, play


def test_r7_1_lead_attacker_then_other_attacker_then_defender() -> None:
    """R7.1, R7.2: 0 (led) draws first, then 2 (threw in), defender 1 last; the stock runs out."""
    game = deal(
        "6s Ks Kd Kc Qs", "7s Js Jd Jc Qd", "6c 9s 9d 9c 10s", stock="Qc Ac As Ah"
    )
    game.apply(0, attack("6s"), 1.0)
    game.apply(2, attack("6c"), 1.5)
    play(game, 2.0, (1, defend("7s", 0)), (1, defend("Jc", 1)))
    finish_round(game)
    assert hand(game, 0) == {"K♠", "K♦", "K♣", "Q♠", "Q♣", "A♣"}
    assert hand(game, 2) == {"9♠", "9♦", "9♣", "10♠", "A♠", "A♥"}
    assert hand(game, 1) == {"J♠", "J♦", "Q♦"}, "R7.2: the defender draws last and gets nothing"
    assert game.stock_count == 0
    assert game.trump_card is None


def test_r7_1_every_attacker_draws_in_seat_order_four_players() -> None:
    """R7.1, R2.2: order 0 (lead), 2, 3 (did not throw in), defender 1; the trump card last."""
    game = deal(
        "6s Ks Kd",
        "7s 7c Qd Jd Js Jc",
        "6c 9s 9d 9c 10s",
        "10d 10c 8s 8d 8c",
        stock="Qs Qc Ac As Kh Ah 10h 9h",
    )
    game.apply(0, attack("6s"), 1.0)
    game.apply(2, attack("6c"), 1.5)
    play(game, 2.0, (1, defend("7s", 0)), (1, defend("7c", 1)))
    finish_round(game)
    assert hand(game, 0) == {"K♠", "K♦", "Q♠", "Q♣", "A♣", "A♠"}
    assert hand(game, 2) == {"9♠", "9♦", "9♣", "10♠", "K♥", "A♥"}
    assert hand(game, 3) == {"10♦", "10♣", "8♠", "8♦", "8♣", "10♥"}
    assert hand(game, 1) == {"Q♦", "J♦", "J♠", "J♣", "9♥"}
    assert game.stock_count == 0


def test_r7_1_nobody_draws_above_six() -> None:
    """R7.1: a player with six or more cards draws nothing; the others fill up to six."""
    game = deal("6s Ks Kd Kc Qs Qd Qc", "7s 8s 8d 8c 9s 9d", stock="9c 10c Ah")
    game.apply(0, attack("6s"), 1.0)
    game.apply(1, defend("7s", 0), 2.0)
    game.apply(0, PASS, 3.0)
    finish_round(game)
    assert hand(game, 0) == {"K♠", "K♦", "K♣", "Q♠", "Q♦", "Q♣"}
    assert hand(game, 1) == {"8♠", "8♦", "8♣", "9♠", "9♦", "9♣"}
    assert game.stock_count == 2


def test_r7_1_taker_draws_last() -> None:
    """R7.1: after a take the defender (taker) still draws after every attacker."""
    game = deal("6s Ks Kd Kc Qs Qd", "9s", "10s 10d 10c 8s 8d", stock="Jc Qc Ah")
    game.apply(0, attack("6s"), 1.0)
    game.apply(1, TAKE, 2.0)
    finish_round(game)
    assert "J♣" in hand(game, 0)
    assert "Q♣" in hand(game, 2)
    assert hand(game, 1) == {"9♠", "6♠", "A♥"}
