"""The kernel's warm-up: one tiny race and one tiny endgame search, which compile (or load from
the cache) every function a decision calls, so the first real decision pays nothing."""

from __future__ import annotations

import random
import time
from types import ModuleType

from engine.game import Game
from engine.kernel import clock
from engine.rules import Rules, Variant
from engine.sampling import dealer


def warm_up(racing: ModuleType) -> None:
    clock.measure()
    g = Game.new(Rules(variant=Variant.TRANSFER), seed=0)
    seat = g.attacker
    view = g.view(seat)
    rng = random.Random(0)
    deal = dealer(view)(rng)
    racing.race(view, deal, (), g.legal_actions(seat), rng, time.perf_counter() + 60.0,
                drop_z=3.0, rounds=2, iterations=2)
    ending = Game.from_deal(Rules(), [["7s", "8s"], ["9s", "10h"]], [], trump="h",
                            first_attacker=0)
    racing.solver_search(ending, 0, ending.legal_actions(0), 1_000)(None, time.perf_counter() + 60)
