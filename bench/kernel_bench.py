"""Kernel playouts a second against today's Python playouts: same positions, same run.

    python bench/kernel_bench.py                       # 60 positions a table, 3 tables
    python bench/kernel_bench.py --positions 30 --decisions 10

Positions: decisions with a choice in games `normal` plays against itself (heads-up throw-in,
heads-up transfer, four players transfer; 36 cards). Each is dealt once as `hard` deals it
(inference's weights), every legal move is applied, and the deal is played out from there by
`normal` everywhere, twice: as `hard` plays it (two rounds, then the learned estimate heads-up)
and to the game's end. The Python playouts (engine/ai/baseline.py) run once over all of them,
the kernel's (engine/kernel/search.py's `playouts`, all in one call, as a race plays them)
`--repeat` times; each side's playouts a second is its playouts over its CPU time (the
process's, so that other processes on a busy machine count less). The two give the same scores
(tests/ai/test_kernel.py); the bench checks that too.

Then `hard`'s exact endgame search over `--endings` heads-up endings (nothing hidden), each
search in both capped at `--cap` nodes: nodes a second, CPU time (the two search the same nodes:
tests/ai/test_kernel.py).

Then `--decisions` positions a table are decided by `hard` at 0.3 s with the kernel and without
it (the same positions, alternately): the median of each race's deals a second (wall clock; the
Python search and the chunks the kernel is called in included).

It prints the machine's state (cores, load average, Python, numba) beside the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import random
import statistics
import time
from collections.abc import Iterator

import numba
import numpy as np

from engine.ai import HardPlayer
from engine.ai.baseline import OutOfTime, _ordered, playout
from engine.ai.driver import seats_to_ask, step
from engine.ai.policy import normal_action
from engine.ai.search import LeanSolver, _estimate_after, deals, hides_nothing
from engine.game import Game
from engine.kernel import loader
from engine.kernel.clock import NO_DEADLINE
from engine.kernel.layout import action_code, encode, encode_rules
from engine.kernel.network import logistic_model
from engine.kernel.search import playouts
from engine.kernel.solver import best_move
from engine.rules import Rules, Variant

TABLES = {
    "heads-up throw-in": Rules(),
    "heads-up transfer": Rules(variant=Variant.TRANSFER),
    "4 players transfer": Rules(variant=Variant.TRANSFER, players=4),
}


def decisions(rules: Rules, seed: int) -> Iterator[tuple[Game, int]]:
    """(game, seat) at every decision with a choice, along games of `normal` against itself."""
    def decide(g: Game, seat: int, legal: list) -> object:
        return normal_action(g, seat, legal)

    game = 0
    while True:
        g = Game.new(rules, f"kernel-bench/{seed}/{game}")
        now = 0.0
        for _ in range(2000):
            if g.is_over:
                break
            asked = seats_to_ask(g)
            if asked and len(g.legal_actions(asked[0])) > 1:
                yield g.copy(), asked[0]
            now = step(g, decide, now)
        game += 1


def cases(rules: Rules, positions: int, seed: int) -> list[tuple[Game, int]]:
    """(a deal after a move, the seat that moved): every move of every position, one deal each."""
    rng = random.Random(seed)
    out = []
    found = decisions(rules, seed)
    for _ in range(positions):
        g, seat = next(found)
        for _ in range(rng.randint(0, 3)):   # spread the positions along the games
            g, seat = next(found)
        deal = deals(g.view(seat))(rng)
        for action in g.legal_actions(seat):
            child = deal.copy(with_log=False)
            child.apply(seat, action, 0.0)
            out.append((child, seat))
    return out


def python_rate(todo: list[tuple[Game, int]], rounds: int | None) -> tuple[float, list[float]]:
    scores = []
    start = time.process_time()
    for g, seat in todo:
        stop = None if rounds is None else _estimate_after(seat, rounds)
        scores.append(playout(g.copy(with_log=False), seat, stop=stop))
    return len(todo) / (time.process_time() - start), scores


def kernel_rate(todo: list[tuple[Game, int]], rounds: int | None, repeat: int
                ) -> tuple[float, list[float]]:
    """The kernel's playouts a second, all in one call (`search.playouts`), and its scores."""
    weights = logistic_model()   # the Python search's estimate: the same scores
    states = np.array([encode(g) for g, _ in todo])
    rules = np.array([encode_rules(g.rules) for g, _ in todo])
    seats = np.array([seat for _, seat in todo], dtype=np.int64)
    scores = np.empty(len(todo))
    start = time.process_time()
    playouts(states, rules, seats, -1 if rounds is None else rounds, weights, repeat, scores)
    return repeat * len(todo) / (time.process_time() - start), list(scores)


def endings(rules: Rules, count: int, seed: int) -> list[tuple[Game, int]]:
    """Decisions where nothing is hidden (heads-up, the stock empty or only the trump card)."""
    out = []
    for g, seat in decisions(rules, seed + 2):
        if hides_nothing(g.view(seat)):
            out.append((g, seat))
            if len(out) == count:
                return out
    return out


