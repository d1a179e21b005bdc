"""Reproduces the computer players' figures in engine/ai/README.md.

Run: python bench/ai_bench.py [--only easy,hard2p,hard4p,curve] [--workers 2] [--scale 1.0]
     [--json results.json]

Sections (each an arena match on mirrored deals, `engine/arena.py`; seed 1):
  easy      normal vs easy, heads-up, throw-in and transfer, 20000 games each
  hard2p    hard (default budget, 0.3 s) vs normal, heads-up, both games, 1000 games each
  hard4p    one hard vs three normal, 4 players, both games, 400 games each
  curve     hard at 0.03 s and 0.1 s vs normal, heads-up throw-in, 300 games each
  rules     normal without one of its rules vs normal, heads-up, both games, 4000 games each
Issue 19's, against the frozen baseline (`hard` before it, engine/ai/baseline.py):
  baseline  hard vs baseline, both at 0.3 s, heads-up, both games, 1000 games each
  cheap     hard at 0.05 s vs baseline at 0.3 s, heads-up, both games, 1000 games each
  hard3p    one hard vs two normal, 3 players, both games, 600 games each
  many      one hard vs baselines, 3 and 4 players, both games, 600 / 800 games each
`bench/seeing_hard.py` plays the figures of `hard` told the other hand or the whole deal.
Each prints the arena report and, for hard, its decision-time percentiles (p50, p90, p99, max).
`--scale` multiplies every game count (0.1 for a quick look). Timing figures depend on the
machine and its load: the README gives the machine they were taken on.
"""

from __future__ import annotations

import argparse
import json
import time

from engine.arena import percentile, report, run
from engine.rules import Rules

VARIANTS = ("throw-in", "transfer")
# (side A, side B, A's options, B's options, players, variant, games)
SECTIONS = {
    "easy": [("normal", "easy", {}, {}, 2, variant, 20000) for variant in VARIANTS],
    "hard2p": [("hard", "normal", {}, {}, 2, variant, 1000) for variant in VARIANTS],
    "hard4p": [("hard", "normal", {}, {}, 4, variant, 400) for variant in VARIANTS],
    "curve": [("hard", "normal", {"budget": b}, {}, 2, "throw-in", 300) for b in (0.03, 0.1)],
    "rules": [("normal", "normal", off, {}, 2, variant, 4000)
              for off in ({"throw_all_stock": -1}, {"new_rank_cost": 0.0},
                          {"endgame_pair_bonus": 0.0}, {"late_stock": 99})
              for variant in VARIANTS],
    "baseline": [("hard", "baseline", {}, {}, 2, variant, 1000) for variant in VARIANTS],
    "cheap": [("hard", "baseline", {"budget": 0.05}, {}, 2, variant, 1000)
              for variant in VARIANTS],
    "hard3p": [("hard", "normal", {}, {}, 3, variant, 600) for variant in VARIANTS],
    "many": [("hard", "baseline", {}, {}, players, variant, 200 * players)
             for players in (3, 4) for variant in VARIANTS],
}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", default=",".join(SECTIONS), help="comma-separated sections")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", help="append one JSON line per match to this file")
    args = p.parse_args()
    for section in args.only.split(","):
        for a_name, b_name, a_opts, b_opts, players, variant, games in SECTIONS[section]:
            rules = Rules(variant=variant, players=players)
            started = time.perf_counter()
            a, b, records = run(a_name, b_name, max(players, round(games * args.scale)), rules,
                                args.seed, a_options=a_opts, b_options=b_opts,
                                workers=args.workers)
            wall = time.perf_counter() - started
            print(f"[{section}] " + report(a, b, records, rules))
            times = a.times
            pct = {q: percentile(times, q) for q in (0.5, 0.9, 0.99, 1.0)}
            if a_name == "hard":
                print("  hard decision time: " + "  ".join(
                    f"p{round(100 * q)} {1000 * t:.1f} ms" for q, t in pct.items())
                    + f"  ({len(times)} decisions)")
            unfinished = sum(rec["unfinished"] for rec in records)
            print(f"  wall {wall:.0f} s", flush=True)
            if args.json:
                with open(args.json, "a") as f:
                    f.write(json.dumps({
                        "section": section, "a": a_name, "b": b_name, "a_options": a_opts,
                        "b_options": b_opts,
                        "players": players, "variant": variant, "games": len(records),
                        "a_wins": a.wins, "a_losses": a.losses, "a_draws": a.draws,
                        "b_wins": b.wins, "b_losses": b.losses, "b_draws": b.draws,
                        "a_time_pct": pct, "unfinished": unfinished, "wall": wall}) + "\n")


if __name__ == "__main__":
    main()
