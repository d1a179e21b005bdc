"""The learned heads-up estimate (engine/ai/evaluation.py), its training, and where hard uses it."""

from __future__ import annotations

import math
import random
from itertools import islice

from bench.train_evaluation import fit, game_samples
from engine.ai.baseline import playout
from engine.ai.evaluation import FEATURES, STAGES, estimate, load_weights, stage
from engine.ai.search import _estimate_after
from tests.helpers.positions import endgame, positions


def heads_up(seed: int, games: int) -> list:
    return [(g, seat) for g, seat in positions(seed=seed, games=games, every=3)
            if g.active.bit_count() == 2 and g.active >> seat & 1]


def test_the_two_seats_estimates_of_a_position_add_up_to_one() -> None:
    cases = heads_up(seed=51, games=20)
    assert len(cases) > 20
    for g, seat in cases:
        other = (g.active & ~(1 << seat)).bit_length() - 1
        p = estimate(g, seat, other)
        assert 0.0 <= p <= 1.0
        assert math.isclose(p + estimate(g, other, seat), 1.0)


def test_an_endgame_with_every_trump_and_the_lead_is_all_but_won() -> None:
    strong = endgame("A♠ K♠ Q♠", "7♥ 8♣ 9♦ 6♥ 7♣", trump="♠", attacker=0)
    assert estimate(strong, 0, 1) > 0.9
    assert estimate(strong, 1, 0) < 0.1
    # One card left against five is better for whoever holds it, lead or not.
    one = endgame("6♥", "7♥ 8♣ 9♦ 6♣ 7♣", trump="♠", attacker=1)
    assert estimate(one, 0, 1) > 0.5


def test_the_shipped_weights_are_for_these_features() -> None:
    weights = load_weights()
    assert len(weights) == len(STAGES)
    assert all(len(w) == len(FEATURES) for w in weights)
    assert [stage(s) for s in (20, 7, 6, 1, 0)] == [0, 0, 1, 1, 2]


def test_fit_recovers_the_weights_of_a_known_model() -> None:
    rng = random.Random(5)
    truth = [1.5, -2.0, 0.5, 0.0, 1.0, -0.5, 0.8, 2.0, 0.3]
    samples = []
    for _ in range(4000):
        x = [rng.uniform(-1, 1) for _ in FEATURES]
        z = sum(w * v for w, v in zip(truth, x, strict=True))
        samples.append((x, 1.0 if rng.random() < 1 / (1 + math.exp(-z)) else 0.0))
    fitted = fit(samples)
    assert all(abs(a - b) < 0.35 for a, b in zip(fitted, truth, strict=True))


def test_training_samples_are_every_round_start_from_both_sides() -> None:
    samples = game_samples(0, seed=9)
    assert samples and len(samples) % 2 == 0
    for (st, x, y), (st2, x2, y2) in zip(samples[::2], samples[1::2], strict=True):
        assert st == st2 and x2 == [-v for v in x] and y + y2 == 1.0
        assert y in (0.0, 0.5, 1.0)
    assert samples[0][0] == 0   # the first round starts with the stock full


def test_a_playout_asks_for_the_estimate_only_heads_up_and_after_its_rounds() -> None:
    asked = []

    def stop(g):
        asked.append((g.active.bit_count(), bool(g.attacks)))
        return 0.25 if g.active.bit_count() == 2 else None

    for g, seat in islice(positions(seed=52, games=10, every=9), 25):
        asked.clear()
        score = playout(g.copy(with_log=False), seat, stop=stop)
        assert all(not on_table for _, on_table in asked)
        if asked and asked[-1][0] == 2:
            assert score == 0.25
        else:
            assert score in (0.0, 0.5, 1.0)

    starts = [(g, seat) for g, seat in heads_up(seed=53, games=30) if not g.attacks]
    assert len(starts) >= 5
    for g, seat in starts:
        other = (g.active & ~(1 << seat)).bit_length() - 1
        # No rounds to play: the position the playout starts from is the one estimated.
        assert playout(g.copy(with_log=False), seat, stop=_estimate_after(seat, 0)) == \
            estimate(g, seat, other)
        later = g.copy(with_log=False)
        score = playout(later, seat, stop=_estimate_after(seat, 1))
        # One round later: played in place up to the next round's start, and estimated there.
        assert later.is_over or (not later.attacks and score == estimate(later, seat, other))
