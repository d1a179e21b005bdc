"""`python -m engine.arena` with the search kernel loaded, the kernel's speed that day beside it.

    nice -n 10 python bench/kernel_arena.py --a hard --a-opt budget=0.05 \\
        --b frozen-hard --b-opt budget=0.3 --games 100 --seed 1
    nice -n 10 python bench/kernel_arena.py --matches cheap,even,normal,three,four --scale 0.1

Every argument is the arena's (`engine/arena.py`); `hard` races in the kernel. `frozen-hard` is
`hard` as it was on 2026-12-07 without its kernel (engine/ai/frozen_hard.py): "today's `hard`"
of issue 40, the speed and the search before it. Wall-clock budgets move with the machine, so
the kernel's and Python's playouts a second are measured (as `bench/kernel_bench.py` does, on a
few positions) before the first match and after each, and printed with the machine's load.

`--matches` plays issue 40's matches in turn, each in both games, `--seed` (default 1) and
`--workers` (default 1) as the arena's; `--scale` multiplies the games (the issue's counts):

    cheap   hard at 0.05 s vs frozen-hard at 0.3 s, heads-up, 1,000 games
    even    hard vs frozen-hard, both at 0.3 s, heads-up, 1,000 games
    normal  hard at 0.3 s vs normal, heads-up, 1,000 games
    three   one hard vs two frozen-hards, all at 0.3 s, 400 games
    four    one hard vs three frozen-hards, all at 0.3 s, 400 games

Each match prints the arena's report: win and durak rates with 95 % Wilson intervals, decision
times, and with three or four players the durak rate over the fair share.
"""

from __future__ import annotations

import argparse
import sys
from typing import NamedTuple

from engine import arena
from engine.kernel import loader
from engine.rules import Rules, Variant

try:
    from bench.kernel_bench import cases, kernel_rate, machine, python_rate
except ModuleNotFoundError:  # run as a script: bench/ is this file's folder
    from kernel_bench import cases, kernel_rate, machine, python_rate


class Match(NamedTuple):
    b: str
    a_budget: float
    b_budget: float | None   # None: `normal`, which has no budget
    players: int
    games: int


MATCHES = {
    "cheap": Match("frozen-hard", 0.05, 0.3, 2, 1000),
    "even": Match("frozen-hard", 0.3, 0.3, 2, 1000),
    "normal": Match("normal", 0.3, None, 2, 1000),
    "three": Match("frozen-hard", 0.3, 0.3, 3, 400),
    "four": Match("frozen-hard", 0.3, 0.3, 4, 400),
}


def speed() -> str:
    todo = cases(Rules(), 10, 1)
    kernel_rate(todo[:2], 2, 1)   # the first call loads its compiled entry: not timed
    k, _ = kernel_rate(todo, 2, 10)
    py, _ = python_rate(todo, 2)
    return (f"hard's playouts a second (heads-up throw-in, CPU time): kernel {k:,.0f}, Python "
            f"{py:,.0f} (x{k / py:.0f}); {machine()}")


def play(names: list[str], scale: float, seed: int, workers: int) -> None:
    for name in names:
        match = MATCHES[name]
        for variant in Variant:
            rules = Rules(variant=variant, players=match.players)
            b_options = {} if match.b_budget is None else {"budget": match.b_budget}
            a, b, records = arena.run("hard", match.b, max(1, round(match.games * scale)), rules,
                                      seed, a_options={"budget": match.a_budget},
                                      b_options=b_options, workers=workers)
            print(f"{name}: {arena.report(a, b, records, rules)}", flush=True)
            print("after: ", speed(), flush=True)


def main(argv: list[str]) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], add_help=False)
    p.add_argument("--matches", help=f"comma-separated, of {', '.join(MATCHES)}")
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=1)
    ours, rest = p.parse_known_args(argv)
    if not loader.load():
        raise SystemExit("the kernel did not load (DURAK_KERNEL=off, or numba missing)")
    print("before:", speed(), flush=True)
    if ours.matches is None:
        arena.main(argv)   # the arena's own arguments, --seed and --workers among them
        print("after: ", speed(), flush=True)
        return
    names = ours.matches.split(",")
    if rest or not set(names) <= set(MATCHES):
        p.error(f"--matches takes names of {', '.join(MATCHES)}, with --scale, --seed and "
                f"--workers only")
    play(names, ours.scale, ours.seed, ours.workers)


if __name__ == "__main__":
    main(sys.argv[1:])
