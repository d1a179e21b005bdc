"""Cards as a player of each language writes them, and in the order a hand is best read.

The emoji suits render red hearts and diamonds on a phone. Rank letters come from the catalog
(a Russian player reads В Д К Т, a Polish one W D K A); callback data keeps card indices.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine import Card
from tg_durak.i18n.translate import Translator

SUIT_EMOJI = {"♠": "♠️", "♣": "♣️", "♦": "♦️", "♥": "♥️"}
# A hand's suits, left to right, by trump: trumps last, colours alternating, otherwise as near
# to ♠ ♥ ♣ ♦ as that allows.
SUIT_ORDER = {"♠": "♥♣♦♠", "♥": "♠♦♣♥", "♣": "♥♠♦♣", "♦": "♠♥♣♦"}
RANK_KEYS = {11: "card.jack", 12: "card.queen", 13: "card.king", 14: "card.ace"}


def suit_label(suit: str) -> str:
    return SUIT_EMOJI[suit]


def card_label(card: Card, t: Translator) -> str:
    rank = t(RANK_KEYS[card.rank]) if card.rank in RANK_KEYS else str(card.rank)
    return rank + SUIT_EMOJI[card.suit]


def in_hand_order(cards: Iterable[Card], trump_suit: str) -> list[Card]:
    """Suit by suit in SUIT_ORDER, low to high within a suit."""
    order = SUIT_ORDER[trump_suit]
    return sorted(cards, key=lambda c: (order.index(c.suit), c.rank))
