"""Train the kernel's network estimate (engine/kernel/network.py) and ship its weights.

    python bench/train_network.py                        # train, test, write network.npz
    python bench/train_network.py --games 4000 --dry     # a quick look, nothing written

The kernel plays heads-up games of `normal` against itself (both games; 36-card decks mostly,
24 and 52 too, as bench/train_evaluation.py); every round's start is a position, labelled with
the mean of `--playouts` kernel playouts of `normal` to the end from it, each with the stock's
hidden order shuffled again (the face-up trump stays at the bottom), from both seats' sides.
The network (numpy, Adam on the cross-entropy of those soft labels) is fitted on the first four
fifths of the games. On the last fifth the script prints, a stage of the stock, the held-out
log loss of the network and of the logistic estimate (evaluation.json) against how each game
ended (bench/train_evaluation.py's measure) and against the playouts' mean, and marks the
network for use at the stages where its log loss against the games' ends is lower.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np

from engine import Game, Rules
from engine.ai.baseline import PLAYOUT_STEPS
from engine.ai.evaluation import STAGES
from engine.kernel import network
from engine.kernel.jit import compiled
from engine.kernel.layout import (
    DURAK,
    IS_OVER,
    SIZE,
    STOCK,
    STOCK_N,
    TABLE_N,
    TRUMP_CARD,
    encode,
    encode_rules,
)
from engine.kernel.normal import normal_action
from engine.kernel.play import MAX_ACTIONS, apply, fire, first_to_ask, legal_actions
from engine.kernel.search import estimate, features, playout

OUT = Path(__file__).resolve().parent.parent / "engine" / "kernel" / "network.npz"
DECKS = (36, 36, 36, 24, 52)
STARTS = 80   # round starts a game, at most (a game has 10-25)


@compiled
def _reward(s: np.ndarray) -> float:
    if not s[IS_OVER]:
        return 0.5   # cut short: cards went round without end
    durak = s[DURAK]
    return 0.5 if durak < 0 else 0.0 if durak == 0 else 1.0


@compiled
def play_and_label(starts: np.ndarray, rules: np.ndarray, playouts: int, seed: int,
                   states: np.ndarray, game_of: np.ndarray, label: np.ndarray,
                   ended: np.ndarray, model: np.ndarray) -> int:
    """Play each of `starts` to the end (`normal` for both seats), keeping every round's start
    (into `states`, its game's index into `game_of`); then label each kept position for seat 0
    with the mean of `playouts` playouts to the end with the stock shuffled again (`label`) and
    with how its game ended (`ended`). The number of positions kept."""
    np.random.seed(seed)
    legal = np.empty(MAX_ACTIONS, dtype=np.int64)
    g = np.empty(SIZE, dtype=np.int64)
    n = 0
    for i in range(starts.shape[0]):
        r = rules[i]
        s = starts[i].copy()
        first = n
        for _ in range(PLAYOUT_STEPS):
            if s[IS_OVER]:
                break
            who = first_to_ask(s, r)
            if who < 0:
                fire(s, r)
                continue
            if s[TABLE_N] == 0 and n - first < STARTS and n < states.shape[0]:
                states[n] = s
                game_of[n] = i
                n += 1
            k = legal_actions(s, r, who, legal)
            apply(s, r, who, legal[0] if k == 1 else normal_action(s, r, who, legal, k))
        outcome = _reward(s)
        for j in range(first, n):
            ended[j] = outcome
            total = 0.0
            bottom = 1 if states[j, TRUMP_CARD] >= 0 else 0
            for _ in range(playouts):
                g[:] = states[j]
                np.random.shuffle(g[STOCK + bottom:STOCK + g[STOCK_N]])
                total += playout(g, r, 0, -1, model, legal)
            label[j] = total / playouts
    return n


@compiled
def inputs_of(states: np.ndarray, rules: np.ndarray, game_of: np.ndarray, seat: int,
              x: np.ndarray, logistic: np.ndarray, model: np.ndarray) -> None:
    """Each position's network inputs from `seat`'s side, and the logistic estimate's value."""
    for j in range(states.shape[0]):
        r = rules[game_of[j]]
        features(states[j], r, seat, 1 - seat, x[j])
        logistic[j] = estimate(states[j], r, seat, 1 - seat, model)


def positions(games: int, seed: int, playouts: int, first: int = 0
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Games `first`..`first + games - 1` played and labelled: the inputs of every position
    from both sides, its stage, the playouts' mean, the game's end, the logistic estimate, and
    the index of its game."""
    starts, rules = [], []
    for i in range(first, first + games):
        rng = random.Random(f"{seed}/{i}")
        r = Rules(variant=rng.choice(("throw-in", "transfer")), players=2, deck=rng.choice(DECKS))
        starts.append(encode(Game.new(r, f"network/{seed}/{i}")))
        rules.append(encode_rules(r))
    starts_a, rules_a = np.array(starts), np.array(rules)
    states = np.empty((games * 30, SIZE), dtype=np.int64)
    game_of = np.empty(games * 30, dtype=np.int64)
    label, ended = np.empty(games * 30), np.empty(games * 30)
    model = network.logistic_model()
    n = play_and_label(starts_a, rules_a, playouts, seed * 1_000_003 + first, states, game_of,
                       label, ended, model)
    states, game_of, label, ended = states[:n], game_of[:n], label[:n], ended[:n]
    xs, logistic = [], []
    for seat in (0, 1):
        x = np.empty((n, network.INPUTS))
        p = np.empty(n)
        inputs_of(states, rules_a, game_of, seat, x, p, model)
        xs.append(x)
        logistic.append(p)
    stock = states[:, STOCK_N]
    stage = np.where(stock == 0, 2, np.where(stock <= 6, 1, 0))
    return (np.concatenate(xs), np.concatenate([stage, stage]),
            np.concatenate([label, 1 - label]), np.concatenate([ended, 1 - ended]),
            np.concatenate(logistic), np.concatenate([game_of, game_of]) + first)


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def train(x: np.ndarray, y: np.ndarray, epochs: int, seed: int, l2: float = 1e-5,
          batch: int = 512, rate: float = 1e-3) -> network.NetworkWeights:
    """The network fitted to soft labels `y` by Adam on the cross-entropy (He's start)."""
    rng = np.random.default_rng(seed)
    shapes = network.shapes()
    params = {k: (rng.normal(0, np.sqrt(2 / shape[0]), shape) if len(shape) == 2 else
                  rng.normal(0, np.sqrt(1 / shape[0]), shape) if k == "w3" else np.zeros(shape))
              for k, shape in shapes.items()}
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v2 = {k: np.zeros_like(v) for k, v in params.items()}
    t = 0
    for epoch in range(epochs):
        lr = rate * (0.5 ** max(0, epoch - epochs // 2))
        order = rng.permutation(len(y))
        for at in range(0, len(y), batch):
            idx = order[at:at + batch]
            xb, yb = x[idx], y[idx]
            a1 = xb @ params["w1"] + params["b1"]
            h1 = np.maximum(a1, 0.0)
            a2 = h1 @ params["w2"] + params["b2"]
            h2 = np.maximum(a2, 0.0)
            z = np.clip(h2 @ params["w3"] + params["b3"], -30, 30)
            p = 1 / (1 + np.exp(-z))
            dz = (p - yb) / len(yb)
            grads = {"w3": h2.T @ dz, "b3": np.array(dz.sum())}
            d2 = np.outer(dz, params["w3"]) * (a2 > 0)
            grads["w2"], grads["b2"] = h1.T @ d2, d2.sum(0)
            d1 = (d2 @ params["w2"].T) * (a1 > 0)
            grads["w1"], grads["b1"] = xb.T @ d1, d1.sum(0)
            t += 1
            for k in params:
                g = grads[k] + (l2 * params[k] if k.startswith("w") else 0.0)
                m[k] = 0.9 * m[k] + 0.1 * g
                v2[k] = 0.999 * v2[k] + 0.001 * g * g
                params[k] = params[k] - lr * (m[k] / (1 - 0.9 ** t)) / (
                    np.sqrt(v2[k] / (1 - 0.999 ** t)) + 1e-8)
    return params


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--playouts", type=int, default=16, help="playouts labelling a position")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dry", action="store_true", help="print, do not write network.npz")
    args = ap.parse_args()
    start = time.perf_counter()
    held_from = args.games * 4 // 5
    x, stage, label, ended, logistic, game = positions(args.games, args.seed, args.playouts)
    played = time.perf_counter() - start
    fit, test = game < held_from, game >= held_from
    params = train(x[fit], label[fit], args.epochs, args.seed)
    p = network.forward(params, x[test])
    report = {}
    use = np.zeros(len(STAGES))
    for st, name in enumerate(STAGES):
        at = stage[test] == st
        net, logi = log_loss(p[at], ended[test][at]), log_loss(logistic[test][at], ended[test][at])
        use[st] = net < logi
        report[name] = {
            "train": int((stage[fit] == st).sum()), "test": int(at.sum()),
            "log_loss": {"network": round(net, 4), "logistic": round(logi, 4)},
            "against_playouts": {"network": round(log_loss(p[at], label[test][at]), 4),
                                 "logistic": round(log_loss(logistic[test][at],
                                                            label[test][at]), 4),
                                 "floor": round(log_loss(label[test][at], label[test][at]), 4)},
            "network_used": bool(use[st])}
    print(json.dumps({"games": args.games, "playouts": args.playouts, "epochs": args.epochs,
                      "seed": args.seed, "seconds_playing": round(played, 1),
                      "seconds": round(time.perf_counter() - start, 1), "held_out": report},
                     indent=1))
    if not args.dry:
        np.savez_compressed(OUT, use=use, **{k: v.astype(np.float32) for k, v in params.items()})
        print(f"wrote {OUT} ({OUT.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
