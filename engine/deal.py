"""Dealing (R2) and who attacks first (R3): the deal as plain cards, before there is a game.

`Game.new` and `Game.from_deal` take their deals from here and set the game up from them.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.cards import (
    CARDS,
    DECK_LOWEST_RANK,
    SUIT_CARDS,
    SUITS,
    Card,
    cards_of,
    deck_mask,
    parse_suit,
)
from engine.rules import HAND_SIZE, Rules

Hands = list[list[Card]]
# A game's deal as dealt, which its snapshot and its replay start from: (hands, stock, trump
# suit, the first attacker if the deal named him, the time of the deal, R2.3's shown card).
Initial = tuple[tuple[tuple[Card, ...], ...], tuple[Card, ...], str, int | None, float,
                Card | None]
_DECKS = {size: tuple(cards_of(deck_mask(size))) for size in DECK_LOWEST_RANK}   # R1.1


def shuffled_deal(rules: Rules, seed: int | str) -> tuple[Hands, list[Card], str, Card | None]:
    """R2: the deck shuffled with `seed`, six cards each, the rest the stock.

    Returns the hands, the stock (stock[0] drawn next), the trump suit and the card that named
    it when no stock is left (R2.3), else None.
    """
    deck = list(_DECKS[rules.deck])
    random.Random(seed).shuffle(deck)
    n = rules.players
    hands = [deck[i * HAND_SIZE:(i + 1) * HAND_SIZE] for i in range(n)]
    stock = deck[n * HAND_SIZE:]
    # R2.2: the stock's bottom card names trump; R2.3: with no stock left the last dealt card
    # does, and is shown to all.
    naming = stock[-1] if stock else hands[-1][-1]
    return hands, stock, naming.suit, None if stock else naming


def explicit_deal(rules: Rules, hands: Sequence[Sequence[Card | str]],
                  stock: Sequence[Card | str], trump: str | None, first_attacker: int | None
                  ) -> tuple[Hands, list[Card], str]:
    """A deal someone wrote down, read and checked: the hands, the stock and the trump suit.

    stock[-1] is the face-up trump card (R2.2); with an empty stock the trump must be named.
    """
    dealt = [[Card.parse(c) for c in h] for h in hands]
    cards = [Card.parse(c) for c in stock]
    _check(rules, dealt, cards, first_attacker)
    if cards:
        if trump is not None and parse_suit(trump) != cards[-1].suit_index:
            raise ValueError("trump must be the suit of the last stock card (R2.2)")
        trump = cards[-1].suit
    elif trump is None:
        raise ValueError("with an empty stock, name the trump suit")
    return dealt, cards, SUITS[parse_suit(trump)]


def _check(rules: Rules, hands: Hands, stock: list[Card], first_attacker: int | None) -> None:
    if len(hands) != rules.players:
        raise ValueError(f"{len(hands)} hands for a {rules.players}-player table")
    every = [c for h in hands for c in h] + stock
    if len(set(every)) != len(every):
        raise ValueError("a card is dealt twice")
    allowed = deck_mask(rules.deck)
    if any(not allowed >> c.index & 1 for c in every):
        raise ValueError(f"a card outside the {rules.deck}-card deck is dealt")
    if not all(hands):
        raise ValueError("every seat needs at least one card")
    if first_attacker is not None and first_attacker not in range(rules.players):
        raise ValueError("first_attacker is not a seat")


def opening_attacker(hands: list[int], trump: int) -> tuple[int, Card | None]:
    """R3.1 the holder of the lowest trump; R3.2 without trumps, of the lowest card, ties by
    suit order. Returns the seat and the card that decided it (all see it)."""
    held = 0
    for hand in hands:
        held |= hand
    trumps = held & SUIT_CARDS[trump]
    if trumps:   # in one suit the lowest index is the lowest rank
        lowest = (trumps & -trumps).bit_length() - 1
    else:
        lowest = min(cards_of(held), key=lambda c: (c.rank, c.suit_index)).index
    seat = next(s for s, hand in enumerate(hands) if hand >> lowest & 1)
    return seat, CARDS[lowest]
