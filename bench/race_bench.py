"""How often `hard`'s race picks a worse move with cards hidden, against a race given all the time.

    python bench/race_bench.py                                 # hard at 0.05 s and at 0.3 s
    python bench/race_bench.py --variant transfer --positions 120
    python bench/race_bench.py --player budget=0.05,drop_z=2 --player budget=0.05,drop_z=4

Positions: every fourth decision of seat 0 with a choice in games of `normal` against itself
(heads-up unless `--players`, 36 cards; `bench/inference_bench.py`'s games), where a card is
hidden (`hides_nothing` is false: the race decides, not the exact search). Each position's moves
are valued by `hard`'s own race without a clock: its deals (weighted by inference) and its
playouts, every move on each of `--reference` deals, none dropped. Each `--player` (`hard` with
those options; repeatable) then decides each position `--repeats` times with different random
draws, and the bench prints how many of its moves were worth less than the best by more than
`--worse`, the mean loss (value of the best move less that of its move; 1 is a whole game), the
median deals a decision raced and the decisions' p99 and longest time.

The values are the race's own, so this measures how near the race comes, in its time, to what its
playouts would say with all the time: the noise of few deals, with far less noise than arena games.
It cannot tell whether the playouts say the truth, so it measures the race (how many deals, when
a move is dropped, which is played), not the playouts or the estimate.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time

from engine.actions import Action
from engine.ai.baseline import _ordered
from engine.ai.search import HardPlayer, hides_nothing
from engine.arena import options, percentile
from engine.views import PlayerView

try:
    from bench.inference_bench import positions as decisions
except ModuleNotFoundError:  # run as a script: bench/ is this file's folder
    from inference_bench import positions as decisions


def cases(count: int, variant: str, seed: int, players: int = 2
          ) -> list[tuple[PlayerView, list[Action]]]:
    """The first `count` positions (module text): seat 0's view and legal moves."""
    out = []
    for g, view in decisions(10 * count, variant, 4, seed, players=players):
        if not hides_nothing(view):
            out.append((view, g.legal_actions(0)))
            if len(out) == count:
                break
    return out


def reference(view: PlayerView, legal: list[Action], deals: int, seed: int
              ) -> dict[Action, float]:
    """Each move's mean over `deals` deals of `hard`'s race, every move on every deal."""
    hard = HardPlayer()
    rng = random.Random(seed)
    deal_of = hard._dealer(view)
    deal = deal_of(rng)
    moves = _ordered(deal, view.seat, legal)
    sums = [0.0] * len(moves)
    for i in range(deals):
        if i:
            deal = deal_of(rng)
        scores = hard._play_each(deal, view.seat, moves, rng.random(), False, math.inf)
        sums = [s + x for s, x in zip(sums, scores, strict=True)]
    return {m: s / deals for m, s in zip(moves, sums, strict=True)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=240)
    ap.add_argument("--variant", default="throw-in")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reference", type=int, default=3000, help="deals that value a position")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--worse", type=float, default=0.005, help="a loss that counts as worse")
    ap.add_argument("--player", action="append", help="hard's options, e.g. budget=0.05")
    args = ap.parse_args()
    found = cases(args.positions, args.variant, args.seed, args.players)
    valued = [(view, legal, reference(view, legal, args.reference, i))
              for i, (view, legal) in enumerate(found)]
    for spec in args.player or ["budget=0.05", "budget=0.3"]:
        player = HardPlayer(**options(spec.split(",")))
        losses, deals, times = [], [], []
        for i, (view, legal, values) in enumerate(valued):
            best = max(values.values())
            for r in range(args.repeats):
                start = time.perf_counter()
                move = player.choose(view, legal, random.Random(1000 * i + r))
                times.append(time.perf_counter() - start)
                losses.append(best - values[move])
                deals.append(player.last.get("deals", 0))
        print(json.dumps({"player": spec, "variant": args.variant, "players": args.players,
                          "decisions": len(losses),
                          "worse_moves": sum(x > args.worse for x in losses),
                          "mean_loss": round(statistics.mean(losses), 4),
                          "median_deals": statistics.median(deals),
                          "p99_ms": round(1000 * percentile(times, 0.99), 1),
                          "max_ms": round(1000 * max(times), 1)}))


if __name__ == "__main__":
    main()
