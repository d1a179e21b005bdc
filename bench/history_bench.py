"""What a restarted bot spends per table to draw the last moves: History.of replays the log.

    python bench/history_bench.py [--tables 200] [--moves 120] [--repeats 5]

Prints the median, over the repeats, of the time per table, and the same for one replay of the
log alone (Game.replay), so that the ratio says what the history adds to a replay.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from engine import Game, Rules
from tg_durak.play.history import History


def played(seed: int, moves: int) -> Game:
    """A four-player game played at random for `moves` log entries (or to its end)."""
    game, rng, now = Game.new(Rules(players=4), seed, 0.0), random.Random(seed), 0.0
    while not game.is_over and game.version < moves:
        now += 0.5
        seats = game.acting_seats
        if seats and rng.random() < 0.9:
            seat = rng.choice(seats)
            game.apply(seat, rng.choice(game.legal_actions(seat)), now)
        else:
            now = max(now, game.next_deadline)
            game.advance(now)
    return game


def per_table(work, games: list[Game]) -> float:
    started = time.perf_counter()
    for game in games:
        work(game)
    return (time.perf_counter() - started) / len(games)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tables", type=int, default=200)
    p.add_argument("--moves", type=int, default=120)
    p.add_argument("--repeats", type=int, default=5)
    a = p.parse_args()
    games = [played(seed, a.moves) for seed in range(a.tables)]
    entries = statistics.mean(len(g.log) for g in games)
    history = statistics.median(per_table(History.of, games) for _ in range(a.repeats))
    replay = statistics.median(per_table(lambda g: g.rewound(len(g.log)), games)
                               for _ in range(a.repeats))
    print(f"{a.tables} tables, {entries:.0f} log entries each on average")
    print(f"History.of: {history * 1e3:.2f} ms a table (median of {a.repeats})")
    print(f"replay alone: {replay * 1e3:.2f} ms a table; history / replay = {history / replay:.2f}")


if __name__ == "__main__":
    main()
