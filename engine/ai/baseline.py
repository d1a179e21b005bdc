"""Today's `hard` as it was on 2026-12-04, frozen: the baseline the arena measures the new `hard`
against (issue 19). Not offered to players; do not improve it (improve `engine/ai/search.py`).

The algorithm, as it was documented then:

The `hard` player: search over the hidden cards within a time budget.

1. Determinize: deal the cards the seat cannot see at random, consistently with everything it has
   seen (`engine.sampling.sample`: its hand, the table, the discard, cards others are known to
   hold — what they took, the trump card they drew — and every hand's and the stock's count).
2. Evaluate every legal move on the same deals (paired Monte Carlo): apply it, then play the deal
   to its end with the `normal` policy for every seat; score 1 if the seat is safe, 1/2 for a
   draw, 0 for the durak. Using the same deals for every move makes their differences far less
   noisy than their values.
3. Race the moves: after each deal, drop a move that trails the leader by more than two standard
   errors of the paired difference. Stop when one move is left, the budget (time, or a number of
   deals) is spent, or a few dozen deals showed no difference. The best mean wins; ties go to
   `normal`'s own choice, which is evaluated first.
4. With the stock empty and two players left, nothing is hidden: solve the endgame exactly
   (alpha-beta over the driver's turn order with a transposition table) if it fits the budget,
   else fall back to (noisy) playouts on the one possible deal.

The clock is read after every playout and every 256 solver nodes; the search stops `margin`
seconds before the budget so that a decision stays within it on a busy machine.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable

from engine.actions import Action
from engine.ai.driver import seats_to_ask
from engine.ai.players import Player
from engine.ai.policy import easy_action, normal_action
from engine.game import Game
from engine.sampling import Dealer, dealer
from engine.views import PlayerView

DEFAULT_BUDGET = 0.3
SAME_AFTER = 32          # deals showing no difference between the moves left: stop early
DROP_Z = 2.0             # standard errors of the paired difference that drop a move
MIN_DEALS_TO_DROP = 8
SOLVER_SHARE = 0.6
MAX_MARGIN = 0.03        # seconds: the most a decision keeps in reserve
MAX_LINE = 300           # solver plies on one line (Python's stack is the limit)
PLAYOUT_STEPS = 1_000    # a playout still going after this many moves has cards going round
NOISE = 0.15             # chance of a beginner's move in playouts on a fully known deal


def reward(g: Game, seat: int) -> float:
    if g.durak is None:
        return 0.5
    return 0.0 if g.durak == seat else 1.0


Stop = Callable[[Game], float | None]


def playout(g: Game, seat: int, rng: random.Random | None = None, noise: float = 0.0,
            now: float = 0.0, stop: Stop | None = None) -> float:
    """Play `g` (in place) to its end with `normal` everywhere; `seat`'s reward.

    With `noise`, each decision is a beginner's instead with that probability (drawn from `rng`),
    which varies the playouts of a deal that is fully known. With `stop`, it is asked at every
    round's start and what it returns, unless None, is the playout's value (the new `hard`'s
    estimate; the baseline has no `stop`).
    """
    legal_of = g.legal_actions
    for _ in range(PLAYOUT_STEPS):
        if g.is_over:
            return reward(g, seat)
        if not g.active >> seat & 1 and g.active & (g.active - 1):
            return 1.0  # out of cards while two others still play: safe
        if stop is not None and not g.attacks:
            value = stop(g)
            if value is not None:
                return value
        seats = seats_to_ask(g)
        if not seats:
            due = g.next_deadline
            assert due is not None   # a game not over always has a clock running
            now = max(now, due)
            g.advance(now)
            continue
        s = seats[0]
        legal = legal_of(s)
        if len(legal) == 1:
            action = legal[0]
        elif noise and rng is not None and rng.random() < noise:
            action = easy_action(g, s, legal, rng)
        else:
            action = normal_action(g, s, legal)
        g.apply(s, action, now)
    return 0.5  # cut short: cards went round without end (driver.play_out)


class OutOfTime(Exception):
    """A search ran past its deadline or its node cap."""


class Solver:
    """Exact value of a fully known endgame for `seat` (1 safe, 1/2 draw, 0 durak).

    Alpha-beta over the moves `engine.ai.driver` asks for, with `normal`'s move tried first and a
    transposition table of value bounds. Raises OutOfTime after `deadline`.
    """

    check_mask = 255   # the clock is read every check_mask + 1 nodes

    def __init__(self, seat: int, deadline: float, max_nodes: int | None = None) -> None:
        self.seat = seat
        self.deadline = deadline
        self.max_nodes = max_nodes
        self.nodes = 0
        self.table: dict[tuple, tuple[float, float]] = {}
        # Positions on the current line: cards can go round through takes, so the game graph
        # has cycles; a line that comes back to a position is scored as a draw, like a game
        # the arena cuts short.
        self.line: set[tuple] = set()

    def best(self, g: Game, legal: list[Action]) -> tuple[Action, float]:
        """The best of `legal` for the seat at the root (its turn), and its value."""
        best_a, best_v = legal[0], -1.0
        for a in _ordered(g, self.seat, legal):
            child = g.copy(with_log=False)
            child.apply(self.seat, a, 0.0)
            v = self.value(child, max(best_v, 0.0), 1.0)
            if v > best_v:
                best_a, best_v = a, v
                if v >= 1.0:
                    break
        return best_a, best_v

    def value(self, g: Game, alpha: float, beta: float) -> float:
        seats = settle(g)
        if g.is_over:
            return reward(g, self.seat)
        key = _position(g)
        if key in self.line or len(self.line) > MAX_LINE:
            return 0.5
        lo, hi = self.table.get(key, (0.0, 1.0))
        if lo >= beta or lo == hi:
            return lo
        if hi <= alpha:
            return hi
        alpha, beta = max(alpha, lo), min(beta, hi)
        self._count_node()
        self.line.add(key)
        try:
            best = self._best_child(g, seats[0], alpha, beta)
        finally:
            self.line.discard(key)
        self._store(key, best, alpha, beta, lo, hi)
        return best

    def _count_node(self) -> None:
        self.nodes += 1
        if not self.nodes & self.check_mask and (time.perf_counter() > self.deadline or (
                self.max_nodes is not None and self.nodes > self.max_nodes)):
            raise OutOfTime

    def _best_child(self, g: Game, s: int, alpha: float, beta: float) -> float:
        """The value of `s`'s best move for him: max for the root's seat, min for the other."""
        mine = s == self.seat
        best = 0.0 if mine else 1.0
        for a in self._order(g, s, g.legal_actions(s)):
            child = g.copy(with_log=False)
            child.apply(s, a, 0.0)
            v = self.value(child, alpha, beta)
            if mine:
                if v > best:
                    best = v
                    alpha = max(alpha, v)
            elif v < best:
                best = v
                beta = min(beta, v)
            if alpha >= beta:
                break
        return best

    def _order(self, g: Game, seat: int, legal: list[Action]) -> list[Action]:
        """The order `seat`'s moves are searched in below the root (the new `hard` changes it)."""
        return _ordered(g, seat, legal)

    def _store(self, key: tuple, best: float, alpha: float, beta: float, lo: float,
               hi: float) -> None:
        """Remember `best` as an upper bound (it failed low), a lower bound, or exact."""
        if best <= alpha:
            self.table[key] = (lo, best)
        elif best >= beta:
            self.table[key] = (best, hi)
        else:
            self.table[key] = (best, best)


