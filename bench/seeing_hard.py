"""How strong `hard`'s search is when less is hidden: how much of the gap to the issue's bar
against `normal` is the hidden cards, and how much the search.

Run: python bench/seeing_hard.py [--sees all|hand] [--against normal] [--games 200]
     [--variant throw-in] [--budget 0.3] [--seed 1] [--workers 1]

Side A is `hard` told more than its view. `--sees all`: the true deal (the other hand and the
stock's order); it runs the same search as `hard` (`HardPlayer._solve`, else its race) on that
one deal instead of on deals sampled from its view. `--sees hand`: the other hand only, as
perfect inference would know it; it is `hard` itself, on a view where every card of the other
hand is a known one, so its deals differ only in the stock's order. Side B plays from its view
as in the bot. The deals, seats and seeds are the arena's (`engine/arena.py`, mirrored heads-up
deals), so the figure compares with `python -m engine.arena --a hard --b normal ... --seed 1`.
No player the bot offers reads a hidden card (R11): this one exists only here.
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
import random
import time

from engine.actions import Action
from engine.ai import get_player
from engine.ai.baseline import _ordered
from engine.ai.driver import play_out
from engine.ai.search import HardPlayer
from engine.arena import Side, game_record, report, tally
from engine.game import Game
from engine.rules import Rules
from engine.views import PlayerView

_W: dict = {}


def told_hands(g: Game, seat: int) -> PlayerView:
    """The seat's view with every card of the other hands known, as if it had seen them."""
    view = g.view(seat)
    known = tuple(k if s == seat else tuple(g.hand(s)) for s, k in enumerate(view.known))
    return dataclasses.replace(view, known=known)


def _seeing_choice(player: HardPlayer, g: Game, seat: int, legal: list[Action],
                   rng: random.Random) -> Action:
    if len(legal) == 1:
        return legal[0]
    if _W["sees"] == "hand":
        return player.choose(told_hands(g, seat), legal, rng)
    start = time.perf_counter()
    deadline = start + player.budget - player.margin
    deal = g.copy(with_log=False)
    cands = _ordered(deal, seat, legal)
    action = player._solve(deal, seat, cands, start, deadline)
    if action is not None:
        return action
    return player._race(g.view(seat), deal, cands, rng, deadline, known=True)


def _init(config: dict) -> None:
    _W.update(config, a=HardPlayer(budget=config["budget"]), b=get_player(config["against"]))


def _play_deal(deal: int) -> list[dict]:
    return [_play(deal, a_seat) for a_seat in (0, 1)]


def _play(deal: int, a_seat: int) -> dict:
    """One game of the deal with side A in `a_seat`, seeded as the arena seeds it."""
    rules, seed = Rules.from_dict(_W["rules"]), _W["seed"]
    g = Game.new(rules, f"{seed}/{deal}")
    rngs = [random.Random(f"{seed}/{deal}/{a_seat}/{s}") for s in (0, 1)]
    times: list[list[float]] = [[], []]

    def decide(game: Game, seat: int, legal: list) -> Action:
        if seat != a_seat:
            return _W["b"].choose(game.view(seat), legal, rngs[seat])
        started = time.perf_counter()
        action = _seeing_choice(_W["a"], game, seat, legal, rngs[seat])
        times[seat].append(time.perf_counter() - started)
        return action

    play_out(g, decide)
    return game_record(deal, a_seat, frozenset({a_seat}), g, times)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sees", choices=("all", "hand"), default="all")
    p.add_argument("--against", default="normal")
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--variant", default="throw-in")
    p.add_argument("--budget", type=float, default=0.3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=1)
    args = p.parse_args()
    rules = Rules(variant=args.variant, players=2)
    config = {"rules": rules.to_dict(), "seed": args.seed, "budget": args.budget,
              "against": args.against, "sees": args.sees}
    a = Side(f"hard seeing {args.sees}", {"budget": args.budget})
    b = Side(args.against, {})
    records: list[dict] = []
    started = time.perf_counter()
    deals = range(-(-args.games // 2))
    if args.workers > 1:
        with multiprocessing.get_context("fork").Pool(args.workers, _init, (config,)) as pool:
            batches = list(pool.imap_unordered(_play_deal, deals))
    else:
        _init(config)
        batches = map(_play_deal, deals)
    for batch in batches:
        for rec in batch:
            records.append(rec)
            tally(a, b, rec, 2)
    print(report(a, b, records, rules))
    print(f"  wall {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
