"""What one seat may see (R11): the only thing renderers and computer players work from.

Views sit above the game: they read it, and deal games consistent with themselves
(`sample`). The game hands out views through `Game.view_type`, set at the end of this module.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.cards import CARDS, Card, cards_of, deck_mask
from engine.game import Game, Phase, next_due
from engine.rules import Rules


@dataclass(frozen=True, slots=True)   # one per seat of every running table
class PlayerView:
    seat: int
    rules: Rules
    hand: tuple[Card, ...]
    table: tuple[tuple[Card, Card | None], ...]
    trump_suit: str
    trump_card: Card | None          # the face-up card while it is still under the stock
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

    @classmethod
    def of(cls, g: Game, seat: int) -> PlayerView:
        return cls(
            seat=seat,
            rules=g.rules,
            hand=tuple(g.hand(seat)),
            table=tuple(g.table),
            trump_suit=g.trump_suit,
            trump_card=g.trump_card,
            stock_count=len(g.stock),
            discard_count=g.discard.bit_count(),
            hand_counts=tuple(h.bit_count() for h in g.hands),
            known=tuple(tuple(cards_of(k)) for k in g.known),
            discarded=tuple(cards_of(g.discard)),
            phase=g.phase,
            round_starter=g.round_starter,
            attacker=g.attacker,
            defender=g.defender,
            active_seats=tuple(g.active_seats),
            finished_order=tuple(g.out_order),
            throwers=tuple(s for s in range(g.players) if g.throwers >> s & 1),
            taking=g.taking,
            passed=g.passed,
            attack_limit=g.attack_limit,
            round_limit=g.round_limit,
            first_round=g.first_round,
            shown_trump=frozenset(s for s in range(g.players) if g.showed_trump >> s & 1),
            away=g.away,
            turn_due=g.turn_due,
            window_due=g.window_due,
            close_due=g.close_due,
            is_over=g.is_over,
            durak=g.durak,
        )

    @property
    def next_deadline(self) -> float | None:
        return next_due(self.is_over, self.turn_due, self.window_due, self.close_due)

    @property
    def unseen(self) -> tuple[Card, ...]:
        """Cards this seat cannot place: in other hands (beyond the known ones) or the stock."""
        seen = {*self.hand, *self.discarded, *(c for pair in self.table for c in pair if c)}
        seen.update(c for k in self.known for c in k)
        if self.trump_card is not None:
            seen.add(self.trump_card)
        deck = deck_mask(self.rules.deck)
        return tuple(c for c in CARDS if deck >> c.index & 1 and c not in seen)

    def sample(self, rng: random.Random) -> Game:
        """A full game consistent with this view: hidden cards dealt at random (for search)."""
        return Game.from_view(self, rng)

    def to_dict(self) -> dict:
        def cs(cards):
            return [str(c) for c in cards]

        return {
            "seat": self.seat,
            "rules": self.rules.to_dict(),
            "hand": cs(self.hand),
            "table": [[str(a), None if d is None else str(d)] for a, d in self.table],
            "trump_suit": self.trump_suit,
            "trump_card": None if self.trump_card is None else str(self.trump_card),
            "stock_count": self.stock_count,
            "discard_count": self.discard_count,
            "hand_counts": list(self.hand_counts),
            "known": [cs(k) for k in self.known],
            "discarded": cs(self.discarded),
            "phase": str(self.phase),
            "round_starter": self.round_starter,
            "attacker": self.attacker,
            "defender": self.defender,
            "active_seats": list(self.active_seats),
            "finished_order": list(self.finished_order),
            "throwers": list(self.throwers),
            "taking": self.taking,
            "passed": sorted(self.passed),
            "attack_limit": self.attack_limit,
            "round_limit": self.round_limit,
            "first_round": self.first_round,
            "shown_trump": sorted(self.shown_trump),
            "away": sorted(self.away),
            "turn_due": self.turn_due,
            "window_due": self.window_due,
            "close_due": self.close_due,
            "is_over": self.is_over,
            "durak": self.durak,
        }


Game.view_type = PlayerView