def settle(g: Game) -> list[int]:
    """Fire deadlines until someone is asked to move (or the game ends); those seats."""
    while not g.is_over:
        seats = seats_to_ask(g)
        if seats:
            return seats
        due = g.next_deadline
        assert due is not None   # a game not over always has a clock running
        g.advance(max(0.0, due))
    return []


def _position(g: Game) -> tuple:
    """What the solver's value depends on (clocks and the discard do not matter)."""
    return (tuple(g.hands), tuple(g.attacks), tuple(g.defences), g.round_starter, g.defender,
            g.taking, g.passes, g.attack_limit, g.round_limit, g.active, g.showed_trump)


def _ordered(g: Game, seat: int, legal: list[Action]) -> list[Action]:
    """`legal` with the normal policy's choice first."""
    if len(legal) == 1:
        return legal
    first = normal_action(g, seat, legal)
    return [first, *(a for a in legal if a != first)]


def perfect_information(g: Game, seat: int) -> bool:
    """Nothing is hidden from `seat`: the stock is empty and one other player holds cards."""
    return not g.stock and g.active.bit_count() == 2 and bool(g.active >> seat & 1)


class BaselinePlayer(Player):
    """Frozen: determinized paired Monte Carlo with `normal` playouts; exact endgames.

    `budget`: seconds a decision (default 0.3). `iterations`: at most this many deals, and
    `nodes`: at most this many solver nodes (with both, a decision is repeatable: tests; the time
    budget still applies). `solve`: solve known endgames exactly. `margin`: seconds kept in
    reserve for a busy machine.
    """

    name = "baseline"
    drop_z = DROP_Z
    margin_share = 0.2   # of the budget kept in reserve, at most MAX_MARGIN (the new `hard`: 0.1)
    exact_solver: type[Solver] = Solver   # the new `hard` searches known deals in its own order

    def __init__(self, budget: float = DEFAULT_BUDGET, iterations: int | None = None,
                 nodes: int | None = None, solve: bool = True, margin: float | None = None
                 ) -> None:
        if budget <= 0:
            raise ValueError("budget must be positive")
        self.budget = budget
        self.iterations = iterations
        self.nodes = nodes
        self.solve = solve
        self.margin = min(MAX_MARGIN, budget * self.margin_share) if margin is None else margin
        # What the last decision did (for benchmarks): "solved", or the deals it raced over.
        self.last: dict = {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(budget={self.budget}, iterations={self.iterations})"

    def choose(self, view: PlayerView, legal: list[Action], rng: random.Random) -> Action:
        if len(legal) == 1:
            return legal[0]
        start = time.perf_counter()
        deadline = start + self.budget - self.margin
        seat = view.seat
        deal_of = self._dealer(view)
        deal = deal_of(rng)
        cands = _ordered(deal, seat, legal)
        known = self._nothing_hidden(view, deal)
        if known and self.solve:
            action = self._solve(deal, seat, cands, start, deadline)
            if action is not None:
                return action
        return self._race(seat, deal_of, deal, cands, rng, deadline, known)

    def _dealer(self, view: PlayerView) -> Dealer:
        """How this decision deals the hidden cards (the new `hard` weighs what it saw)."""
        return dealer(view)

    def _solve(self, deal: Game, seat: int, cands: list[Action], start: float,
               deadline: float) -> Action | None:
        """The exact best of `cands` on the one deal there is, or None if it did not fit."""
        # The solver gets most of the budget; if it cannot finish, playouts get the rest.
        solver = self.exact_solver(seat, start + SOLVER_SHARE * (deadline - start), self.nodes)
        try:
            action = solver.best(deal, cands)[0]
        except OutOfTime:
            return None
        self.last = {"solved": True, "nodes": solver.nodes, "moves": len(cands)}
        return action

    def _nothing_hidden(self, view: PlayerView, deal: Game) -> bool:
        """Whether `deal` is the only deal the view allows (the new `hard` says so of more)."""
        return perfect_information(deal, view.seat)

    def _race(self, seat: int, deal_of: Dealer, deal: Game,
              cands: list[Action], rng: random.Random, deadline: float, known: bool) -> Action:
        scores: list[list[float]] = [[] for _ in cands]
        alive = list(range(len(cands)))
        deals = 0
        while len(alive) > 1 and (self.iterations is None or deals < self.iterations):
            if deals and not known:
                deal = deal_of(rng)
            results = self._play_each(deal, seat, [cands[i] for i in alive], rng.random(),
                                      known, deadline)
            if results is None:
                break  # out of time mid-deal: a partial deal would unpair the moves
            for i, r in zip(alive, results, strict=True):
                scores[i].append(r)
            deals += 1
            alive = _survivors(alive, scores, self.drop_z)
            if time.perf_counter() > deadline or (
                    deals >= SAME_AFTER and _all_same(alive, scores)):
                break
        self.last = {"solved": False, "deals": deals, "moves": len(cands), "left": len(alive)}
        if not deals:
            return cands[0]
        return cands[max(alive, key=lambda i: (sum(scores[i]), -i))]

    def _play_each(self, deal: Game, seat: int, moves: list[Action], seed: float, known: bool,
                   deadline: float) -> list[float] | None:
        """Each move's playout score on one deal (the same noise for each); None if time ran
        out."""
        out = []
        for move in moves:
            g = deal.copy(with_log=False)
            g.apply(seat, move, 0.0)
            out.append(self._playout(g, seat, random.Random(seed), NOISE if known else 0.0))
            if time.perf_counter() > deadline:
                return None
        return out

    def _playout(self, g: Game, seat: int, rng: random.Random, noise: float) -> float:
        """A move's score on one deal (the new `hard` stops its playouts early)."""
        return playout(g, seat, rng, noise)


def _survivors(alive: list[int], scores: list[list[float]], drop_z: float) -> list[int]:
    n = len(scores[alive[0]])
    if n < MIN_DEALS_TO_DROP:
        return alive
    leader = max(alive, key=lambda i: (sum(scores[i]), -i))
    lead = scores[leader]
    keep = []
    for i in alive:
        if i == leader:
            keep.append(i)
            continue
        diffs = [x - y for x, y in zip(lead, scores[i], strict=True)]
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        if mean > 0 and mean > drop_z * math.sqrt(var / n):
            continue
        keep.append(i)
    return keep


def _all_same(alive: list[int], scores: list[list[float]]) -> bool:
    first = scores[alive[0]]
    return all(scores[i] == first for i in alive[1:])
