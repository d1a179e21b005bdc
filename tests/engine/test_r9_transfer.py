"""R9: the transfer game ("perevodnoy") and its show-trump option."""

from __future__ import annotations

from functools import partial

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
    show_trump,
    table,
    transfer,
)

transfer_deal = partial(deal, variant="transfer")
show_deal = partial(deal, variant="transfer", show_trump=True)


def moves(game: Game, seat: int, kind: str) -> set[str]:
    return {str(a.card) for a in game.legal_actions(seat) if a.kind == kind}


def test_r9_1_transfer_passes_the_attack_to_the_next_player() -> None:
    """R9.1: the defender adds 7♦ to 7♠; seat 2 defends both; seat 1 becomes the attacker, and
    0 is still the one who began the round (R9.6)."""
    game = transfer_deal("7s Kd", "7d 9s 10s", "Qc Qs Js", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    assert moves(game, 1, "transfer") == {"7♦"}
    game.apply(1, transfer("7d"), 2.0)
    assert (game.round_starter, game.attacker, game.defender) == (0, 1, 2)
    assert (game.view(2).round_starter, game.view(2).attacker) == (0, 1)
    assert table(game) == [("7♠", None), ("7♦", None)]
    assert hand(game, 1) == {"9♠", "10♠"}
    assert "pass" in kinds(game, 1)
    assert kinds(game, 2) == {"defend", "take"}


def test_r9_1_no_transfer_in_the_throw_in_game() -> None:
    """R9 applies only to the transfer variant: the throw-in game has no transfer."""
    game = deal("7s Kd", "7d 9s 10s", "Qc Qs Js", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    assert "transfer" not in kinds(game, 1)
    assert_illegal(game, 1, transfer("7d"), 2.0)


def test_r9_1_transfer_card_must_match_the_attack_rank() -> None:
    """R9.1: the transfer card has the rank of the attack cards."""
    game = transfer_deal("7s Kd", "8s 9s 10s", "Qc Qs Js", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    assert "transfer" not in kinds(game, 1)
    assert_illegal(game, 1, transfer("8s"), 2.0)


def test_r9_2_new_defender_needs_enough_cards() -> None:
    """R9.2: the next player must hold as many cards as attack cards after the transfer (2)."""
    game = transfer_deal("7s Kd", "7d 9s 10s", "Qc", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    assert "transfer" not in kinds(game, 1)
    assert_illegal(game, 1, transfer("7d"), 2.0)
    exactly = transfer_deal("7s Kd", "7d 9s 10s", "Qc Qs", stock="Jc Ah")
    exactly.apply(0, attack("7s"), 1.0)
    assert moves(exactly, 1, "transfer") == {"7♦"}


def test_r9_2_transfer_respects_the_round_maximum() -> None:
    """R9.2: attack cards after the transfer may not exceed the round's maximum (max_attack=2)."""
    game = transfer_deal("7s 7c Kd", "7d 9s 10s", "Qc Qs Js Jd", stock="Jc Ah", max_attack=2)
    game.apply(0, attack("7s"), 1.0)
    assert moves(game, 1, "transfer") == {"7♦"}
    game.apply(0, attack("7c"), 1.5)
    assert "transfer" not in kinds(game, 1)
    assert_illegal(game, 1, transfer("7d"), 2.0)


def test_r9_2_transfer_respects_the_first_round_limit() -> None:
    """R9.2, R5.3: in the first round the round's maximum is first_round_limit (1 here)."""
    game = transfer_deal("7s Kd", "7d 9s 10s", "Qc Qs Js", stock="Jc Ah", first_round_limit=1)
    game.apply(0, attack("7s"), 1.0)
    assert "transfer" not in kinds(game, 1)


def test_r9_3_transfer_chain_may_come_back_to_the_attacker() -> None:
    """R9.3, R9.6, R8.4: 0 -> 1 -> 2 -> 0; 0 beats all with his last cards and draws last."""
    game = transfer_deal("7s Kd Ks Kc", "7d 9s", "7c Qs Js", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, transfer("7d"), 2.0)
    assert moves(game, 2, "transfer") == {"7♣"}
    game.apply(2, transfer("7c"), 3.0)
    assert game.defender == 0
    assert game.attacker == 2, "R9.1: the last to transfer attacks"
    assert game.round_starter == 0, "R9.6: the round's starter is unchanged by a transfer"
    assert table(game) == [("7♠", None), ("7♦", None), ("7♣", None)]
    play(game, 4.0, (0, defend("Ks", 0)), (0, defend("Kd", 1)), (0, defend("Kc", 2)))
    finish_round(game)
    assert hand(game, 1) == {"9♠", "J♣", "A♥"}
    assert hand(game, 2) == {"Q♠", "J♠"}
    assert game.finished_order == [0], "R8.1: 0 has no cards and the stock is empty"
    assert (game.attacker, game.defender) == (1, 2)


def test_r9_3_two_players_transfer_back_and_forth() -> None:
    """R9.3: with two players a transfer sends the attack straight back, and back again."""
    game = transfer_deal("7s 7c Kd Ks", "7d 9s 10s Qs", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, transfer("7d"), 2.0)
    assert (game.attacker, game.defender) == (1, 0), "R9.1: never attacker and defender at once"
    assert moves(game, 0, "transfer") == {"7♣"}
    game.apply(0, transfer("7c"), 3.0)
    assert (game.attacker, game.defender) == (0, 1)
    assert game.round_starter == 0
    assert table(game) == [("7♠", None), ("7♦", None), ("7♣", None)]
    assert "transfer" not in kinds(game, 1)


def test_r9_4_limit_is_reset_by_the_new_defenders_hand() -> None:
    """R9.4, R5.3: after the transfer the limit is the new defender's hand (3), not 6."""
    game = transfer_deal(
        "7s 7c 7h Kd", "7d 9s 10s Js Qs Ks", "Qc Qd Jd", stock="6h Ac"
    )
    game.apply(0, attack("7s"), 1.0)
    assert game.attack_limit == 6
    game.apply(1, transfer("7d"), 2.0)
    assert game.attack_limit == 3
    game.apply(0, attack("7c"), 3.0)
    assert "attack" not in kinds(game, 0)
    assert_illegal(game, 0, attack("7h"), 3.5)


def test_r9_4_transfer_cancels_passes() -> None:
    """R9.4: all passes are cancelled by a transfer."""
    game = transfer_deal("7s Kd", "7d 9s 10s", "Qc Qs Js", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    play(game, 1.5, (2, PASS), (0, PASS))
    assert passed(game) == frozenset({0, 2})
    game.apply(1, transfer("7d"), 2.0)
    assert passed(game) == frozenset()


def test_r9_4_transfer_restarts_the_defenders_clock() -> None:
    """R9.4, R10.2: the new defender gets a full turn from the moment of the transfer."""
    game = transfer_deal("7s Kd", "7d 9s 10s", "Qc Qs Js", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    assert game.next_deadline == pytest.approx(31.0)
    game.apply(1, transfer("7d"), 5.0)
    assert game.next_deadline == pytest.approx(35.0)


def test_r9_5_no_transfer_after_a_beat() -> None:
    """R9.5: once the defender has beaten a card he can no longer transfer."""
    game = transfer_deal("7s 7c Kd", "7d 9s 10s Qs", stock="Jc Ah")
    play(game, 1.0, (0, attack("7s")), (0, attack("7c")))
    game.apply(1, defend("9s", 0), 2.0)
    assert "transfer" not in kinds(game, 1)
    assert_illegal(game, 1, transfer("7d"), 3.0)


def test_r9_5_no_transfer_after_take() -> None:
    """R9.5, R6.2: a defender who declared take has no more moves, transfer included."""
    game = transfer_deal("7s Kd", "7d 9s 10s", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, TAKE, 2.0)
    assert_illegal(game, 1, transfer("7d"), 3.0)


def test_r9_6_two_players_final_defender_draws_last_though_he_began() -> None:
    """R9.6, R9.1: 0 led, 1 transferred back (1 attacks, 0 defends: 0 is not both), 0 beat:
    1 draws first, the final defender 0 last."""
    game = transfer_deal("7s 8s 8d", "7d 8c 9c", stock="Jc Qc Kc As Ah")
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, transfer("7d"), 2.0)
    assert (game.round_starter, game.attacker, game.defender) == (0, 1, 0)
    play(game, 3.0, (0, defend("8s", 0)), (0, defend("8d", 1)))
    game.apply(1, PASS, 4.0)
    finish_round(game)
    assert hand(game, 1) == {"8♣", "9♣", "J♣", "Q♣", "K♣", "A♠"}
    assert hand(game, 0) == {"A♥"}
    assert (game.attacker, game.defender) == (0, 1)


def test_r9_6_after_a_transfer_and_take_the_seat_after_the_taker_leads() -> None:
    """R9 + R6.5: the final defender (0) takes; the seat after him (1) leads next."""
    game = transfer_deal("7s 9h Kd", "7d 10s Qs", stock="Jc Qc Ac")
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, transfer("7d"), 2.0)
    game.apply(0, TAKE, 3.0)
    finish_round(game)
    assert {"7♠", "7♦"} <= hand(game, 0)
    assert (game.attacker, game.defender) == (1, 0)


def test_r9_neighbours_follow_the_new_defender() -> None:
    """R5.2 option "neighbours" + R9.1: after 1 transfers to 2, only 1 and 3 may throw in."""
    game = deal(
        "7s 7c Kd", "7d 9s 10s", "Qc Qs Js", "7h Jd",
        stock="Jc As", variant="transfer", throw_in="neighbours",
    )
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, transfer("7d"), 2.0)
    assert game.legal_actions(0) == []
    assert_illegal(game, 0, attack("7c"), 2.5)
    assert moves(game, 3, "attack") == {"7♥"}
    assert "pass" in kinds(game, 1)


def test_r9_7_show_trump_is_off_by_default() -> None:
    """R9.7: without the option, showing a trump is not a move."""
    game = transfer_deal("7s Kd Ks", "7h 9s 10s", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    assert "show_trump" not in kinds(game, 1)
    assert_illegal(game, 1, show_trump("7h"), 2.0)


def test_r9_7_show_trump_transfers_and_the_trump_stays_in_hand() -> None:
    """R9.7: showing 7♥ (trump) passes 7♠ on; the new defender needs only as many cards as
    there are attack cards (1), so a laid transfer (needs 2) is not possible here."""
    game = show_deal("7s 9s", "7h 7d 10s", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    assert moves(game, 1, "show_trump") == {"7♥"}
    assert "transfer" not in kinds(game, 1)
    game.apply(1, show_trump("7h"), 2.0)
    assert game.defender == 0
    assert table(game) == [("7♠", None)]
    assert hand(game, 1) == {"7♥", "7♦", "10♠"}
    game.apply(0, defend("9s", 0), 3.0)
    assert table(game) == [("7♠", "9♠")]


def test_r9_7_show_trump_to_the_next_of_three() -> None:
    """R9.7: in a three-player game the shown trump passes the attack to seat 2."""
    game = show_deal("7s Kd", "7h 9s", "Qc Qs Js", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, show_trump("7h"), 2.0)
    assert (game.round_starter, game.attacker, game.defender) == (0, 1, 2), "R9.1"
    assert table(game) == [("7♠", None)]


def test_r9_7_show_trump_once_per_player_per_game() -> None:
    """R9.7: a seat that has shown its trump may not show it again (it could otherwise: 0 holds
    2 cards for the 2 attack cards)."""
    game = show_deal("7s 7d 9s Ks", "7h 10s Js", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, show_trump("7h"), 2.0)
    game.apply(0, transfer("7d"), 3.0)
    assert game.defender == 1
    assert "show_trump" not in kinds(game, 1)
    assert_illegal(game, 1, show_trump("7h"), 4.0)


@pytest.mark.parametrize("shown", ["7d", "8h"])
def test_r9_7_shown_card_is_a_trump_of_the_attack_rank(shown: str) -> None:
    """R9.7: only a trump of the attack rank can be shown (not 7♦, not 8♥; trump ♥)."""
    game = show_deal("7s Kd Ks", "7d 8h 10s", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    assert "show_trump" not in kinds(game, 1)
    assert_illegal(game, 1, show_trump(shown), 2.0)