def solver_rates(todo: list[tuple[Game, int]], cap: int) -> tuple[float, float]:
    """Nodes a second of `hard`'s exact search (LeanSolver) in Python and in the kernel, each
    search capped at `cap` nodes (CPU time)."""
    weights = logistic_model()   # the Python search's estimate: the same scores
    ctl = np.zeros(7, dtype=np.int64)
    searched = {"Python": 0, "kernel": 0}
    spent = {"Python": 0.0, "kernel": 0.0}
    for g, seat in todo:
        cands = _ordered(g, seat, g.legal_actions(seat))
        solver = LeanSolver(seat, float("inf"), cap)
        start = time.process_time()
        with contextlib.suppress(OutOfTime):
            solver.best(g, cands)
        spent["Python"] += time.process_time() - start
        searched["Python"] += solver.nodes
        codes = np.array([action_code(a) for a in cands], dtype=np.int64)
        state, rules = encode(g), encode_rules(g.rules)
        start = time.process_time()
        best_move(state, rules, seat, codes, -1, cap, NO_DEADLINE, weights, ctl)
        spent["kernel"] += time.process_time() - start
        searched["kernel"] += int(ctl[0])
    return searched["Python"] / spent["Python"], searched["kernel"] / spent["kernel"]


def deals_a_second(rules: Rules, count: int, seed: int) -> tuple[float, float]:
    """Median deals a second of `hard`'s races at 0.3 s, with the kernel and without it (a
    race that is decided early stops early: deals a decision would count that as slowness)."""
    with_kernel, without = HardPlayer(), HardPlayer(kernel=False)
    found = decisions(rules, seed + 1)
    rates: dict[bool, list[float]] = {True: [], False: []}
    while min(len(v) for v in rates.values()) < count:
        g, seat = next(found)
        view, legal = g.view(seat), g.legal_actions(seat)
        for player in (with_kernel, without):
            start = time.perf_counter()
            player.choose(view, legal, random.Random(seed))
            if player.last.get("deals"):
                rates[player.kernel].append(player.last["deals"]
                                            / (time.perf_counter() - start))
    return statistics.median(rates[True]), statistics.median(rates[False])


def machine() -> str:
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (f"{os.cpu_count()} cores, load average {load}; Python {platform.python_version()}, "
            f"numba {numba.__version__}")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--positions", type=int, default=60, help="positions a table")
    p.add_argument("--repeat", type=int, default=20, help="kernel runs over the playouts")
    p.add_argument("--decisions", type=int, default=12, help="hard decisions a table (0: none)")
    p.add_argument("--endings", type=int, default=20, help="endings a heads-up table")
    p.add_argument("--cap", type=int, default=5_000, help="nodes an endgame search, at most")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv)
    began = time.perf_counter()
    if not loader.load():
        raise SystemExit("the kernel did not load (DURAK_KERNEL=off, or numba missing)")
    print(f"kernel loaded in {time.perf_counter() - began:.1f} s; {machine()}")
    # A function called from Python loads its own compiled entry at its first call: not timed.
    kernel_rate(cases(Rules(), 1, a.seed), 2, 1)
    print(f"{'table':<20} {'playout':<11} {'playouts':>8} {'Python/s':>9} {'kernel/s':>10} "
          f"{'x':>6}")
    for name, rules in TABLES.items():
        todo = cases(rules, a.positions, a.seed)
        for label, rounds in (("hard's", 2), ("to the end", None)):
            py_rate, py_scores = python_rate(todo, rounds)
            k_rate, k_scores = kernel_rate(todo, rounds, a.repeat)
            if not np.allclose(py_scores, k_scores, atol=1e-9):
                raise SystemExit(f"{name}, {label}: the kernel's scores differ from Python's")
            print(f"{name:<20} {label:<11} {len(todo):>8} {py_rate:>9,.0f} {k_rate:>10,.0f} "
                  f"{k_rate / py_rate:>6.0f}")
    print(f"hard's exact endgame search, nodes a second ({a.endings} endings a table, at most "
          f"{a.cap:,} nodes each):")
    for name, rules in TABLES.items():
        if rules.players == 2:
            py_nodes, k_nodes = solver_rates(endings(rules, a.endings, a.seed), a.cap)
            print(f"  {name:<20} Python {py_nodes:>8,.0f}   kernel {k_nodes:>10,.0f}   "
                  f"x{k_nodes / py_nodes:.0f}")
    if a.decisions:
        print(f"hard at 0.3 s, median deals a second of its races ({a.decisions} decisions a "
              "table, wall clock):")
        for name, rules in TABLES.items():
            k, py = deals_a_second(rules, a.decisions, a.seed)
            print(f"  {name:<20} kernel {k:>8,.0f}   Python {py:>6,.0f}   x{k / py:.0f}")
    print(f"machine after the run: {machine()}")


if __name__ == "__main__":
    main()
