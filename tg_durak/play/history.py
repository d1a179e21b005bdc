"""What just happened at a table: the last few events worth telling, and who played each attack
card of the round. The game screen reads both; the table service keeps one per live table.

Both come from the game's history (`History.of`: every event since the deal, which a restored game
replays from its log), so they are the same after a restart, in any process that reads the log;
then each change adds its events (`note`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine import Card, Event, EventKind, Game

KEEP = 3   # a phone shows three lines of history without pushing the hand off the screen
LEAD = "lead"  # a round's first attack card, told apart from a throw-in
# Who leads the first round, and the card that decided it (R3.1 the lowest trump, R3.2 without
# trumps the lowest card): told first, so that the first screen says why.
OPENING, OPENING_LOWEST = "opening", "opening_lowest"
# A pass shows on the seat's line; a take on the defender's line and in the turn line (once is
# enough: the cards he takes are told when the round closes); drawing and a new round show in
# the turn line; the end in the result. Everything else is told.
TOLD = frozenset({EventKind.ATTACK, EventKind.DEFEND, EventKind.TRANSFER, EventKind.SHOW_TRUMP,
                  EventKind.TIMEOUT, EventKind.TAKEN, EventKind.BEATEN, EventKind.OUT})


@dataclass(frozen=True, slots=True)
class Told:
    """One event as a screen tells it. (Not a NamedTuple: `count` would hide tuple.count.)"""

    kind: str                    # an EventKind, or LEAD
    seat: int | None
    card: Card | None = None
    beat: Card | None = None     # the attack card a defence beat
    to_seat: int | None = None   # who defends after a transfer or a shown trump
    count: int | None = None     # cards taken or beaten


class History:
    def __init__(self, table: Sequence[tuple[Card, Card | None]] = ()) -> None:
        """`table`: the cards on the table when the history begins, their players unknown (a
        game whose past is not known: one dealt for search)."""
        self.recent: tuple[Told, ...] = ()   # a tuple: screens share it, and a deque costs 600 B
        self._round: list[tuple[Card, int | None]] = [(attack, None) for attack, _ in table]

    @classmethod
    def of(cls, game: Game) -> History:
        """What the screens tell of `game` so far, from its deal and its log."""
        history = cls()
        opening = game.opening()
        if opening is not None:
            seat, card = opening
            kind = OPENING if card.suit == game.trump_suit else OPENING_LOWEST
            history._tell(Told(kind, seat, card))
        history.note(game.history)
        return history

    def _tell(self, told: Told) -> None:
        self.recent = (*self.recent, told)[-KEEP:]

    def note(self, events: Iterable[Event]) -> None:
        for e in events:
            kind = e.kind
            if kind in (EventKind.ATTACK, EventKind.TRANSFER):
                if kind == EventKind.ATTACK and not self._round:
                    kind = LEAD
                assert e.card is not None   # an attack or a transfer says its card
                self._round.append((e.card, e.seat))
            elif kind in (EventKind.BEATEN, EventKind.TAKEN):
                self._round = []
            if e.kind not in TOLD:
                continue
            beat = None
            if kind == EventKind.DEFEND:
                # The engine's target indexes the round's attack cards in the order they came.
                if e.target is None or not 0 <= e.target < len(self._round):
                    continue  # only if it missed events; better no line than a wrong card
                beat = self._round[e.target][0]
            self._tell(Told(kind, e.seat, e.card, beat, e.to_seat, e.count))

    def played_by(self, table: Sequence[tuple[Card, Card | None]]) -> tuple[int | None, ...]:
        """Who played each attack card on `table` (None where it is not known)."""
        players = dict(self._round)
        return tuple(players.get(attack) for attack, _ in table)
