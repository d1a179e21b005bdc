"""The tap interpreter: what each game button means in a position (issue 4, "The player's side")."""

from __future__ import annotations

import pytest

from engine import Action, Card, Game, Rules
from tg_durak.play.answers import Answer
from tg_durak.play.taps import (
    Beat,
    Cancel,
    Choose,
    Choosing,
    Pass,
    PlayCard,
    Position,
    ShowTrump,
    Take,
    TransferMode,
    TransferWith,
)

ATTACKER, DEFENDER = 0, 1


def c(text: str) -> Card:
    return Card.parse(text)


def attacked(defender_hand: str, *attacks: str, variant: str = "throw-in",
             show_trump: bool = False) -> Game:
    """Two players, hearts trump; seat 0 has led `attacks` against seat 1's hand."""
    game = Game.from_deal(Rules(players=2, variant=variant, show_trump=show_trump),
                          [["6s", "6c", "9d", "Ks", "Qd", "10c"], defender_hand.split()], ["Ah"],
                          first_attacker=ATTACKER)
    for card in attacks:
        game.apply(ATTACKER, Action("attack", c(card)), 0.0)
    return game


def at(game: Game, seat: int, choosing: Choosing | None = None) -> Position:
    return Position(game.view(seat), game.legal_actions(seat), choosing or Choosing())


def playable(game: Game, seat: int, outcome: object) -> bool:
    """The engine lists the interpreted move among the seat's legal ones."""
    return isinstance(outcome, Action) and outcome in game.legal_actions(seat)


DEFENDER_HAND = "7h 8s 6d Jh Ac Jd"   # 7♥, J♥ trump: each beats both sixes; 8♠ only 6♠


def test_a_card_of_the_attacker_attacks() -> None:
    game = attacked(DEFENDER_HAND)
    outcome = PlayCard(c("Ks").index).outcome(at(game, ATTACKER))
    assert outcome == Action("attack", c("Ks"))
    assert playable(game, ATTACKER, outcome)


def test_a_card_thrown_in_while_the_defender_thinks_attacks() -> None:
    game = attacked(DEFENDER_HAND, "6s")
    outcome = PlayCard(c("6c").index).outcome(at(game, ATTACKER))
    assert outcome == Action("attack", c("6c"))
    assert playable(game, ATTACKER, outcome)


def test_a_defence_card_that_beats_one_attack_card_beats_it() -> None:
    game = attacked(DEFENDER_HAND, "6s", "6c")
    outcome = PlayCard(c("8s").index).outcome(at(game, DEFENDER))
    assert outcome == Action("defend", c("8s"), 0)
    assert playable(game, DEFENDER, outcome)


def test_a_defence_card_that_beats_several_asks_for_the_target() -> None:
    game = attacked(DEFENDER_HAND, "6s", "6c")
    outcome = PlayCard(c("7h").index).outcome(at(game, DEFENDER))
    assert outcome == Choose(Choosing(card=c("7h")), Answer("tap.choose_target"))


def test_the_target_chosen_is_beaten() -> None:
    game = attacked(DEFENDER_HAND, "6s", "6c")
    choosing = Choosing(card=c("7h"))
    outcome = Beat(c("7h").index, 1).outcome(at(game, DEFENDER, choosing))
    assert outcome == Action("defend", c("7h"), 1)
    assert playable(game, DEFENDER, outcome)


def test_a_target_the_card_cannot_beat_goes_to_the_engine_to_refuse() -> None:
    game = attacked(DEFENDER_HAND, "6s", "6c")
    outcome = Beat(c("8s").index, 1).outcome(at(game, DEFENDER))
    assert outcome == Action("defend", c("8s"), 1)
    assert not playable(game, DEFENDER, outcome)


def test_a_defence_card_that_beats_nothing_goes_to_the_engine_to_refuse() -> None:
    game = attacked(DEFENDER_HAND, "6s", "6c")
    outcome = PlayCard(c("6d").index).outcome(at(game, DEFENDER))
    assert outcome == Action("defend", c("6d"), 0), "the first unbeaten card: the engine says why"
    assert not playable(game, DEFENDER, outcome)


def test_take_and_pass() -> None:
    game = attacked(DEFENDER_HAND, "6s")
    assert Take().outcome(at(game, DEFENDER)) == Action("take")
    assert playable(game, DEFENDER, Take().outcome(at(game, DEFENDER)))
    assert Pass().outcome(at(game, ATTACKER)) == Action("pass")
    assert playable(game, ATTACKER, Pass().outcome(at(game, ATTACKER)))


def test_transfer_with_the_one_card_that_fits_transfers_at_once() -> None:
    game = attacked("6h 8s 7d Jh Ac Jd", "6s", variant="transfer")
    outcome = TransferMode().outcome(at(game, DEFENDER))
    assert outcome == Action("transfer", c("6h"))
    assert playable(game, DEFENDER, outcome)


def test_transfer_with_several_cards_that_fit_asks_for_the_card() -> None:
    game = attacked("6h 8s 6d Jh Ac Jd", "6s", variant="transfer")
    outcome = TransferMode().outcome(at(game, DEFENDER))
    assert outcome == Choose(Choosing(transfer=True), Answer("tap.choose_transfer"))

    transferring = Choosing(transfer=True)
    chosen = TransferWith(c("6d").index).outcome(at(game, DEFENDER, transferring))
    assert chosen == Action("transfer", c("6d"))
    assert playable(game, DEFENDER, chosen)
    # A card tap from a message drawn before the choice still means the transfer.
    assert PlayCard(c("6h").index).outcome(at(game, DEFENDER, transferring)) == Action(
        "transfer", c("6h"))


def test_transfer_with_no_card_that_fits_is_refused() -> None:
    game = attacked("7h 8s 7d Jh Ac Jd", "6s", variant="transfer")
    assert TransferMode().outcome(at(game, DEFENDER)) == Answer("tap.cannot_transfer", alert=True)


def test_show_trump() -> None:
    game = attacked("6h 8s 7d Jh Ac Jd", "6s", variant="transfer", show_trump=True)
    outcome = ShowTrump(c("6h").index).outcome(at(game, DEFENDER))
    assert outcome == Action("show_trump", c("6h"))
    assert playable(game, DEFENDER, outcome)


@pytest.mark.parametrize("choosing", [Choosing(card=Card.parse("7h")), Choosing(transfer=True)])
def test_cancel_leaves_any_choice(choosing: Choosing) -> None:
    game = attacked(DEFENDER_HAND, "6s", "6c")
    assert Cancel().outcome(at(game, DEFENDER, choosing)) == Choose(Choosing())


@pytest.mark.parametrize("index", [-1, 52, 77, 10**6])
@pytest.mark.parametrize("tap", [PlayCard, TransferWith, ShowTrump,
                                 lambda index: Beat(index, 0)])
def test_a_forged_card_index_is_an_unknown_button(tap, index: int) -> None:
    game = attacked(DEFENDER_HAND, "6s")
    assert tap(index).outcome(at(game, DEFENDER)) == Answer("tap.unknown", alert=True)
