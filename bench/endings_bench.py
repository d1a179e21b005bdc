"""How often a player picks a worse move in heads-up endings, against the exact solver.

    python bench/endings_bench.py                 # 60 endings; baseline and hard at 0.05 and 0.3 s
    python bench/endings_bench.py --endings 100 --seed 3

Endings: positions of the tests' random games (tests/helpers/positions.py), heads-up with 36 cards,
where nothing is hidden (the stock empty) and the mover has a choice, with at least 9 cards in the
two hands, whose moves the exact solver (`engine.ai.baseline.Solver`) can value within `--solve`
seconds each and whose values differ. For each player: how many times its move was worth less than
the best one, and the mean loss (exact value of the best move less that of its move; 1 is a whole
game). A measure of the endgame with far less noise than arena games.
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
    args = ap.parse_args()
    cases = endings(args.endings, args.seed, args.solve)
    for name, budget in PLAYERS:
        player = get_player(name, budget=budget)
        losses = []
        for g, seat, values in cases:
            move = player.choose(g.view(seat), g.legal_actions(seat), random.Random(1))
            losses.append(max(values.values()) - values[move])
        print(json.dumps({"player": name, "budget": budget, "endings": len(cases),
                          "worse_moves": sum(x > 0 for x in losses),
                          "mean_loss": round(statistics.mean(losses), 3)}))


if __name__ == "__main__":
    main()
