"""Engine speed: random full games per second and copy()+apply() per second.

Two drivers play random games through the public surface:
- "movers": a random seat among `acting_seats` plays a random legal action (engine.sim);
- "all pairs": every active seat's `legal_actions` is listed at every step and a (seat, action)
  pair is picked uniformly among all of them; with none, the clock jumps to `next_deadline`.
  Seats with nothing to do are asked too, as an app or a search that does not know the engine's
  shortcuts would ask them. The same games are played on bench/plain_engine.py (the same rules
  written plainly, with lists of cards) and the ratio engine/plain is printed.

Run: python bench/engine_bench.py [--games 2000] [--repeats 5]
Reports the median of several repeats (machines here are shared and noisy).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from engine import Game, Rules
from engine.sim import MAX_STEPS, random_game

try:
    from bench.plain_engine import PlainGame
except ModuleNotFoundError:  # run as a script: bench/ is this file's folder
    from plain_engine import PlainGame


def games_per_second(rules: Rules, games: int, seed: int) -> float:
    rng = random.Random(seed)
    start = time.perf_counter()
    for i in range(games):
        random_game(rules, seed * 100_000 + i, rng)
    return games / (time.perf_counter() - start)


def all_pairs_game(rules: Rules, seed: int, rng: random.Random,
                   game: type[Game] | type[PlainGame] = Game) -> Game | PlainGame:
    """One random game: a uniform pick among every active seat's legal actions at each step."""
    g = game.new(rules, seed)
    now = 0.0
    rand = rng.random
    for _ in range(MAX_STEPS):
        if g.is_over:
            return g
        options = [(s, a) for s in g.active_seats for a in g.legal_actions(s)]
        if options:
            s, a = options[int(rand() * len(options))]
            g.apply(s, a, now)
        else:
            now = g.next_deadline
            g.advance(now)
    raise RuntimeError(f"game {seed} did not end in {MAX_STEPS} steps")


def all_pairs_per_second(rules: Rules, games: int, seed: int,
                         game: type[Game] | type[PlainGame] = Game) -> float:
    rng = random.Random(seed)
    start = time.perf_counter()
    for i in range(games):
        all_pairs_game(rules, seed * 100_000 + i, rng, game)
    return games / (time.perf_counter() - start)


def copy_apply_per_second(rules: Rules, steps: int, seed: int) -> float:
    """Copy a mid-game position and apply one legal action to the copy, as a search does."""
    rng = random.Random(seed)
    positions = []
    while len(positions) < 200:
        g = Game.new(rules, rng.randrange(1 << 30))
        for _ in range(rng.randrange(1, 40)):
            movers = [(s, a) for s in range(rules.players) if (a := g.legal_actions(s))]
            if not movers or g.is_over:
                break
            s, acts = rng.choice(movers)
            g.apply(s, rng.choice(acts), 0.0)
        movers = [(s, a) for s in range(rules.players) if (a := g.legal_actions(s))]
        if movers and not g.is_over:
            s, acts = rng.choice(movers)
            positions.append((g, s, rng.choice(acts)))
    start = time.perf_counter()
    for i in range(steps):
        g, s, a = positions[i % len(positions)]
        g.copy(with_log=False).apply(s, a, 0.0)
    return steps / (time.perf_counter() - start)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--games", type=int, default=2000)
    p.add_argument("--repeats", type=int, default=5)
    a = p.parse_args()
    for variant in ("throw-in", "transfer"):
        for players in (2, 4):
            rules = Rules(variant=variant, players=players)
            runs = [games_per_second(rules, a.games // players * 2, seed)
                    for seed in range(1, a.repeats + 1)]
            print(f"movers games/s  {variant:8} {players}p: median {statistics.median(runs):7.0f}"
                  f"  (min {min(runs):.0f}, max {max(runs):.0f})")
    for variant in ("throw-in", "transfer"):
        for players in (2, 4):
            rules = Rules(variant=variant, players=players)
            games = a.games // players * 2
            runs = [all_pairs_per_second(rules, games, seed) for seed in range(1, a.repeats + 1)]
            plain = [all_pairs_per_second(rules, games, seed, PlainGame)  # the same games
                     for seed in range(1, a.repeats + 1)]
            engine, slow = statistics.median(runs), statistics.median(plain)
            print(f"all-pairs games/s {variant:8} {players}p: median {engine:7.0f}  (min "
                  f"{min(runs):.0f}, max {max(runs):.0f});  plain {slow:5.0f}: "
                  f"x{engine / slow:.2f}")
    for variant in ("throw-in", "transfer"):
        rules = Rules(variant=variant, players=2)
        runs = [copy_apply_per_second(rules, 100_000, seed) for seed in range(1, a.repeats + 1)]
        print(f"copy+apply/s    {variant:8} 2p: median {statistics.median(runs):7.0f}")


if __name__ == "__main__":
    main()
