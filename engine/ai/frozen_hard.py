"""`hard` as it was on 2026-12-07 (commit 2dd09de), frozen: "today's `hard`", the player the arena
measures issue 40's `hard` against, as `baseline.py` froze the `hard` of 2026-12-04 for issue 19.
Not offered to players; do not improve it (improve `engine/ai/search.py` and `engine/kernel/`).

It is `hard` with `kernel=False` at that commit, at its default options: the baseline's search
with short playouts that end, two rounds on, in the logistic estimate; a race that drops a move
at three standard errors; a known ending searched exactly, then deeper and deeper with the
estimate at the horizon; a stock holding only the face-up trump searched as an empty one; the
hidden cards dealt as the other players' moves suggest (`engine/ai/search.py`'s module text and
engine/ai/README.md say what each is and why).

Why a copy: from here `hard` changes, its kernel's search and estimate first and, in time, the
Python search that goes with them. A player that reused that code would change with it, and the
arena's matches against it would measure nothing. So what is the search's own is copied here as
it was (the player's steps, its two solvers' move order and horizon, the playouts' stop) and so
are the estimate's weights (`WEIGHTS`: evaluation.json of that day, which a retraining replaces).
What every player shares is not copied, as the baseline shares it too: the rules' engine,
`normal` (policy.py), the dealer (sampling.py), inference's reading of the history (inference.py)
and the estimate's features (evaluation.py). tests/ai/test_frozen_hard.py replays decisions
recorded from that commit's `hard`: a change to what this shares that changes its play fails
there, and the old version of what changed then belongs in here.
"""

from __future__ import annotations

import random
import time

from engine.actions import Action
from engine.ai.baseline import (
    SOLVER_SHARE,
    BaselinePlayer,
    OutOfTime,
    Solver,
    Stop,
    playout,
    settle,
)
from engine.ai.evaluation import estimate
from engine.ai.inference import read
from engine.cards import SUIT_CARDS
from engine.game import Game
from engine.sampling import Dealer, dealer
from engine.views import PlayerView

ROUNDS = 2          # rounds a playout plays after the move before it asks the estimate
DROP_Z = 3.0        # standard errors that drop a trailing move
FIRST_DEPTH = 2     # plies of the first search to a depth; each next one two more
SLIP = 0.1          # inference: the chance that a move says the wrong thing about a hand
UNLIKE = 0.05       # inference: the chance, at first, that a player's moves say nothing
# The estimate's weights for a stock of more than 6 cards, 1-6, none (evaluation.FEATURES'
# order): bench/train_evaluation.py's, 40,000 games of `normal`, seed 1.
WEIGHTS = [
    [-0.55642, 0.12451, 0.0711, 0.33237, 0.35812, -0.00543, -0.036, 0.2652, 0.05228],
    [-2.52359, 0.32912, 0.57584, 0.27807, 2.41428, -0.11484, -0.23094, 0.62489, 0.15757],
    [-8.9041, 2.25298, 1.09504, -0.05325, 2.31319, -0.10845, -3.71047, 2.5849, 0.8897],
]


class FrozenHardPlayer(BaselinePlayer):
    """`hard` of 2026-12-07 without its kernel (module text). The baseline's options: `budget`
    (default 0.3 s), `iterations` and `nodes` (caps that make a decision repeatable), `solve`,
    `margin` (default a tenth of the budget, at most 0.03 s)."""

    name = "frozen-hard"
    drop_z = DROP_Z
    margin_share = 0.1

    def _dealer(self, view: PlayerView) -> Dealer:
        return dealer(view, read(view, SLIP, UNLIKE)[0])

    def _nothing_hidden(self, view: PlayerView, deal: Game) -> bool:
        return hides_nothing(view)

    def _playout(self, g: Game, seat: int, rng: random.Random, noise: float) -> float:
        return playout(g, seat, rng, noise, stop=_estimate_after(seat, ROUNDS))

    def _solve(self, deal: Game, seat: int, cands: list[Action], start: float,
               deadline: float) -> Action | None:
        """Exactly for the baseline's share of the time; if that cannot finish, deeper and
        deeper with the estimate at the horizon until a search needs no estimate or the time is
        up (the deepest finished search's answer)."""
        action, nodes, _ = self._search(deal, seat, cands, None,
                                        start + SOLVER_SHARE * (deadline - start))
        if action is not None:
            self.last = {"solved": True, "nodes": nodes, "moves": len(cands)}
            return action
        best, depth, finished, nodes = None, FIRST_DEPTH, 0, 0
        while True:
            action, searched, cut = self._search(deal, seat, cands, depth, deadline)
            if action is None:
                break
            nodes += searched
            best, finished = action, depth
            if not cut:
                self.last = {"solved": True, "nodes": nodes, "moves": len(cands)}
                return action
            if time.perf_counter() > deadline:
                break
            depth += 2
        if best is not None:
            self.last = {"solved": False, "depth": finished, "nodes": nodes, "moves": len(cands)}
        return best

    def _search(self, deal: Game, seat: int, cands: list[Action], depth: int | None,
                deadline: float) -> tuple[Action | None, int, bool]:
        """`deal` searched exactly (`depth` None) or to `depth`: the best move (None: out of
        time or nodes), the nodes searched, whether the depth cut a line."""
        solver = (FrozenLeanSolver(seat, deadline, self.nodes) if depth is None
                  else FrozenHorizonSolver(seat, deadline, depth, self.nodes))
        try:
            action = solver.best(deal, cands)[0]
        except OutOfTime:
            return None, solver.nodes, False
        return action, solver.nodes, isinstance(solver, FrozenHorizonSolver) and solver.cut


class FrozenLeanSolver(Solver):
    """The baseline's exact solver with the moves below the root searched cards first, plain
    before trump, then a take or a pass; the clock read every 64 nodes."""

    check_mask = 63

    def _order(self, g: Game, seat: int, legal: list[Action]) -> list[Action]:
        trumps = SUIT_CARDS[g.trump]
        return sorted(legal, key=lambda a: 2 if a.card is None else trumps >> a.card.index & 1)


class FrozenHorizonSolver(FrozenLeanSolver):
    """The exact solver cut at `depth` plies, where a round starts: there, the estimate."""

    def __init__(self, seat: int, deadline: float, depth: int, max_nodes: int | None = None
                 ) -> None:
        super().__init__(seat, deadline, max_nodes)
        self.depth = depth
        self.cut = False

    def value(self, g: Game, alpha: float, beta: float) -> float:
        settle(g)
        if len(self.line) >= self.depth and not g.attacks and not g.is_over:
            self.cut = True
            return estimate(g, self.seat, (g.active & ~(1 << self.seat)).bit_length() - 1,
                            WEIGHTS)
        return super().value(g, alpha, beta)


def hides_nothing(view: PlayerView) -> bool:
    """Heads-up with no card hidden in the stock: the other hand is every card not seen."""
    return (len(view.active_seats) == 2 and view.seat in view.active_seats
            and view.stock_count == (view.trump_card is not None))


def _estimate_after(seat: int, rounds: int) -> Stop:
    """A playout's `stop`: heads-up, once `rounds` more rounds have started, the estimate."""
    started = -1

    def stop(g: Game) -> float | None:
        nonlocal started
        started += 1
        active = g.active
        if started < rounds or active.bit_count() != 2:
            return None
        return estimate(g, seat, (active & ~(1 << seat)).bit_length() - 1, WEIGHTS)

    return stop
