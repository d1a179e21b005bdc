"""Random games from the command line: `python -m engine.sim --games N --players P ...`."""

from __future__ import annotations

import argparse
import random
import time

from engine.game import Game
from engine.rules import Rules, Variant

MAX_STEPS = 20_000


def random_game(rules: Rules, seed: int, rng: random.Random, wait_chance: float = 0.03) -> Game:
    """Play one game: a random seat among those who may act plays a random legal action.

    With probability `wait_chance` (and whenever nobody may act) the clock jumps to the next
    deadline, so time-outs, windows and graces all happen.
    """
    g = Game.new(rules, seed)
    legal = g.legal_actions
    now = 0.0
    rand = rng.random
    for _ in range(MAX_STEPS):
        if g.is_over:
            return g
        movers = g.acting_seats
        if not movers or rand() < wait_chance:
            due = g.next_deadline
            assert due is not None   # a game not over always has a clock running
            now = due
            g.advance(now)
            continue
        seat = movers[int(rand() * len(movers))]
        acts = legal(seat)
        g.apply(seat, acts[int(rand() * len(acts))], now)
    raise RuntimeError(f"game {seed} did not end in {MAX_STEPS} steps")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description="Play random Durak games and summarise them.")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--variant", choices=tuple(map(str, Variant)), default=Variant.THROW_IN)
    p.add_argument("--deck", type=int, choices=(24, 36, 52), default=36)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv)
    rules = Rules(variant=a.variant, players=a.players, deck=a.deck)
    rng = random.Random(a.seed)
    durak = [0] * a.players
    draws = actions = 0
    start = time.perf_counter()
    for i in range(a.games):
        g = random_game(rules, a.seed * 1_000_003 + i, rng)
        actions += sum(1 for e in g.log if e[0] == "act")
        if g.durak is None:
            draws += 1
        else:
            durak[g.durak] += 1
    elapsed = time.perf_counter() - start
    print(f"{a.games} random {a.variant} games, {a.players} players, {a.deck} cards")
    for seat, count in enumerate(durak):
        print(f"  seat {seat}: durak in {count / a.games:6.1%}")
    print(f"  draws: {draws / a.games:.1%}")
    print(f"  mean actions per game: {actions / a.games:.1f}")
    print(f"  games per second: {a.games / elapsed:.0f}")


if __name__ == "__main__":
    main()
