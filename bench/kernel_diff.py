"""The kernel against the engine for a million steps (tests/ai/test_kernel_diff.py runs 30,000).

    python bench/kernel_diff.py                     # 1,000,000 steps, seed 1
    python bench/kernel_diff.py --steps 200000 --seed 7

Random games on random tables (2-6 players, every deck, both games, every option), each step
compared as the test does (engine/kernel/compare.py): every seat's legal actions, the seat the
driver asks, `normal`'s choice for every seat with a move, the whole state after the step. It
prints the steps, the games by table, the hidden-rule corners reached and every difference found
(the first ten described); the exit status is 1 if there was any.
"""

from __future__ import annotations

import argparse
import sys
import time

from engine.kernel import compare


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=1_000_000)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv)
    start = time.perf_counter()
    tally = compare.Tally()
    reported = 0
    for tally in compare.games_until(a.steps, a.seed):
        if tally.steps >= reported + 100_000:
            reported = tally.steps // 100_000 * 100_000
            print(f"  {tally.steps:,} steps, {tally.games:,} games, {tally.differences} "
                  f"differences, {time.perf_counter() - start:.0f} s", flush=True)
    elapsed = time.perf_counter() - start
    print(f"{tally.steps:,} steps in {tally.games:,} games, {elapsed:.0f} s "
          f"({tally.steps / elapsed:,.0f} steps/s): {tally.differences} differences")
    print("games by table:")
    for table, count in sorted(tally.tables.items()):
        print(f"  {table}: {count}")
    print("corners reached (states):")
    for corner, count in sorted(tally.corners.items()):
        print(f"  {corner}: {count:,}")
    for line in tally.described:
        print("DIFFERENCE", line)
    return 1 if tally.differences else 0


if __name__ == "__main__":
    sys.exit(main())
