"""How much the inference knows: where the weighted deals put the other player's hidden cards,
against where they are.

Run: python bench/inference_bench.py [--games 120] [--variant throw-in] [--slip 0.1] [--deals 100]
     [--every 3] [--seed 1] [--against normal] [--budget 0.05] [--replay 3]

It plays heads-up games, seat 0 `normal`, seat 1 `--against` (`normal`, `easy`, or a searching
player, `hard` or `baseline`, at `--budget` seconds a decision), and, at every `--every`-th decision
of seat 0 with a card of the other hand hidden, deals `--deals` games from seat 0's view four ways:
uniformly (what the baseline plays on); weighted card by card, every player trusted to play like
`normal` (`hand_weights` with `--slip` and `unlike=0`: `hard` before it checked); the same, each
player trusted as far as his plays show (`engine.ai.search.deals`: today's `hard`); and that, then
kept as likely as the last `--replay` rounds replayed on the deal are (`hard` with `replay=3`:
`engine/ai/replay.py`). For each unseen card, the share of those deals that put it in the other hand
is a forecast of "he holds it"; the truth is the real game. It prints the forecasts' log loss and
Brier score (per unseen card; lower is better) for each, and how many held and not-held cards
today's weights put at or under 0.15. `normal` is the arena's opponent; people play unlike it more
often, and `easy` and the searching players show what the weights do then.

With `--missed` it counts instead what the moves of seat 1 said that the evidence does not read:
for each of his moves with a choice, the unseen cards (from seat 0) that would have changed
`normal`'s move had he held them too, by kind of move, and how many of those, and of other
cards, the move lowered the weight of.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections import Counter
from functools import partial

from engine.actions import Action
from engine.ai import get_player
from engine.ai.driver import seats_to_ask, step
from engine.ai.inference import hand_weights
from engine.ai.policy import NORMAL, normal_action
from engine.ai.replay import ROUNDS
from engine.ai.search import deals
from engine.cards import mask_of
from engine.game import Game
from engine.rules import Rules
from engine.sampling import sample

FLOOR = 1e-3   # a forecast of 0 or 1 that is wrong would cost infinitely much
SEARCHING = ("hard", "baseline")   # the players --against that think --budget seconds


def positions(games: int, variant: str, every: int, seed: int, seat: int = 0,
              against: str = "normal", budget: float = 0.05, players: int = 2):
    """(game at a decision of `seat`, seat 0's view) along games of `normal` (seat 0) against
    `against` (the other seats; a searching one thinks `budget` seconds a decision)."""
    rules = Rules(variant=variant, players=players)
    other = get_player(against, **({"budget": budget} if against in SEARCHING else {}))
    rng = random.Random(seed)

    def decide(g: Game, s: int, legal: list[Action]) -> Action:
        if s == 0 or against == "normal":   # the same move as the player's, without its deal
            return normal_action(g, s, legal)
        return other.choose(g.view(s), legal, rng)

    k = 0
    for i in range(games):
        g = Game.new(rules, f"{seed}-{i}")
        now = 0.0
        while not g.is_over:
            if seats_to_ask(g)[:1] == [seat] and len(g.legal_actions(seat)) > 1:
                k += 1
                if k % every == 0:
                    yield g, g.view(0)
            now = step(g, decide, now)


def forecast(view, deal_of, deals: int, rng: random.Random) -> dict[int, float]:
    """Each unseen card's share of `deals` deals from `deal_of` that put it in seat 1's hand."""
    unseen = [c.index for c in view.unseen]
    hits = dict.fromkeys(unseen, 0)
    for _ in range(deals):
        held = deal_of(rng).hands[1]
        for c in unseen:
            hits[c] += held >> c & 1
    return {c: n / deals for c, n in hits.items()}


def score(forecasts: dict[int, float], held: int) -> tuple[float, float]:
    """Summed log loss (bits) and Brier score of the forecasts against the real hand."""
    loss = brier = 0.0
    for c, p in forecasts.items():
        truth = held >> c & 1
        q = min(1 - FLOOR, max(FLOOR, p if truth else 1 - p))
        loss -= math.log2(q)
        brier += (p - truth) ** 2
    return loss, brier


def kind_of(g: Game, seat: int, action) -> str:
    if not g.attacks:
        return "lead, stock low" if len(g.stock) <= NORMAL.late_stock else "lead"
    if seat == g.defender:
        return f"{action.kind}" + (", stock empty" if not g.stock else "")
    return "throw-in" if action.kind == "attack" else "no throw-in"


def missed(args: argparse.Namespace) -> None:
    """The --missed report (module text)."""
    rows: dict[str, Counter] = {}
    for g, view in positions(args.games, args.variant, 1, args.seed, seat=1):
        legal = g.legal_actions(1)
        action = normal_action(g, 1, legal)
        said = 0
        for c in (c.index for c in view.unseen):
            if g.hands[1] >> c & 1:
                continue
            other = g.copy(with_log=False)
            other.hands[1] |= 1 << c
            if normal_action(other, 1, other.legal_actions(1)) != action:
                said |= 1 << c
        before = hand_weights(view, args.slip)[1]
        after_game = g.copy()
        after_game.apply(1, action, 0.0)
        after = hand_weights(after_game.view(0), args.slip)[1]
        read = sum(1 << c for c, w in after.items() if w < before.get(c, 1.0))
        row = rows.setdefault(kind_of(g, 1, action), Counter())
        row["moves"] += 1
        row["said"] += said.bit_count()
        row["read"] += (said & read).bit_count()
        row["wrong"] += (read & ~said & ~g.hands[1]).bit_count()
        row["held"] += (read & g.hands[1]).bit_count()
    print(f"{args.variant}, {args.games} games: what seat 1's moves said (cards that would have "
          "changed the move), and what the evidence read")
    print(f"  {'move':22s} {'moves':>6s} {'said':>6s} {'read':>6s} {'read, not said':>15s} "
          f"{'read, held':>11s}")
    for kind, row in sorted(rows.items(), key=lambda kv: -kv[1]["said"]):
        print(f"  {kind:22s} {row['moves']:6d} {row['said']:6d} {row['read']:6d} "
              f"{row['wrong']:15d} {row['held']:11d}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=120)
    ap.add_argument("--variant", default="throw-in")
    ap.add_argument("--slip", type=float, default=0.1)
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--every", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--against", default="normal", help="seat 1's player")
    ap.add_argument("--budget", type=float, default=0.05, help="a searching seat 1's seconds")
    ap.add_argument("--replay", type=int, default=ROUNDS, help="rounds the replayed row replays")
    ap.add_argument("--missed", action="store_true", help="what the evidence does not read")
    args = ap.parse_args()
    if args.missed:
        missed(args)
        return
    t0 = time.perf_counter()
    cards = points = 0
    totals = {kind: [0.0, 0.0, 0.0] for kind in ("uniform", "trusting", "weighted", "replayed")}
    low_held = low_free = held_n = free_n = 0
    for g, view in positions(args.games, args.variant, args.every, args.seed,
                             against=args.against, budget=args.budget):
        hidden = g.hands[1] & ~mask_of(view.known[1])
        if not hidden:
            continue
        weights = hand_weights(view, args.slip)
        unseen = mask_of(view.unseen)
        trusting = partial(sample, view, weights=hand_weights(view, args.slip, unlike=0.0))
        dealers = {"uniform": deals(view, 1.0), "trusting": trusting,
                   "weighted": deals(view, args.slip),
                   "replayed": deals(view, args.slip, replay=args.replay)}
        for kind, deal_of in dealers.items():
            # The same deals' randomness for every position's forecasts, run after run.
            rng = random.Random(f"{args.seed}-{points}")
            start = time.perf_counter()
            shares = forecast(view, deal_of, args.deals, rng)
            totals[kind][2] += time.perf_counter() - start
            loss, brier = score(shares, hidden)
            totals[kind][0] += loss
            totals[kind][1] += brier
        for c in (c.index for c in view.unseen):
            low = weights[1].get(c, 1.0) <= 0.15
            if hidden >> c & 1:
                held_n += 1
                low_held += low
            else:
                free_n += 1
                low_free += low
        cards += unseen.bit_count()
        points += 1
    against = args.against + (f" {args.budget} s" if args.against in SEARCHING else "")
    print(f"{args.variant}, {args.games} games against {against}, {points} decisions, {cards} "
          f"unseen cards, slip {args.slip}, {args.deals} deals each "
          f"({time.perf_counter() - t0:.0f} s)")
    for kind, (loss, brier, seconds) in totals.items():
        print(f"  {kind:8s} log loss {loss / cards:.4f} bits a card   Brier {brier / cards:.4f}   "
              f"{1000 * seconds / max(1, points * args.deals):.3f} ms a deal")
    print(f"  weight <= 0.15: {low_held} of {held_n} held cards, "
          f"{low_free} of {free_n} not held ({100 * low_free / max(1, free_n):.1f} %)")


if __name__ == "__main__":
    main()
