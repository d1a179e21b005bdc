"""The kernel's learned estimate: a small network of a heads-up position's value, beside the
logistic one (engine/ai/evaluation.py), packed with it into one array the kernel reads.

The network (INPUTS -> HIDDEN -> HIDDEN -> 1, ReLU, a sigmoid at the end) reads a round's start
from one seat's side: both hands and the cards still in the stock, each as 52 inputs with the
trump suit first (so that one weight means "a trump ace" whatever the trump), the logistic
estimate's terms, the stock's size, whether the face-up trump is still under it, the deck and
the game. `engine.kernel.search.features` writes them, `search.estimate` evaluates it; it is
trained by `bench/train_network.py` on positions the kernel plays, each labelled with the mean
of many `normal` playouts, and its weights ship beside this module (`network.npz`).

It replaces the logistic estimate only at the stages of the stock (plenty, the last refill,
empty) where its held-out log loss is lower (`network.npz`'s `use`, set by the training script).

This module is plain numpy: `forward` is the network for training and tests, `model` the packed
array `search.estimate` takes.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

import numpy as np

from engine.ai.evaluation import FEATURES, STAGES, load_weights

CARDS = 52
TERMS = len(FEATURES)        # the logistic estimate's terms, the seat's less the other's
# Inputs: the seat's hand, the other hand, the stock (52 each, trump suit first), the terms,
# the stock's size / 24, the face-up trump still there, deck 24 / 36 / 52, the transfer game.
MINE, THEIRS, STOCK_CARDS = 0, CARDS, 2 * CARDS
TERM_INPUTS = 3 * CARDS
STOCK_SIZE = TERM_INPUTS + TERMS
TRUMP_UNDER = STOCK_SIZE + 1
DECK_INPUTS = TRUMP_UNDER + 1
TRANSFER_INPUT = DECK_INPUTS + 3
INPUTS = TRANSFER_INPUT + 1
HIDDEN = 64

# The packed model: which stages use the network, the logistic weights, the network's layers.
USE = 0
LOGISTIC = USE + len(STAGES)
W1 = LOGISTIC + len(STAGES) * TERMS       # [INPUTS, HIDDEN], row-major
B1 = W1 + INPUTS * HIDDEN
W2 = B1 + HIDDEN                          # [HIDDEN, HIDDEN]
B2 = W2 + HIDDEN * HIDDEN
W3 = B2 + HIDDEN
B3 = W3 + HIDDEN
SIZE = B3 + 1

LAYERS = ("w1", "b1", "w2", "b2", "w3", "b3")
NetworkWeights = dict[str, np.ndarray]


def shapes() -> dict[str, tuple[int, ...]]:
    return {"w1": (INPUTS, HIDDEN), "b1": (HIDDEN,), "w2": (HIDDEN, HIDDEN), "b2": (HIDDEN,),
            "w3": (HIDDEN,), "b3": ()}


def forward(params: NetworkWeights, x: np.ndarray) -> np.ndarray:
    """The network's estimates of the rows of `x` (each a position's INPUTS)."""
    h = np.maximum(x @ params["w1"] + params["b1"], 0.0)
    h = np.maximum(h @ params["w2"] + params["b2"], 0.0)
    z = np.clip(h @ params["w3"] + params["b3"], -30.0, 30.0)
    return 1.0 / (1.0 + np.exp(-z))


def pack(params: NetworkWeights | None, use: np.ndarray) -> np.ndarray:
    """The array `search.estimate` takes: `use` (a flag a stage), the logistic weights and, where
    `params` is given, the network."""
    m = np.zeros(SIZE)
    m[USE:LOGISTIC] = use
    m[LOGISTIC:W1] = np.array(load_weights(), dtype=np.float64).ravel()
    if params is not None:
        for name, at in zip(LAYERS, (W1, B1, W2, B2, W3, B3), strict=True):
            flat = np.asarray(params[name], dtype=np.float64).ravel()
            m[at:at + flat.size] = flat
    return m


def load() -> tuple[NetworkWeights, np.ndarray]:
    """The shipped network and the stages it is used at."""
    with resources.files("engine.kernel").joinpath("network.npz").open("rb") as f:
        data = np.load(f)
        params = {name: np.asarray(data[name], dtype=np.float64) for name in LAYERS}
        use = np.asarray(data["use"], dtype=np.float64)
    if any(params[name].shape != shape for name, shape in shapes().items()):
        raise ValueError("network.npz was trained for other inputs: run bench/train_network.py")
    return params, use


@cache
def model() -> np.ndarray:
    """The shipped estimate: the network where it beat the logistic one, the logistic elsewhere."""
    return pack(*load())


@cache
def logistic_model() -> np.ndarray:
    """The logistic estimate alone, as the Python search uses it (the kernel's tests compare)."""
    return pack(None, np.zeros(len(STAGES)))
