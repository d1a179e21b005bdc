"""The hard player's search: budget, repeatability, playouts."""

from __future__ import annotations

import random
import time
from itertools import islice

from engine.ai import get_player
from engine.ai.search import playout
from tests.helpers.positions import positions


def test_hard_keeps_to_its_budget_on_average() -> None:
    # Generous bound: the machine may be busy; the benchmark measures the real percentiles.
    budget = 0.05
    hard = get_player("hard", budget=budget)
    rng = random.Random(1)
    spent = []
    for g, seat in islice(positions(seed=31, games=8, every=5), 12):
        start = time.perf_counter()
        hard.choose(g.view(seat), g.legal_actions(seat), rng)
        spent.append(time.perf_counter() - start)
    assert sum(spent) / len(spent) < budget + 1.0


def test_with_an_iteration_budget_a_decision_repeats_exactly() -> None:
    hard = get_player("hard", budget=60.0, iterations=6, nodes=2000)
    for g, seat in islice(positions(seed=32, games=4, every=7), 8):
        view, legal = g.view(seat), g.legal_actions(seat)
        first = hard.choose(view, legal, random.Random(3))
        assert hard.choose(view, legal, random.Random(3)) == first


def test_a_playout_ends_the_game_and_scores_the_seat() -> None:
    for g, seat in islice(positions(seed=33, games=6, every=11), 20):
        score = playout(g.copy(with_log=False), seat)
        assert score in (0.0, 0.5, 1.0)
