"""Computer players against each other on mirrored deals.

    python -m engine.arena --a hard --b normal --games 1000 --players 2 --variant transfer \\
        --seed 1 [--a-seats 1] [--budget 0.3] [--workers 2] [--deck 36] [--json out.json]

Every deal is played once per rotation of the seats: heads-up, twice with the seats swapped; with
P players, P times, side A's block of `--a-seats` seats (default 1) moving one seat round the table
each time, side B in the other seats. Luck of the deal so cancels out. `--games` counts games and
is rounded up to whole deals.

Moves follow `engine.ai.driver` (the lead attacker, the defender while he faces cards, then each
attacker who can still throw in, lead attacker first; when nobody is left the clock jumps to the
next deadline). Every player sees only its `PlayerView`; a seat with one legal action is not
asked, and only the asked decisions are timed. Cards can go round for ever (nobody draws with six
or more in hand), so a game still going after MAX_STEPS moves is cut short and scored a draw.

Printed per side: wins / losses / draws over its seat-games (a seat-game is lost when that seat
is the durak, drawn when the game has no durak), the win rate of decided seat-games and the
durak rate of all its seat-games, each with a Wilson 95% interval, and the mean and
99th-percentile decision time.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from engine.actions import Action
from engine.ai import get_player
from engine.ai.driver import MAX_STEPS, play_out
from engine.game import Game
from engine.rules import Rules, Variant

SEARCHERS = ("hard", "baseline", "frozen-hard")   # the players `--budget` is for


@dataclass
class Side:
    name: str
    options: dict
    wins: int = 0
    losses: int = 0
    draws: int = 0
    times: list[float] = field(default_factory=list)

    @property
    def seat_games(self) -> int:
        return self.wins + self.losses + self.draws


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% by default)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]


def seats_of_a(players: int, a_seats: int, rotation: int) -> frozenset[int]:
    return frozenset((rotation + j) % players for j in range(a_seats))


def play_game(rules: Rules, deal_seed: str, players: list, rngs: list[random.Random]
              ) -> tuple[Game, list[list[float]]]:
    """One game between `players` (one per seat); returns it and each seat's decision times.

    A game still going after MAX_STEPS moves (cards can circulate for ever) is left unfinished.
    """
    g = Game.new(rules, deal_seed)
    times: list[list[float]] = [[] for _ in players]
    clock = time.perf_counter

    def decide(game: Game, seat: int, legal: list[Action]) -> Action:
        view = game.view(seat)
        start = clock()
        action = players[seat].choose(view, legal, rngs[seat])
        times[seat].append(clock() - start)
        if action not in legal:
            raise RuntimeError(f"{players[seat]!r} chose an illegal {action} in seat {seat}")
        return action

    play_out(g, decide, max_steps=MAX_STEPS)
    return g, times


# Worker state: players are built once per process, by name.
_W: dict = {}


def _init_worker(config: dict) -> None:
    _W.clear()
    _W.update(config)
    _W["a"] = get_player(config["a_name"], **config["a_options"])
    _W["b"] = get_player(config["b_name"], **config["b_options"])


def _play_deal(deal: int) -> list[dict]:
    cfg = _W
    rules = Rules.from_dict(cfg["rules"])
    n = rules.players
    out = []
    for r in range(n):
        a_set = seats_of_a(n, cfg["a_seats"], r)
        players = [cfg["a"] if s in a_set else cfg["b"] for s in range(n)]
        rngs = [random.Random(f"{cfg['seed']}/{deal}/{r}/{s}") for s in range(n)]
        g, times = play_game(rules, f"{cfg['seed']}/{deal}", players, rngs)
        out.append(game_record(deal, r, a_set, g, times))
    return out


def game_record(deal: int, rotation: int, a_set: frozenset[int], g: Game,
                times: list[list[float]]) -> dict:
    """What a match keeps of one finished (or cut short) game; `times`: each seat's."""
    return {
        "deal": deal,
        "rotation": rotation,
        "a_seats": sorted(a_set),
        "durak": g.durak,
        "unfinished": not g.is_over,
        "a_times": [t for s in a_set for t in times[s]],
        "b_times": [t for s in range(len(times)) if s not in a_set for t in times[s]],
    }


