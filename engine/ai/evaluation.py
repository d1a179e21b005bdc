"""A learned estimate of a heads-up position: the chance that a seat is not the durak.

The new `hard` stops its playouts a few rounds in and asks this instead of playing to the end
(`engine/ai/search.py`): a playout's end is a 0 or a 1 after some forty moves, the estimate a
probability after none, so the same time buys several times the deals and each tells the moves
apart with less noise.

The model is a logistic regression on what decides a heads-up game when a round starts: the
difference between the two hands in size, trumps and card strength, and who leads, with one set
of weights for each stage of the stock (plenty left, the last refill, empty). It is trained by
`bench/train_evaluation.py` on games `normal` plays against itself, so it estimates what a
`normal` playout would return, and its weights ship beside this module (`evaluation.json`).

It reads a whole game (`hands` of both seats): the search calls it only on its own deals.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from functools import cache
from importlib import resources

from engine.cards import DECK_LOWEST_RANK, SUIT_CARDS, bits_of
from engine.game import Game

FEATURES = ("cards", "cards_squared", "trumps", "trump_strength", "plain_strength", "low_cards",
            "ranks", "unbeatable", "leads")
STAGES = ("plenty", "last_refill", "empty")   # stock > 6, 1-6, 0 cards
LAST_REFILL = 6


def stage(stock: int) -> int:
    """Which weights a position with `stock` cards left uses (an index into STAGES)."""
    return 2 if not stock else 1 if stock <= LAST_REFILL else 0


def _hand(hand: int, against: int, beaters: Sequence[int], trump_mask: int, low: int
          ) -> tuple[float, ...]:
    """One hand's terms: cards, cards², trumps, trump strength, plain strength, low cards, ranks,
    and cards that the hand `against` cannot beat.

    A card's strength is its rank's place in the deck, 0 for the lowest and 1 for the ace.
    """
    span = 12 - low
    trumps = trump_strength = plain = 0.0
    low_cards = unbeatable = 0
    ranks = 0
    for c in bits_of(hand):
        r = c % 13
        ranks |= 1 << r
        unbeatable += not beaters[c] & against
        strength = (r - low) / span
        if trump_mask >> c & 1:
            trumps += 1
            trump_strength += strength
        else:
            plain += strength
            low_cards += strength < 0.34
    n = hand.bit_count()
    return (n / 6, n * n / 36, trumps, trump_strength, plain / 6, low_cards / 6,
            ranks.bit_count() / 6, unbeatable / 6)


def features(g: Game, seat: int, other: int) -> list[float]:
    """`seat`'s terms less `other`'s, and +1 if `seat` leads the round (-1 if `other` does)."""
    trump_mask = SUIT_CARDS[g.trump]
    low = DECK_LOWEST_RANK[g.rules.deck] - 2
    hands, beaters = g.hands, g.beaters
    mine = _hand(hands[seat], hands[other], beaters, trump_mask, low)
    theirs = _hand(hands[other], hands[seat], beaters, trump_mask, low)
    lead = 1.0 if g.attacker == seat else -1.0 if g.attacker == other else 0.0
    return [a - b for a, b in zip(mine, theirs, strict=True)] + [lead]


@cache
def load_weights() -> list[list[float]]:
    """The shipped weights: one list of len(FEATURES) for each of STAGES."""
    data = json.loads(resources.files("engine.ai").joinpath("evaluation.json").read_text())
    if data["features"] != list(FEATURES) or data["stages"] != list(STAGES):
        raise ValueError("evaluation.json was trained for other features: run "
                         "bench/train_evaluation.py")
    return data["weights"]


def estimate(g: Game, seat: int, other: int, weights: list[list[float]] | None = None) -> float:
    """The chance that `seat` is not the durak, heads-up against `other` (a draw counts 1/2).

    The two estimates of one position add up to 1: every term is a difference between the
    seats, and the model has no constant.
    """
    stage_weights = (weights or load_weights())[stage(len(g.stock))]
    z = sum(w * x for w, x in zip(stage_weights, features(g, seat, other),
                                  strict=True))
    if z < -30:
        return 0.0
    return 1.0 / (1.0 + math.exp(-z))
