"""The kernel's learned network estimate (engine/kernel/network.py): its inputs say what the
position holds, the kernel evaluates it as numpy does, and where it is not used the kernel's
estimate is still the Python one."""

from __future__ import annotations

import math
from importlib import resources

import numpy as np
import pytest

from engine.ai.evaluation import FEATURES, estimate, features, stage
from engine.cards import SUIT_CARDS
from engine.game import Game
from engine.kernel import loader, network
from engine.kernel.layout import encode, encode_rules
from engine.kernel.search import estimate as kernel_estimate
from engine.kernel.search import features as kernel_features
from tests.helpers.positions import positions


def _round_starts(count: int) -> list[Game]:
    """Heads-up games at a round's start (the positions the estimate is asked about)."""
    found = []
    for g, _ in positions(seed=71, games=60, every=1):
        if g.players == 2 and not g.attacks and not g.is_over and g.active.bit_count() == 2:
            found.append(g)
    assert len(found) >= count
    return found[::len(found) // count][:count]


def _inputs(g: Game, seat: int) -> np.ndarray:
    x = np.empty(network.INPUTS)
    kernel_features(encode(g), encode_rules(g.rules), seat, 1 - seat, x)
    return x


def test_the_inputs_are_the_hands_the_stock_and_the_logistic_terms() -> None:
    assert loader.load()
    for g in _round_starts(40):
        for seat in (0, 1):
            x = _inputs(g, seat)
            mine = x[network.MINE:network.MINE + network.CARDS]
            theirs = x[network.THEIRS:network.THEIRS + network.CARDS]
            stock = x[network.STOCK_CARDS:network.STOCK_CARDS + network.CARDS]
            assert mine.sum() == g.hands[seat].bit_count()
            assert theirs.sum() == g.hands[1 - seat].bit_count()
            assert stock.sum() == len(g.stock)
            # The trump suit comes first: its cards are the first 13 inputs of each.
            assert mine[:13].sum() == (g.hands[seat] & SUIT_CARDS[g.trump]).bit_count()
            terms = x[network.TERM_INPUTS:network.TERM_INPUTS + len(FEATURES)]
            assert terms == pytest.approx(features(g, seat, 1 - seat), abs=1e-12)


def test_the_kernel_evaluates_the_network_as_numpy_does() -> None:
    assert loader.load()
    params, use = network.load()
    model = network.model()
    used = 0
    for g in _round_starts(60):
        seat = g.attacker
        value = kernel_estimate(encode(g), encode_rules(g.rules), seat, 1 - seat, model)
        if use[stage(len(g.stock))]:
            used += 1
            expected = network.forward(params, _inputs(g, seat)[None, :])[0]
        else:
            expected = estimate(g, seat, 1 - seat)
        assert value == pytest.approx(expected, abs=1e-9)
    assert used


def test_the_logistic_model_is_the_python_estimate() -> None:
    assert loader.load()
    for g in _round_starts(30):
        value = kernel_estimate(encode(g), encode_rules(g.rules), 0, 1, network.logistic_model())
        assert math.isclose(value, estimate(g, 0, 1), abs_tol=1e-9)


def test_the_shipped_network_is_small() -> None:
    shipped = resources.files("engine.kernel").joinpath("network.npz").read_bytes()
    assert len(shipped) < 1_000_000   # the bound on what the package carries
    params, use = network.load()
    assert set(params) == set(network.LAYERS) and len(use) == 3