def run(a_name: str, b_name: str, games: int, rules: Rules, seed: int, a_seats: int = 1,
        a_options: dict | None = None, b_options: dict | None = None, workers: int = 1,
        progress: bool = False) -> tuple[Side, Side, list[dict]]:
    """Play the match; returns both sides' tallies and one record per game."""
    n = rules.players
    if not 1 <= a_seats < n:
        raise ValueError("side A needs at least one seat and must leave one to side B")
    deals = -(-games // n)
    a_opts, b_opts = a_options or {}, b_options or {}
    config = {"rules": rules.to_dict(), "seed": seed, "a_seats": a_seats,
              "a_name": a_name, "b_name": b_name, "a_options": a_opts, "b_options": b_opts}
    a, b = Side(a_name, a_opts), Side(b_name, b_opts)
    records: list[dict] = []
    started = time.perf_counter()
    batches: Iterator[list[dict]]
    if workers > 1:
        pool = multiprocessing.get_context("fork").Pool(workers, _init_worker, (config,))
        batches = pool.imap_unordered(_play_deal, range(deals))
    else:
        pool = None
        _init_worker(config)
        batches = map(_play_deal, range(deals))
    try:
        for batch in batches:
            for rec in batch:
                records.append(rec)
                tally(a, b, rec, n)
            if progress:
                print(f"  {len(records)} games, {time.perf_counter() - started:.0f} s: "
                      f"{_line(a)}", file=sys.stderr, flush=True)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    return a, b, records


def tally(a: Side, b: Side, rec: dict, n: int) -> None:
    durak = rec["durak"]
    for s in range(n):
        side = a if s in rec["a_seats"] else b
        if durak is None:
            side.draws += 1
        elif durak == s:
            side.losses += 1
        else:
            side.wins += 1
    a.times += rec["a_times"]
    b.times += rec["b_times"]


def _line(side: Side) -> str:
    decided = side.wins + side.losses
    lo, hi = wilson(side.wins, decided)
    rate = side.wins / decided if decided else 0.0
    durak = side.losses / side.seat_games if side.seat_games else 0.0
    d_lo, d_hi = wilson(side.losses, side.seat_games)
    return (f"{side.name:8} W {side.wins:5}  L {side.losses:5}  D {side.draws:4}  "
            f"win {rate:6.1%} [{lo:6.1%}, {hi:6.1%}]  "
            f"durak {durak:6.1%} [{d_lo:6.1%}, {d_hi:6.1%}]  "
            f"decision mean {1000 * _mean(side.times):6.1f} ms  "
            f"p99 {1000 * percentile(side.times, 0.99):6.1f} ms")


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def report(a: Side, b: Side, records: list[dict], rules: Rules) -> str:
    lines = [f"{len(records)} games, {rules.players} players, {rules.variant}, "
             f"{rules.deck} cards: {a.name} {a.options or ''} vs {b.name} {b.options or ''}",
             "  A " + _line(a), "  B " + _line(b)]
    if a.seat_games and b.seat_games and b.losses:
        ratio = (a.losses / a.seat_games) / (b.losses / b.seat_games)
        lines.append(f"  durak rate A / B: {ratio:.2f}")
    if rules.players > 2 and a.seat_games:
        # A seat's fair share of the duraks is one game in `players`.
        share = 1 / rules.players
        lo, hi = wilson(a.losses, a.seat_games)
        lines.append(f"  A's durak rate / the fair share ({share:.1%}): "
                     f"{a.losses / a.seat_games / share:.2f} [{lo / share:.2f}, {hi / share:.2f}]")
    unfinished = sum(rec["unfinished"] for rec in records)
    if unfinished:
        lines.append(f"  {unfinished} games cut short after {MAX_STEPS} moves (scored as draws)")
    return "\n".join(lines)


def options(pairs: list[str]) -> dict:
    """A player's options from `key=value` pairs, each value read as JSON where it is JSON."""
    out = {}
    for pair in pairs:
        key, _, raw = pair.partition("=")
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--a", default="hard", help="side A's player (easy, normal, hard)")
    p.add_argument("--b", default="normal", help="side B's player")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--variant", choices=tuple(map(str, Variant)), default=Variant.THROW_IN)
    p.add_argument("--deck", type=int, choices=(24, 36, 52), default=36)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--a-seats", type=int, default=1, help="seats of side A (the rest are B's)")
    p.add_argument("--budget", type=float,
                   help="seconds a decision for every searching player (hard, baseline)")
    p.add_argument("--a-opt", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--b-opt", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--workers", type=int, default=1, help="processes playing deals at once")
    p.add_argument("--progress", action="store_true", help="running tally on stderr")
    p.add_argument("--json", help="also write every game's record to this file")
    args = p.parse_args(argv)
    rules = Rules(variant=args.variant, players=args.players, deck=args.deck)
    a_opts, b_opts = options(args.a_opt), options(args.b_opt)
    if args.budget is not None:
        for name, opts in ((args.a, a_opts), (args.b, b_opts)):
            if name in SEARCHERS:
                opts.setdefault("budget", args.budget)
    a, b, records = run(args.a, args.b, args.games, rules, args.seed, args.a_seats,
                        a_opts, b_opts, args.workers, args.progress)
    print(report(a, b, records, rules))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "records": records}, f)


if __name__ == "__main__":
    main()
