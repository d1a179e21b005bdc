"""When a table needs waking besides the engine's deadlines: computers' moves, a timer bar.

Pure functions of the game; the table service arms the scheduler with the earliest of all.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import NamedTuple

from engine import Action, Event, EventKind, Game
from engine.actions import PASS
from tg_durak.render.game import bar_step

# After these every computer at the table looks again: the defence changed course (a take, a
# transfer), a round began, or a clock ran out and the engine moved for someone.
TURNING_POINTS = frozenset({EventKind.TAKE, EventKind.TRANSFER, EventKind.SHOW_TRUMP,
                            EventKind.ROUND, EventKind.TIMEOUT})
MOVES = frozenset({EventKind.ATTACK, EventKind.DEFEND, EventKind.PASS})
# The share of R10.3's pause left when every person at the table is out and watches the
# computers finish: the durak is named within a minute or so, and each move can still be seen.
BRISK = 0.25


class Reaction(NamedTuple):
    """A computer-played seat's next move: due `at`, one pause (R10.3) after the table change
    it reacts to; `options` were its legal moves then."""

    seat: int
    at: float   # wall time
    options: tuple[Action, ...]


def plan_reactions(game: Game, people: Collection[int], before: Mapping[int, Reaction],
                   events: Sequence[Event], now: float, pace: float = 1.0
                   ) -> dict[int, Reaction]:
    """Each computer-played seat with something to do, and when it moves, after a change at `now`
    that reported `events` (none: a table just opened or reloaded, everyone starts afresh).
    `pace` shortens the pauses (BRISK: only computers still play, people watch).

    Every seat's pause runs on its own, side by side with the others', from the change it
    reacts to: what a player at a real table does. A change concerns a seat, and restarts its
    pause, when the seat moved itself, when it may now make a move it could not make before (a
    card to beat, a rank to throw in, a pass given back), or at a turning point. Anything else
    (someone's pass, a throw-in or a beat that leaves its choices as they were, choices that
    only shrink) leaves its reaction as planned: a computer with nothing to throw in passes at
    its own time, not after the others.
    """
    afresh = not events or any(e.kind in TURNING_POINTS for e in events)
    movers = {e.seat for e in events if e.kind in MOVES}
    plans = {}
    for seat, options in _computer_choices(game, people):
        planned = before.get(seat)
        if planned is None or afresh or seat in movers or not set(options) <= set(planned.options):
            planned = Reaction(seat, now + game.reaction_delay(seat) * pace, options)
        plans[seat] = planned
    return plans


def _computer_choices(game: Game, people: Collection[int]
                      ) -> Iterator[tuple[int, tuple[Action, ...]]]:
    """The computer-played seats that have a move to make, with their legal moves.

    `people` are the seats persons play themselves now; a computer plays every other one,
    a person's too while he is away (R10.2).
    """
    for seat in game.acting_seats:
        if seat in people:
            continue
        options = tuple(game.legal_actions(seat))
        if game.phase != "lead" and seat != game.defender and PASS not in options:
            continue  # it has passed: it waits until the pass is cancelled
        yield seat, options


def next_reaction(reactions: Mapping[int, Reaction], busy: Collection[int]) -> Reaction | None:
    """The earliest reaction of a seat that is not already thinking."""
    waiting = [r for r in reactions.values() if r.seat not in busy]
    return min(waiting, key=lambda r: r.at, default=None)


def next_bar_redraw(game: Game, now: float) -> float | None:
    """When a timer bar shown to a person next needs redrawing (the lowest priority edit)."""
    rules = game.rules
    if game.turn_due is not None:
        total = rules.turn_seconds
    elif game.window_due is not None:
        total = rules.throw_in_seconds
    else:
        return None
    return now + bar_step(total)
