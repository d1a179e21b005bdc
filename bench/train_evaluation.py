"""Train the heads-up evaluation of the new `hard` (engine/ai/evaluation.py) and ship its weights.

    python bench/train_evaluation.py                      # train, test, write evaluation.json
    python bench/train_evaluation.py --games 2000 --dry   # a quick look, nothing written

`normal` plays heads-up games against itself (both variants; 36-card decks mostly, 24 and 52
too); every round's start is a sample, labelled with how that game ended for the seat (1 safe,
1/2 a draw, 0 the durak), from both seats' sides. One logistic regression a stage of the stock,
fitted by Newton's method with a little L2. The last fifth of the games is held out: the script
prints its log loss against a coin's (ln 2 = 0.693) and how often the likelier side won.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from pathlib import Path

from engine import Game, Rules
from engine.ai.baseline import reward
from engine.ai.driver import step
from engine.ai.evaluation import FEATURES, STAGES, features, stage
from engine.ai.policy import normal_action

OUT = Path(__file__).resolve().parent.parent / "engine" / "ai" / "evaluation.json"
DECKS = (36, 36, 36, 24, 52)
MAX_STEPS = 2_000
L2 = 1.0

Sample = tuple[int, list[float], float]   # (stage, features, label)


def game_samples(index: int, seed: int) -> list[Sample]:
    """Play one normal-vs-normal game; a sample for each seat at every round's start."""
    rng = random.Random(f"{seed}/{index}")
    rules = Rules(variant=rng.choice(("throw-in", "transfer")), players=2, deck=rng.choice(DECKS))
    g = Game.new(rules, f"train/{seed}/{index}")
    starts: list[tuple[int, list[float]]] = []
    now = 0.0
    for _ in range(MAX_STEPS):
        if g.is_over:
            break
        if not g.attacks:
            starts.append((stage(len(g.stock)), features(g, 0, 1)))
        now = step(g, lambda g, s, legal: normal_action(g, s, legal), now)
    safe = reward(g, 0) if g.is_over else 0.5
    out: list[Sample] = []
    for st, x in starts:
        out.append((st, x, safe))
        out.append((st, [-v for v in x], 1.0 - safe))
    return out


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """a x = b by Gaussian elimination with partial pivoting (a is small and well conditioned)."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col and m[r][col]:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col], strict=True)]
    return [m[i][n] / m[i][i] for i in range(n)]


def _p(w: list[float], x: list[float]) -> float:
    z = sum(a * b for a, b in zip(w, x, strict=True))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def fit(samples: list[tuple[list[float], float]], iterations: int = 12) -> list[float]:
    """Logistic regression without a constant (soft labels), by Newton's method."""
    k = len(FEATURES)
    w = [0.0] * k
    for _ in range(iterations):
        grad = [L2 * v for v in w]
        hess = [[L2 if i == j else 0.0 for j in range(k)] for i in range(k)]
        for x, y in samples:
            p = _p(w, x)
            d, c = p - y, p * (1 - p)
            for i in range(k):
                xi = x[i]
                if xi:
                    grad[i] += d * xi
                    row, cx = hess[i], c * xi
                    for j in range(k):
                        row[j] += cx * x[j]
        step_ = _solve(hess, grad)
        w = [a - b for a, b in zip(w, step_, strict=True)]
        if max(map(abs, step_)) < 1e-6:
            break
    return w


def log_loss(w: list[float], samples: list[tuple[list[float], float]]) -> tuple[float, float]:
    """Mean log loss, and the share of decided samples whose likelier side won."""
    loss = 0.0
    right = decided = 0
    for x, y in samples:
        p = min(max(_p(w, x), 1e-9), 1 - 1e-9)
        loss -= y * math.log(p) + (1 - y) * math.log(1 - p)
        if y != 0.5:
            decided += 1
            right += (p > 0.5) == (y == 1.0)
    return loss / len(samples), right / max(1, decided)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=40_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dry", action="store_true", help="print, do not write evaluation.json")
    args = ap.parse_args()
    start = time.perf_counter()
    held_from = args.games * 4 // 5
    train: list[list[tuple[list[float], float]]] = [[] for _ in STAGES]
    test: list[list[tuple[list[float], float]]] = [[] for _ in STAGES]
    for i in range(args.games):
        for st, x, y in game_samples(i, args.seed):
            (train if i < held_from else test)[st].append((x, y))
    played = time.perf_counter() - start
    weights = []
    report = {}
    for st, name in enumerate(STAGES):
        w = fit(train[st])
        weights.append([round(v, 5) for v in w])
        loss, right = log_loss(w, test[st])
        report[name] = {"train": len(train[st]), "test": len(test[st]),
                        "log_loss": round(loss, 4), "likelier_won": round(right, 3)}
    print(json.dumps({"games": args.games, "seed": args.seed, "seconds_playing":
                      round(played, 1), "seconds": round(time.perf_counter() - start, 1),
                      "held_out": report}, indent=1))
    if not args.dry:
        OUT.write_text(json.dumps({
            "trained_by": "bench/train_evaluation.py", "games": args.games, "seed": args.seed,
            "held_out": report, "features": list(FEATURES), "stages": list(STAGES),
            "weights": weights}, indent=1) + "\n")
        print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
