"""What a restarted bot spends per table to draw the last moves: History.of replays the log.

    python bench/history_bench.py [--tables 200] [--repeats 5]

Prints the median, over the repeats, of the time per table, and the same for one replay of the
log alone (Game.replay), so that the ratio says what the history adds to a replay.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from engine import Game, Rules
from engine.sim import random_game
from tg_durak.play.history import History


def per_table(work, games: list[Game]) -> float:
    started = time.perf_counter()
    for game in games:
        work(game)
    return (time.perf_counter() - started) / len(games)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tables", type=int, default=200)
    p.add_argument("--repeats", type=int, default=5)
    a = p.parse_args()
    # Whole games: the longest log a table can have is the most a first drawing replays.
    games = [random_game(Rules(players=4), seed, random.Random(seed)) for seed in range(a.tables)]
    entries = statistics.mean(len(g.log) for g in games)
    history = statistics.median(per_table(History.of, games) for _ in range(a.repeats))
    replay = statistics.median(per_table(lambda g: g.rewound(len(g.log)), games)
                               for _ in range(a.repeats))
    print(f"{a.tables} tables, {entries:.0f} log entries each on average")
    print(f"History.of: {history * 1e3:.2f} ms a table (median of {a.repeats})")
    print(f"replay alone: {replay * 1e3:.2f} ms a table; history / replay = {history / replay:.2f}")


if __name__ == "__main__":
    main()
