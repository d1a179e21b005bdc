"""The `hard` player: search over the hidden cards within a time budget.

It is the frozen baseline's search (`engine/ai/baseline.py`: determinized deals, every legal
move played out by `normal` on the same deals and raced, the exact endgame solver), with what
the arena against the baseline showed to be worth keeping (`engine/ai/README.md`):

- Short playouts: a playout stops once two more rounds have started and, heads-up, returns the
  learned estimate of that position (`engine/ai/evaluation.py`) instead of playing on to a 0 or
  a 1. A deal then costs a fraction of the time and says more, so the race sees several times
  the deals; it drops a trailing move at three standard errors, not two.
- A known deal is searched exactly first (`LeanSolver`, the baseline's 60 % of the time, as
  estimates between 0 and 1 cut far fewer lines than exact values); one that it cannot
  finish is searched deeper and deeper with the estimate at the horizon (`HorizonSolver`), where
  the baseline fell back to playouts. Both search the moves below the root in a cheap order
  (`cards_first`), not `normal`'s move first.
- Heads-up, a stock whose only card is the face-up trump hides nothing: every unseen card is in
  the other hand. The baseline played such positions by playouts; they are searched as an empty
  stock is (the solver plays the last draw as the rules do).
- The hidden cards are dealt as the other players' moves suggest (`engine/ai/inference.py`): a
  card a player's move makes unlikely is dealt to him less often.

With `replay=N` it also keeps a whole deal less often when the last N rounds, played again on
it, show moves unlike `normal`'s (`engine/ai/replay.py`). The deals then know more of the other
hand. In Python each kept deal costs several times what its playouts cost, and at equal time
that did not win more games, so the Python race does not replay by default; the kernel replays
one or two rounds for a small part of a deal's time (`engine/kernel/racing.py`), and there it
does by default (docs/computer-players.md).

With hidden cards left in the stock, solving every deal consistent with the view instead of
playing it out was tried and is not here: at 0.3 s a decision not one such deal of 32 positions
from random games could be solved in time (the solver makes about 40,000 nodes a second, and a
heads-up ending with the stock not yet empty needs more than 10,000).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property, partial
from typing import Any

from engine.actions import Action
from engine.ai.baseline import (
    DEFAULT_BUDGET,
    SOLVER_SHARE,
    BaselinePlayer,
    OutOfTime,
    Solver,
    Stop,
    playout,
    settle,
)
from engine.ai.evaluation import estimate
from engine.ai.inference import SLIP, read
from engine.ai.replay import KERNEL_ROUNDS, Past, likely_deal
from engine.cards import SUIT_CARDS, mask_of
from engine.game import Game
from engine.kernel import loader as kernel
from engine.sampling import Dealer, dealer
from engine.views import PlayerView

ROUNDS = 2   # rounds a playout plays after the move before it asks the estimate
# The baseline drops a move that trails by 2 standard errors after 8 deals; with estimates in
# place of 0/1 ends the errors are small, and 2 dropped good moves too early (arena: 42.6 % at
# 2, 54.5 % at 3, heads-up throw-in at 0.05 s against the baseline at 0.3 s).
DROP_Z_HARD = 3.0
# Rounds `hard` replays by default in the kernel, where a kept deal costs little against its
# playouts (docs/computer-players.md, "Deals kept as likely as the last rounds, in the kernel").
IN_KERNEL_REPLAY = 2
FIRST_DEPTH = 2   # plies of the first search over a known deal; each next one two more
# A search of a known deal to a depth (None: exactly) by a deadline: its best move (None: out of
# time or nodes), the nodes it searched, whether the depth cut a line.
Search = Callable[[int | None, float], tuple[Action | None, int, bool]]

__all__ = ["DEFAULT_BUDGET", "HardPlayer", "HorizonSolver", "LeanSolver", "cards_first", "deals",
           "hides_nothing"]


def hides_nothing(view: PlayerView) -> bool:
    """Heads-up with no card hidden in the stock: the other hand is every card not seen."""
    return (len(view.active_seats) == 2 and view.seat in view.active_seats
            and view.stock_count == (view.trump_card is not None))


def deals(view: PlayerView, slip: float = SLIP, replay: int = 0
          ) -> ViewDeals:
    """How `hard` deals the cards `view` hides: weighted by what each card's evidence says
    (`slip` 1: uniformly, as the baseline), then, with `replay` rounds, kept as likely as those
    rounds replayed on the deal are."""
    weights, seat_slips = read(view, slip) if slip < 1 else ((), ())
    made = ViewDeals(view, weights, seat_slips, dealer(view, weights))
    if replay and slip < 1:
        made.deal_of = partial(likely_deal, made.deal_of, made.past, view.seat, seat_slips,
                               replay)
    return made


class ViewDeals:
    """A view's dealer that also says how it deals (the view, the weights, each seat's slip, the
    view's past), so that the kernel can deal the same way (`engine/kernel/racing.py`) and
    replay the last rounds on its deals as it does."""

    def __init__(self, view: PlayerView, weights: Sequence[Mapping[int, float]],
                 slips: Sequence[float], deal_of: Dealer) -> None:
        self.view = view
        self.weights = weights
        self.slips = slips   # empty: the moves are not read (slip 1)
        self.deal_of = deal_of

    @cached_property
    def past(self) -> Past:
        view = self.view
        return Past(view.history, [mask_of(k) for k in view.known],
                    -1 if view.named_trump is None else view.named_trump.index)

    def __call__(self, rng: random.Random) -> Game:
        return self.deal_of(rng)


class HardPlayer(BaselinePlayer):
    """The baseline's search with short playouts and the estimate (module text).

    `budget`: seconds a decision (default 0.3). `iterations`: at most this many deals, and
    `nodes`: at most this many nodes a solver search (with both, a decision is repeatable:
    tests; the time budget still applies). `solve`: search what hides nothing. `margin`: seconds
    kept in reserve for a busy machine (default a tenth of the budget, at most 0.03). `rounds`:
    rounds a playout plays before the estimate (None: playouts to the end and the exact solver
    only, as the baseline). `drop_z`: standard errors that drop a trailing move. `slip`: the
    chance that a move says the wrong thing about a hand (inference's weight; 1 deals the hidden
    cards uniformly, as the baseline). `replay`: keep each deal as likely as the last `replay`
    rounds replayed on it are (`engine/ai/replay.py`; 0: off; None, the default: the last
    `IN_KERNEL_REPLAY` rounds where the race runs in the kernel, none in Python, where each kept
    deal costs more than it gains: module text). `kernel`: race in
    the compiled kernel once this process has loaded it (`engine.kernel.loader.load()`; the race,
    tens of times the deals); False: always the Python race. `network`: in the kernel, the
    learned network's estimate where it beat the logistic one (engine/kernel/network.py); False:
    the logistic estimate everywhere, as the Python search.
    """

    name = "hard"
    # The reserve the default budget keeps, a tenth, at every budget. The baseline keeps a fifth
    # of a small one: at 0.05 s it stopped at 40 ms, though its decisions ran at most 5.6 ms past
    # the deadline (6,207 decisions, arena, throw-in), so the cheap `hard` thought 40 ms to the
    # baseline's 270 at 0.3 s, not a sixth.
    margin_share = 0.1

    # *args and **options are the baseline's, passed on as they are (it types them).
    def __init__(self, *args: Any, rounds: int | None = ROUNDS, drop_z: float = DROP_Z_HARD,
                 slip: float = SLIP, replay: int | None = None, kernel: bool = True,
                 network: bool = True, **options: Any) -> None:
        super().__init__(*args, **options)
        if not 0 < slip <= 1:
            raise ValueError("slip must be in (0, 1]")
        if replay is not None and (isinstance(replay, bool) or replay < 0):   # True: it counts
            raise ValueError("replay counts rounds: 0 or more")
        self.rounds = rounds
        # rounds=None plays a known deal as the baseline does: its solver, then playouts.
        self.exact_solver = Solver if rounds is None else LeanSolver
        self.drop_z = drop_z
        self.slip = slip
        self.replay = replay
        self.kernel = kernel
        self.network = network

    def _dealer(self, view: PlayerView) -> Dealer:
        return deals(view, self.slip, self.replay or 0)

    def _nothing_hidden(self, view: PlayerView, deal: Game) -> bool:
        return hides_nothing(view)

    def _race(self, seat: int, deal_of: Dealer, deal: Game, cands: list[Action],
              rng: random.Random, deadline: float, known: bool) -> Action:
        """The race in the kernel where it is ready and the deals are view deals, replayed for
        at most `KERNEL_ROUNDS` rounds; else (the kernel off or still warming, a known deal's
        noisy playouts, a longer `replay`) in Python."""
        replay = IN_KERNEL_REPLAY if self.replay is None else self.replay
        if not (self.kernel and isinstance(deal_of, ViewDeals) and not known
                and replay <= KERNEL_ROUNDS and kernel.ready()):
            action = super()._race(seat, deal_of, deal, cands, rng, deadline, known)
            self.last["kernel"] = False
            return action
        outcome = kernel.racing_module().race(
            deal_of.view, deal, deal_of.weights, cands, rng, deadline, self.drop_z, self.rounds,
            self.iterations, self.network,
            (deal_of.past, deal_of.slips, replay) if replay and deal_of.slips else None)
        self.last = {"solved": False, "deals": outcome.deals, "moves": len(cands),
                     "left": outcome.left, "kernel": True}
        return cands[outcome.best]

    def _playout(self, g: Game, seat: int, rng: random.Random, noise: float) -> float:
        stop = None if self.rounds is None else _estimate_after(seat, self.rounds)
        return playout(g, seat, rng, noise, stop=stop)

    def _solve(self, deal: Game, seat: int, cands: list[Action], start: float,
               deadline: float) -> Action | None:
        """Search exactly, as the baseline, for its share of the time (`LeanSolver`); if that
        cannot finish, deeper and deeper with the estimate at the horizon, until a search needs
        no estimate (the exact answer) or the time is up (the deepest finished search's answer).
        In the kernel where it is ready (the same search, the same nodes, tens of times the
        nodes a second), else in Python."""
        in_kernel = self.kernel and self.rounds is not None and kernel.ready()
        search = (kernel.racing_module().solver_search(deal, seat, cands, self.nodes,
                                                        self.network)
                  if in_kernel else self._python_search(deal, seat, cands))
        action, nodes, _ = search(None, start + SOLVER_SHARE * (deadline - start))
        if action is not None:
            self.last = {"solved": True, "nodes": nodes, "moves": len(cands),
                         "kernel": in_kernel}
            return action
        if self.rounds is None:
            return None
        best, depth, finished, nodes = None, FIRST_DEPTH, 0, 0
        while True:
            action, searched, cut = search(depth, deadline)
            if action is None:
                break
            nodes += searched
            best, finished = action, depth
            if not cut:
                self.last = {"solved": True, "nodes": nodes, "moves": len(cands),
                             "kernel": in_kernel}
                return action
            if time.perf_counter() > deadline:
                break
            depth += 2
        if best is not None:
            self.last = {"solved": False, "depth": finished, "nodes": nodes,
                         "moves": len(cands), "kernel": in_kernel}
        return best

    def _python_search(self, deal: Game, seat: int, cands: list[Action]) -> Search:
        """`deal` searched in Python: exactly (`exact_solver`) or to a depth (`HorizonSolver`)."""
        def search(depth: int | None, deadline: float) -> tuple[Action | None, int, bool]:
            solver = (self.exact_solver(seat, deadline, self.nodes) if depth is None
                      else HorizonSolver(seat, deadline, depth, self.nodes))
            try:
                action = solver.best(deal, cands)[0]
            except OutOfTime:
                return None, solver.nodes, False
            return action, solver.nodes, isinstance(solver, HorizonSolver) and solver.cut
        return search


class LeanSolver(Solver):
    """The baseline's exact solver, searching the moves below the root cards first, plain before
    trump, then a take or a pass (`cards_first`) instead of `normal`'s move first.

    Over 89 heads-up endings (`python bench/endings_bench.py --solvers`) it needed 0.58 of the
    baseline's nodes and 0.38 of its time, with the same values (engine/ai/README.md).
    It reads the clock every 64 nodes, not 256: at 0.05 s a decision, 256 nodes (about 9 ms)
    took decisions on endings past the budget (max 67-70 ms against 48-50 ms, 180 decisions).
    """

    check_mask = 63

    def _order(self, g: Game, seat: int, legal: list[Action]) -> list[Action]:
        return cards_first(g, legal)


def cards_first(g: Game, legal: list[Action]) -> list[Action]:
    """`legal` with the cards first, plain before trump, each in the engine's order (by suit, low
    first), then a take or a pass."""
    trumps = SUIT_CARDS[g.trump]
    return sorted(legal, key=lambda a: 2 if a.card is None else trumps >> a.card.index & 1)


class HorizonSolver(LeanSolver):
    """The exact solver cut at `depth` plies: a round that starts deeper is the estimate's.

    It cuts only where a round starts, the positions the estimate was trained on; `cut` says
    whether it did (if not, the value is exact).
    """

    def __init__(self, seat: int, deadline: float, depth: int, max_nodes: int | None = None
                 ) -> None:
        super().__init__(seat, deadline, max_nodes)
        self.depth = depth
        self.cut = False

    def value(self, g: Game, alpha: float, beta: float) -> float:
        settle(g)
        if len(self.line) >= self.depth and not g.attacks and not g.is_over:
            self.cut = True
            return estimate(g, self.seat, (g.active & ~(1 << self.seat)).bit_length() - 1)
        return super().value(g, alpha, beta)


def _estimate_after(seat: int, rounds: int) -> Stop:
    """A playout's `stop`: heads-up, once `rounds` more rounds have started, the estimate."""
    started = -1

    def stop(g: Game) -> float | None:
        nonlocal started
        started += 1
        active = g.active
        if started < rounds or active.bit_count() != 2:
            return None
        return estimate(g, seat, (active & ~(1 << seat)).bit_length() - 1)

    return stop
