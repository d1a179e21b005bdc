"""What the network estimate costs the kernel: short playouts a second with it and without it.

    python bench/network_bench.py

`hard`'s short playouts (two rounds, then the estimate heads-up) of every legal move on one deal
of each of 30 decisions a game (`bench/kernel_bench.py`'s positions), ten times over, in one
kernel call: with the logistic estimate alone and with the network where it is used
(engine/kernel/network.py), CPU time, the same positions in the same run.
"""

from __future__ import annotations

import time

import numpy as np

from engine.kernel import loader, network
from engine.kernel.layout import encode, encode_rules
from engine.kernel.search import playouts
from engine.rules import Rules, Variant

try:
    from bench.kernel_bench import cases, machine
except ModuleNotFoundError:  # run as a script: bench/ is this file's folder
    from kernel_bench import cases, machine

REPEAT = 10


def main() -> None:
    if not loader.load():
        raise SystemExit("the kernel did not load (DURAK_KERNEL=off, or numba missing)")
    for variant in (Variant.THROW_IN, Variant.TRANSFER):
        todo = cases(Rules(variant=variant), 30, 1)
        states = np.array([encode(g) for g, _ in todo])
        rules = np.array([encode_rules(g.rules) for g, _ in todo])
        seats = np.array([seat for _, seat in todo], dtype=np.int64)
        scores = np.empty(len(todo))
        playouts(states[:2], rules[:2], seats[:2], 2, network.model(), 1, scores[:2])   # loads
        rates = []
        for name, model in (("logistic", network.logistic_model()), ("network", network.model())):
            start = time.process_time()
            playouts(states, rules, seats, 2, model, REPEAT, scores)
            rates.append(f"{name} {REPEAT * len(todo) / (time.process_time() - start):,.0f}")
        print(f"{variant}: short playouts a second, {'; '.join(rates)}")
    print(machine())


if __name__ == "__main__":
    main()
