"""Taps drawn on an earlier screen: when a tap still means what the player saw.

Telegram lets the bot edit a screen only so often, and several people act at once at a table, so
a tap often arrives after the table moved on from the screen it was pressed on. It is applied
when it was pressed in the round still being played and still names the same move:

- a tap stands only within the round it was pressed in: a card meant as a throw-in is never
  led in the next round, whoever's screen it came from (a chat's button Telegram delivered late,
  a page's move sent after its network came back);
- a card is the same move when it is the same card played the same way: attacking or throwing
  in, or beating the same attack card (a defence's target is the attack card it named on its
  screen, never its index);
- and the move is legal now. A card no longer in the hand (played by the first of two taps) is
  stale. A choice (which card to beat) is opened again when the tap still asks for it.

Anything else is stale: the player gets the fresh screen and nothing changes. A move that is
illegal now is stale too, not refused with the engine's reason: his screen showed it playable,
and the fresh screen tells him more than a refusal of what he saw offered. Pure: the screens a tap
is read against are the few kept as they were drawn (`ShownScreens`), or replayed from the game's
own log, so the rule holds across a restart.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engine import Action, ActionKind, Card, Event, Game, Phase, PlayerView
from tg_durak.play.taps import Beat, Choosing, PlayCard, Position, Tap, TapOutcome

KEPT_PER_SEAT = 6   # screens kept per person: a screen under load is a few versions old
NOBODY = -1   # the defender's seat kept for a screen where the seat does not defend
# They answer a round.


def round_start(game: Game) -> int:
    """The version at which the current round began: just after the time tick that cleared the
    previous round's table (0 in the first round)."""
    _, start = replayed(game.rewound(0), game.log, 0)
    assert start is not None   # known from the deal on
    return start


def replayed(game: Game, entries: Iterable[tuple], round_from: int | None
             ) -> tuple[list[Event], int | None]:
    """`entries` replayed onto `game`: what happened, and the version the current round began
    at, given `round_from` for the game before them (None: not known, and still not unless a
    round ends among them). ValueError (IllegalMove is one) if they do not continue it."""
    events: list[Event] = []
    for entry in entries:
        had_cards = bool(game.table)
        events += game.replay_entry(entry)
        if had_cards and not game.table:
            round_from = game.version
    return events, round_from


@dataclass(frozen=True, slots=True)
class _Side:
    """What a card tap reads of a kept screen (taps.TableSide)."""

    seat: int
    defender: int
    phase: str
    table: tuple[tuple[Card, Card | None], ...]


class ShownScreens:
    """The last few screens drawn for each person's seat, as a late tap reads them.

    Only what a card tap reads is kept: a screen where the seat does not defend keeps neither
    the table nor the moves (a card there is an attack whatever lies on the table).
    """

    __slots__ = ("_seats",)

    def __init__(self) -> None:
        self._seats: dict[int, list[tuple[int, _Side, tuple[Action, ...]]]] = {}

    def note(self, version: int, view: PlayerView, legal: tuple[Action, ...]) -> None:
        """`view` and `legal` were drawn on the screen of `version`."""
        kept = self._seats.setdefault(view.seat, [])
        if kept and kept[-1][0] >= version:
            return   # drawn again (a bar, a refused tap): kept already
        if view.seat == view.defender and view.phase == Phase.DEFEND:
            side, moves = _Side(view.seat, view.defender, view.phase, view.table), legal
        else:   # a card is an attack there, whatever lies on the table
            side, moves = _Side(view.seat, NOBODY, "", ()), ()
        if kept and kept[-1][1] == side and kept[-1][2] == moves:
            side, moves = kept[-1][1], kept[-1][2]   # the same as the last one: shared
        kept.append((version, side, moves))
        if len(kept) > KEPT_PER_SEAT:
            del kept[0]

    def at(self, seat: int, version: int, choosing: Choosing) -> Position | None:
        """The seat's screen of `version`, if it is kept."""
        for kept_version, side, legal in reversed(self._seats.get(seat, ())):
            if kept_version == version:
                return Position(side, legal, choosing)
            if kept_version < version:
                break
        return None


def still_meant(game: Game, round_from: int, version: int, pressed: Tap, now: Position,
                then: Position | None = None) -> TapOutcome | None:
    """What a tap pressed on the screen of `version` does now; None if it is stale.

    `round_from` is the version the current round began at (`round_start`); `now` is the
    player's position on today's table, `then` his screen of `version` if it was kept (else it
    is replayed from the log when the tap needs it).
    """
    if not round_from <= version < game.version:
        return None   # an earlier round's, not drawn yet, or forged
    outcome = pressed.outcome(now)
    if isinstance(pressed, PlayCard | Beat):
        if then is None:
            past = game.rewound(version)
            seat = now.view.seat
            then = Position(past.view(seat), past.legal_actions(seat), now.choosing)
        if _named(outcome, now) != _named(pressed.outcome(then), then):
            return None
    if isinstance(outcome, Action) and outcome not in now.legal:
        return None
    return outcome


def _named(outcome: TapOutcome, at: Position) -> object:
    """A card move by what it names on the screen `at`: a defence by the attack card it beats."""
    if isinstance(outcome, Action) and outcome.kind == ActionKind.DEFEND:
        table = at.view.table
        target = outcome.target
        attacked = table[target][0] if target is not None and 0 <= target < len(table) else None
        return outcome.kind, outcome.card, attacked
    return outcome
