"""Cards as interned objects over a 0..51 index, so hands can be bitmasks on the hot path."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import ClassVar, TypeVar

T = TypeVar("T")

# Suit order is the tie-break order of R3.2 (♠ ♣ ♦ ♥); a card's index is suit * 13 + (rank - 2).
SUITS = "♠♣♦♥"
SUIT_LETTERS = "scdh"
RANK_NAMES = {11: "J", 12: "Q", 13: "K", 14: "A"}
_RANK_BY_NAME = {**{str(r): r for r in range(2, 11)}, "J": 11, "Q": 12, "K": 13, "A": 14, "T": 10}
_SUIT_BY_NAME = {**{s: i for i, s in enumerate(SUITS)},
                 **{s: i for i, s in enumerate(SUIT_LETTERS)},
                 "♡": 3, "♢": 2, "♤": 0, "♧": 1, "♥️": 3, "♦️": 2, "♠️": 0, "♣️": 1}

DECK_LOWEST_RANK = {24: 9, 36: 6, 52: 2}
# Each spelling read so far (a few hundred exist). Only strs are stored, but parse looks up a
# Card too (it misses, and the Card is its own answer).
_PARSED: dict[str | Card, Card] = {}


class Card:
    """A playing card; `Card(rank, suit)` returns the one shared instance for that card."""

    __slots__ = ("_text", "index", "rank", "suit", "suit_index")
    _all: ClassVar[dict[int, Card]] = {}

    rank: int
    suit: str
    suit_index: int
    index: int
    _text: str

    def __new__(cls, rank: int, suit: str | int) -> Card:
        si = suit if isinstance(suit, int) else _SUIT_BY_NAME.get(suit, -1)
        if not (isinstance(rank, int) and 2 <= rank <= 14 and 0 <= si < 4):
            raise ValueError(f"no such card: rank {rank!r}, suit {suit!r}")
        card = cls._all.get(si * 13 + rank - 2)
        if card is None:
            card = object.__new__(cls)
            card.index = si * 13 + rank - 2
            card.rank = rank
            card.suit = SUITS[si]
            card.suit_index = si
            card._text = RANK_NAMES.get(rank, str(rank)) + SUITS[si]
            cls._all[card.index] = card
        return card

    @classmethod
    def parse(cls, text: str | Card) -> Card:
        """Reads "10♥", "10h", "Qs", "a♠" (case-insensitive rank letters)."""
        # Restoring a game parses every card of its deal, its state and its log (about 100 a
        # table, a million for 10,000 tables): a spelling read before costs one lookup.
        try:
            return _PARSED[text]
        except (KeyError, TypeError):
            pass
        if isinstance(text, Card):
            return text
        t = str(text).strip()
        card = _PARSED.get(t)
        if card is not None:
            return card
        for cut in (len(t) - 2, len(t) - 1):
            if cut < 1:
                continue
            rank = _RANK_BY_NAME.get(t[:cut].upper())
            suit = _SUIT_BY_NAME.get(t[cut:].lower())
            if rank is not None and suit is not None:
                card = _PARSED[t] = cls(rank, suit)
                return card
        raise ValueError(f"not a card: {text!r}")

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return self._text

    def __hash__(self) -> int:
        return self.index

    def __lt__(self, other: Card) -> bool:
        return (self.rank, self.suit_index) < (other.rank, other.suit_index)

    def __reduce__(self) -> tuple:
        return (Card, (self.rank, self.suit_index))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: dict) -> Card:
        return self


CARDS: tuple[Card, ...] = tuple(Card(i % 13 + 2, i // 13) for i in range(52))
CARD_NAMES: tuple[str, ...] = tuple(map(str, CARDS))   # as snapshots spell them
_PARSED.update(zip(CARD_NAMES, CARDS, strict=True))
# RANK_CARDS[i]: the mask of the four cards that share card i's rank.
RANK_CARDS: tuple[int, ...] = tuple(
    sum(1 << (s * 13 + i % 13) for s in range(4)) for i in range(52)
)
SUIT_CARDS: tuple[int, ...] = tuple(((1 << 13) - 1) << (s * 13) for s in range(4))


def deck_mask(size: int) -> int:
    """The mask of the cards in a deck of 24, 36 or 52 cards."""
    return _DECK_MASKS[size]


_DECK_MASKS = {size: sum(1 << c.index for c in CARDS if c.rank >= low)
               for size, low in DECK_LOWEST_RANK.items()}


def beats_masks(trump_index: int) -> tuple[int, ...]:
    """For each card, the mask of cards that beat it with this trump suit (R4.1, R4.2)."""
    out = []
    for c in CARDS:
        same_suit_higher = SUIT_CARDS[c.suit_index] & ~((1 << (c.index + 1)) - 1)
        out.append(same_suit_higher if c.suit_index == trump_index
                   else same_suit_higher | SUIT_CARDS[trump_index])
    return tuple(out)


def picked(mask: int, by_index: Sequence[T]) -> list[T]:
    """by_index's items at the bits set in `mask`, lowest first.

    The one walk over a mask's bits (cards or seats). It takes the table to read so that the
    hot path lists interned actions or cards in one pass, without a list of indexes between.
    """
    out = []
    while mask:
        low = mask & -mask
        out.append(by_index[low.bit_length() - 1])
        mask ^= low
    return out


_INDEXES = tuple(range(52))


def bits_of(mask: int) -> list[int]:
    """The indexes of the bits set in a card mask or a seat mask, lowest first."""
    return picked(mask, _INDEXES)


def cards_of(mask: int) -> list[Card]:
    return picked(mask, CARDS)


def names_of(mask: int) -> list[str]:
    """The cards of `mask` as snapshots spell them, in index order (cards_of's order)."""
    return picked(mask, CARD_NAMES)


def mask_of(cards: Iterable[Card | str]) -> int:
    """The mask of `cards`: Card objects, or spellings Card.parse reads."""
    m = 0
    for c in cards:
        # A deal's Cards skip the parser: a Card is no spelling, so it misses its cache first.
        m |= 1 << (c if c.__class__ is Card else Card.parse(c)).index
    return m


def parse_suit(suit: str) -> int:
    si = _SUIT_BY_NAME.get(str(suit).strip().lower(), _SUIT_BY_NAME.get(str(suit).strip(), -1))
    if si < 0:
        raise ValueError(f"not a suit: {suit!r}")
    return si
