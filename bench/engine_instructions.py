"""Engine work in instructions, not seconds: the all-pairs driver's games counted by valgrind.

    python bench/engine_instructions.py                  # 200 games, 2-player throw-in
    python bench/engine_instructions.py --games 100 --variant transfer --players 4

On a shared machine the wall clock moves by a tenth from one run to the next; an instruction
count moves by far less than a thousandth, so an engine change worth a few per cent shows. Each
engine (`engine.Game`, `bench/plain_engine.py`) plays the same `--games` games of
`bench/engine_bench.py`'s all-pairs driver under `valgrind --tool=cachegrind`, and once more
with no game to take Python's start-up out. It prints each engine's instructions a game and
their ratio, plain over engine. Instructions are not time, so the issue's ratio is still
`engine_bench.py`'s; this tells whether a change makes the engine do less.

Needs valgrind (`apt-get install valgrind`).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINES = {"engine": "engine.Game", "plain": "bench.plain_engine.PlainGame"}
_GAMES = """
import random
from importlib import import_module
from engine import Rules
from bench.engine_bench import all_pairs_game
module, name = {engine!r}.rsplit(".", 1)
game = getattr(import_module(module), name)
rules, rng = Rules(variant={variant!r}, players={players}), random.Random(1)
for i in range({games}):
    all_pairs_game(rules, 100_000 + i, rng, game)
"""


def instructions(engine: str, variant: str, players: int, games: int) -> int:
    """The instructions of a Python process that plays `games` all-pairs games on `engine`."""
    code = _GAMES.format(engine=ENGINES[engine], variant=variant, players=players, games=games)
    done = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         sys.executable, "-c", code],
        cwd=ROOT, capture_output=True, text=True, check=True)
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count in valgrind's report:\n{done.stderr}")
    return int(found.group(1).replace(",", ""))


def per_game(variant: str, players: int, games: int) -> dict[str, float]:
    """Each engine's instructions a game, Python's start-up taken out."""
    return {engine: (instructions(engine, variant, players, games)
                     - instructions(engine, variant, players, 0)) / games
            for engine in ENGINES}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--variant", default="throw-in")
    ap.add_argument("--players", type=int, default=2)
    args = ap.parse_args()
    counts = per_game(args.variant, args.players, args.games)
    print(json.dumps({"variant": args.variant, "players": args.players, "games": args.games,
                      "instructions_a_game": {k: round(v) for k, v in counts.items()},
                      "plain_over_engine": round(counts["plain"] / counts["engine"], 3)}))


if __name__ == "__main__":
    main()
