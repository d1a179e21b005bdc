"""What one seat may see (R11): the only thing renderers and computer players work from.

A view is plain data and knows nothing of the game: `Game.view(seat)` builds it, and
`engine.sampling` deals games consistent with it, so imports run one way (game, sampling -> views).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.actions import Event
from engine.cards import CARDS, Card, deck_mask
from engine.rules import Rules
from engine.state import Phase, next_due


@dataclass(frozen=True, slots=True)   # one per seat of every running table
class PlayerView:
    seat: int
    rules: Rules
    hand: tuple[Card, ...]
    table: tuple[tuple[Card, Card | None], ...]
    trump_suit: str
    trump_card: Card | None          # the face-up card while it is still under the stock
    named_trump: Card | None         # the card that named trump, wherever it is now (R2.2, R2.3)
    stock_count: int
    discard_count: int
    hand_counts: tuple[int, ...]
    # Cards every player knows to be in each hand: cards he took from the table, the trump card
    # he drew, a trump he showed (R11.1). Public, so the same for every viewer.
    known: tuple[tuple[Card, ...], ...]
    # Cards this seat watched go to the discard pile. The pile is face down (R11.2) and is shown
    # only as a count, but a player who was at the table remembers what was beaten.
    discarded: tuple[Card, ...]
    phase: Phase
    round_starter: int               # began the round's attack; draws first (R7.1, R9.6)
    attacker: int                    # attacks now: the starter, or who transferred (R9.1)
    defender: int
    active_seats: tuple[int, ...]
    finished_order: tuple[int, ...]
    throwers: tuple[int, ...]        # seats that may throw in this round
    taking: bool
    passed: frozenset[int]
    attack_limit: int                # attack cards allowed this round, now (R5.3, R9.4)
    round_limit: int                 # ... before counting the defender's hand
    first_round: bool
    shown_trump: frozenset[int]      # seats that have used show-trump (R9.7)
    away: frozenset[int]
    turn_due: float | None
    window_due: float | None
    close_due: float | None
    is_over: bool
    durak: int | None
    # Every event since the deal (engine.actions.Event): the moves each seat made, who drew how
    # many cards, which rounds were beaten or taken. All of it happened in front of everyone.
    history: tuple[Event, ...]

    @property
    def next_deadline(self) -> float | None:
        return next_due(self.is_over, self.turn_due, self.window_due, self.close_due)

    @property
    def trump_holder(self) -> int | None:
        """The seat everyone knows holds the card that named trump (it drew it, or it was dealt
        last with no stock: R2.3), until he plays it; None while it lies under the stock."""
        return next((s for s, cards in enumerate(self.known) if self.named_trump in cards), None)

    @property
    def unseen(self) -> tuple[Card, ...]:
        """Cards this seat cannot place: in other hands (beyond the known ones) or the stock."""
        seen = {*self.hand, *self.discarded, *(c for pair in self.table for c in pair if c)}
        seen.update(c for k in self.known for c in k)
        if self.trump_card is not None:
            seen.add(self.trump_card)
        deck = deck_mask(self.rules.deck)
        return tuple(c for c in CARDS if deck >> c.index & 1 and c not in seen)
