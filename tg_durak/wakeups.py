"""When a table needs waking besides the engine's deadlines: a computer's move, a timer bar.

Pure functions of the game; the table service arms the scheduler with the earliest of all.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import NamedTuple

from engine import Game
from engine.actions import PASS

MIN_BAR_STEP = 2.0   # seconds; a bar is never redrawn more often (edits have budgets)
BAR_STEPS = 6        # redraws over a whole timer


class ComputerTurn(NamedTuple):
    seat: int
    at: float   # wall time


def next_computer_turn(game: Game, people: Collection[int], changed_at: float
                       ) -> ComputerTurn | None:
    """The computer-played seat that moves next, and when (R10.3).

    `people` are the seats of persons; one marked away is played by a computer (R10.2).
    The pause counts from the table's last change.
    """
    best = None
    for seat in game.acting_seats:
        if seat in people and seat not in game.away:
            continue
        if game.phase != "lead" and seat != game.defender and PASS not in game.legal_actions(seat):
            continue  # it has passed: it waits until the pass is cancelled
        at = changed_at + game.reaction_delay(seat)
        if best is None or at < best.at:
            best = ComputerTurn(seat, at)
    return best


def next_bar_redraw(game: Game, now: float) -> float | None:
    """When a timer bar shown to a person next needs redrawing (the lowest priority edit)."""
    rules = game.rules
    if game.turn_due is not None:
        total = rules.turn_seconds
    elif game.window_due is not None:
        total = rules.throw_in_seconds
    else:
        return None
    return now + max(MIN_BAR_STEP, total / BAR_STEPS)
