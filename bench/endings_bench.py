"""How often a player picks a worse move in heads-up endings, against the exact solver.

    python bench/endings_bench.py                 # 60 endings; baseline and hard at 0.05 and 0.3 s
    python bench/endings_bench.py --endings 100 --seed 3
    python bench/endings_bench.py --solvers       # the exact solvers' nodes and time instead

Endings: positions of the tests' random games (tests/helpers/positions.py), heads-up with 36 cards,
where nothing is hidden (the stock empty) and the mover has a choice, with at least 9 cards in the
two hands, whose moves the exact solver (`engine.ai.baseline.Solver`) can value within `--solve`
seconds each and whose values differ. For each player: how many times its move was worth less than
the best one, and the mean loss (exact value of the best move less that of its move; 1 is a whole
game). A measure of the endgame with far less noise than arena games.

With `--solvers`, each ending is solved from the mover's seat by the baseline's exact solver and by
the new `hard`'s (`engine.ai.search.LeanSolver`, another move order), one after the other: their
nodes and seconds, summed and as the median ratio of an ending, and whether they agree.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

from engine import Game
from engine.actions import Action
from engine.ai import get_player
from engine.ai.baseline import OutOfTime, Solver, perfect_information
from engine.ai.search import LeanSolver

ROOT = Path(__file__).resolve().parent.parent

PLAYERS = tuple((name, budget) for budget in (0.05, 0.3) for name in ("baseline", "hard"))


def exact_values(g: Game, seat: int, seconds: float) -> dict[Action, float] | None:
    values = {}
    deadline = time.perf_counter() + seconds
    try:
        for move in g.legal_actions(seat):
            child = g.copy(with_log=False)
            child.apply(seat, move, 0.0)
            values[move] = Solver(seat, deadline).value(child, 0.0, 1.0)
    except OutOfTime:
        return None
    return values


def endings(count: int, seed: int, seconds: float) -> list[tuple[Game, int, dict]]:
    """The first `count` endings (module text) along the tests' random games (`positions`)."""
    if str(ROOT) not in sys.path:   # tests/ is no installed package
        sys.path.insert(0, str(ROOT))
    from tests.helpers.positions import positions

    out = []
    for g, seat in positions(seed=seed, games=50 * count, every=1):
        if (g.rules.players != 2 or g.rules.deck != 36 or not perfect_information(g, seat)
                or sum(map(int.bit_count, g.hands)) < 9):
            continue
        values = exact_values(g, seat, seconds)
        if values and len(set(values.values())) > 1:
            out.append((g, seat, values))
            if len(out) == count:
                break
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--endings", type=int, default=60)
    ap.add_argument("--seed", type=int, default=77)
    ap.add_argument("--solve", type=float, default=4.0, help="seconds to value one ending")
    ap.add_argument("--solvers", action="store_true", help="compare the exact solvers instead")
    args = ap.parse_args()
    cases = endings(args.endings, args.seed, args.solve)
    if args.solvers:
        compare_solvers(cases, args.solve)
        return
    for name, budget in PLAYERS:
        player = get_player(name, budget=budget)
        losses = []
        for g, seat, values in cases:
            move = player.choose(g.view(seat), g.legal_actions(seat), random.Random(1))
            losses.append(max(values.values()) - values[move])
        print(json.dumps({"player": name, "budget": budget, "endings": len(cases),
                          "worse_moves": sum(x > 0 for x in losses),
                          "mean_loss": round(statistics.mean(losses), 3)}))


def compare_solvers(cases: list[tuple[Game, int, dict]], seconds: float) -> None:
    totals = {Solver: [0, 0.0], LeanSolver: [0, 0.0]}
    node_ratios, time_ratios, agree, unsolved = [], [], 0, 0
    for g, seat, _ in cases:
        found = {}
        try:
            for kind in (Solver, LeanSolver):
                start = time.perf_counter()
                solver = kind(seat, start + seconds)
                value = solver.best(g, g.legal_actions(seat))[1]
                found[kind] = (solver.nodes, time.perf_counter() - start, value)
        except OutOfTime:
            unsolved += 1
            continue
        for kind, (nodes, secs, _) in found.items():
            totals[kind][0] += nodes
            totals[kind][1] += secs
        (old_nodes, old_s, old_v), (new_nodes, new_s, new_v) = found[Solver], found[LeanSolver]
        node_ratios.append((new_nodes + 1) / (old_nodes + 1))   # + the root, which no one counts
        time_ratios.append(new_s / old_s)
        agree += old_v == new_v
    for kind, (nodes, secs) in totals.items():
        print(json.dumps({"solver": kind.__name__, "endings": len(cases) - unsolved, "nodes": nodes,
                          "seconds": round(secs, 2), "nodes_per_second": round(nodes / secs)}))
    print(json.dumps({"lean_over_baseline": {
        "nodes": round(totals[LeanSolver][0] / totals[Solver][0], 3),
        "seconds": round(totals[LeanSolver][1] / totals[Solver][1], 3),
        "median_nodes_an_ending": round(statistics.median(node_ratios), 3),
        "median_seconds_an_ending": round(statistics.median(time_ratios), 3)},
        "same_value": agree, "left_out_unsolved": unsolved}))


if __name__ == "__main__":
    main()
