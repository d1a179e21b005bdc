"""What a restarted bot spends per table to restore a game and draw its last moves.

    python bench/history_bench.py [--tables 200] [--repeats 5]

Restoring a game (Game.from_dict) replays its log to rebuild the history of events, and the
screens' History.of reads that history. Prints the median, over the repeats, of the time per
table for both together, and the same for one replay of the log alone (Game.replay), so that the
ratio says what restoring costs beyond a replay.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from engine import Game, Rules
from engine.sim import random_game
from tg_durak.play.history import History


def per_table(work: Callable[[dict], object], stored: list[dict]) -> float:
    started = time.perf_counter()
    for d in stored:
        work(d)
    return (time.perf_counter() - started) / len(stored)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tables", type=int, default=200)
    p.add_argument("--repeats", type=int, default=5)
    a = p.parse_args()
    # Whole games: the longest log a table can have is the most a first drawing replays.
    games = [random_game(Rules(players=4), seed, random.Random(seed)) for seed in range(a.tables)]
    entries = statistics.mean(len(g.log) for g in games)
    stored = [g.to_dict() for g in games]
    restore = statistics.median(per_table(lambda d: History.of(Game.from_dict(d)), stored)
                                for _ in range(a.repeats))
    replay = statistics.median(per_table(Game.replay, stored) for _ in range(a.repeats))
    print(f"{a.tables} tables, {entries:.0f} log entries each on average")
    print(f"from_dict + History.of: {restore * 1e3:.2f} ms a table (median of {a.repeats})")
    print(f"replay alone: {replay * 1e3:.2f} ms a table; restore / replay = {restore / replay:.2f}")


if __name__ == "__main__":
    main()
