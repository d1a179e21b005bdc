"""R2: the deal and the trump."""

from __future__ import annotations

import pytest

from engine import Game, Rules
from tests.helpers.deals import PASS, attack, card, deal, defend, finish_round, hand, play


@pytest.mark.parametrize(("players", "deck"), [(2, 36), (3, 36), (4, 24), (5, 52), (6, 36)])
def test_r2_1_six_cards_each(players: int, deck: int) -> None:
    """R2.1: every player is dealt six cards."""
    game = Game.new(Rules(players=players, deck=deck), seed=3)
    assert [len(game.hand(s)) for s in range(players)] == [6] * players


def test_r2_1_the_deal_is_a_function_of_the_seed() -> None:
    """R2.1, R3.2: the same seed gives the same deal; different seeds shuffle differently."""
    rules = Rules(players=3)
    assert Game.new(rules, seed=11).to_dict() == Game.new(rules, seed=11).to_dict()
    deals = {tuple(str(c) for c in Game.new(rules, seed=s).hand(0)) for s in range(8)}
    assert len(deals) > 1


@pytest.mark.parametrize("seed", range(5))
def test_r2_2_face_up_trump_card_names_the_trump(seed: int) -> None:
    """R2.2: with stock left, the face-up card is in nobody's hand and its suit is trump."""
    game = Game.new(Rules(players=3), seed=seed)
    assert game.trump_card is not None
    assert game.trump_suit == game.trump_card.suit
    assert all(game.trump_card not in game.hand(s) for s in range(3))


def test_r2_2_from_deal_trump_card_is_last_of_stock() -> None:
    """R2.2: stock[-1] is the face-up trump card."""
    game = deal("6s 7s", "8s 9s", stock="Jc Qd Ah")
    assert game.trump_card == card("A♥")
    assert game.trump_suit == "♥"
    assert game.stock_count == 3


def test_r2_2_trump_card_is_the_last_card_drawn() -> None:
    """R2.2, R7.1: the face-up card is drawn last; the trump suit stays once it has been drawn."""
    game = deal("6s Ks Kd Kc Qs Qd", "7s Js Jd Jc 10s 10d", stock="9c Ah")
    play(game, 1.0, (0, attack("6s")), (1, defend("7s", 0)))
    game.apply(0, PASS, 2.0)
    finish_round(game)
    assert game.table == []
    assert game.stock_count == 0
    assert game.trump_card is None
    assert game.trump_suit == "♥"
    assert "9♣" in hand(game, 0)
    assert "A♥" in hand(game, 1)


@pytest.mark.parametrize(("players", "deck"), [(6, 36), (4, 24)])
def test_r2_3_no_stock_trump_is_a_dealt_card(players: int, deck: int) -> None:
    """R2.3: when the deal leaves no stock, the trump is the suit of a card that stays in a hand."""
    for seed in range(4):
        game = Game.new(Rules(players=players, deck=deck), seed=seed)
        assert game.stock_count == 0
        assert game.trump_card is None
        assert game.trump_suit in "♠♣♦♥"
        assert any(c.suit == game.trump_suit for s in range(players) for c in game.hand(s))


@pytest.mark.parametrize("spelling", ["h", "♥"])
def test_r2_3_from_deal_without_stock_takes_the_named_trump(spelling: str) -> None:
    """R2.3 / API: with an empty stock, from_deal's `trump` names the trump suit."""
    game = deal("6s 7h", "8s 9d", trump=spelling)
    assert game.trump_suit == "♥"
    assert game.trump_card is None
    assert game.stock_count == 0



def test_r2_from_deal_accepts_card_strings() -> None:
    """API: from_deal takes cards as strings in either suit spelling."""
    game = Game.from_deal(
        Rules(), [["6s", "7♠"], ["10h", "Q♦"]], ["Jc", "A♥"], first_attacker=0
    )
    assert hand(game, 0) == {"6♠", "7♠"}
    assert hand(game, 1) == {"10♥", "Q♦"}
    assert game.trump_card == card("Ah")


def test_r2_new_game_first_deadline_counts_from_now() -> None:
    """API, R10.2: Game.new(now=t) gives the first attacker until t + 30 s to lead."""
    game = Game.new(Rules(), seed=5, now=1000.0)
    assert game.next_deadline == pytest.approx(1030.0)
