"""`python -m engine.arena` with the search kernel loaded, the kernel's speed that day beside it.

    nice -n 10 python bench/kernel_arena.py --a hard --a-opt budget=0.05 \\
        --b hard --b-opt budget=0.3 --b-opt kernel=false --games 100 --seed 1

Every argument is the arena's (`engine/arena.py`); `hard` races in the kernel unless its options
say `kernel=false` (today's Python search: the same search, the speed before issue 40). Wall-clock
budgets move with the machine, so the kernel's and Python's playouts a second are measured (as
`bench/kernel_bench.py` does, on a few positions) before and after the match and printed with it.
"""

from __future__ import annotations

import sys

from engine import arena
from engine.kernel import loader
from engine.rules import Rules

try:
    from bench.kernel_bench import cases, kernel_rate, machine, python_rate
except ModuleNotFoundError:  # run as a script: bench/ is this file's folder
    from kernel_bench import cases, kernel_rate, machine, python_rate


def speed() -> str:
    todo = cases(Rules(), 10, 1)
    kernel_rate(todo[:2], 2, 1)   # the first call loads its compiled entry: not timed
    k, _ = kernel_rate(todo, 2, 10)
    py, _ = python_rate(todo, 2)
    return (f"hard's playouts a second (heads-up throw-in, CPU time): kernel {k:,.0f}, Python "
            f"{py:,.0f} (x{k / py:.0f}); {machine()}")


def main(argv: list[str]) -> None:
    if not loader.load():
        raise SystemExit("the kernel did not load (DURAK_KERNEL=off, or numba missing)")
    print("before:", speed(), flush=True)
    arena.main(argv)
    print("after: ", speed(), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
