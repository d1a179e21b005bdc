"""Cards as a phone shows them best: the emoji suits render red hearts and diamonds."""

from __future__ import annotations

from engine import Card

SUIT_EMOJI = {"♠": "♠️", "♣": "♣️", "♦": "♦️", "♥": "♥️"}


def suit_label(suit: str) -> str:
    return SUIT_EMOJI[suit]


def card_label(card: Card) -> str:
    text = str(card)
    return text[:-1] + SUIT_EMOJI[card.suit]
