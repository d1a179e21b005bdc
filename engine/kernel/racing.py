"""One decision's race in the kernel: the view read once into arrays, then `search.race` called
on chunks of deals until the race is decided or the time is up.

The deals come in chunks sized from the time the last chunk took (a quarter of what is left at
most), and where the kernel reads a clock (clock.py) no deal starts past the deadline: a decision
ends within about a deal's time of its deadline. The deals are one stream seeded once, so with a
deal cap and time to spare a decision is repeatable whatever the chunks were.

With a replay (`RoundSpec`), the kernel keeps each deal as likely as the last rounds' moves are on
it (`search.likelihood`): what `engine.ai.replay.likely_deal` does, for one or two rounds.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from engine.actions import Action
from engine.ai.replay import FADE, KERNEL_ROUNDS, Inconsistent, Past, face_up_bottom, round_starts
from engine.cards import deck_mask, mask_of
from engine.game import Game
from engine.kernel.clock import NO_DEADLINE, deadline_in_cycles
from engine.kernel.layout import SIZE, encode, encode_rules
from engine.kernel.layout import action_code as code_of
from engine.kernel.network import logistic_model, model
from engine.kernel.search import STATUS_DEALS, STATUS_DONE, UNDO_COUNT, UNDO_POOL, UNDO_REMOVE
from engine.kernel.search import race as race_chunk
from engine.kernel.solver import CUT, NODES, best_move
from engine.views import PlayerView

FIRST_CHUNK = 2   # deals in the first call; later ones follow the measured time a deal
# Where the kernel reads no clock (clock.py), the solver gets the nodes the time left allows at
# the rate it last ran at (less a fifth for a machine that slows down meanwhile), starting from a
# cautious guess; where it reads one, the deadline bounds it and the nodes only by `max_nodes`.
FIRST_NODE_RATE = 100_000.0
NODE_RATE_USED = 0.8
UNBOUNDED = 1 << 62
ALL_CARDS = deck_mask(52)
_node_rate = [FIRST_NODE_RATE]


@dataclass(frozen=True)
class RaceOutcome:
    """What a kernel race found: the index of the move it picked, deals played, moves left."""

    best: int
    deals: int
    left: int


@dataclass(frozen=True)
class DealSpec:
    """What `engine.sampling.dealer` reads from a view, as the kernel's `deal` takes it: each
    seat's cards before a deal (its own hand, or what all know he holds), how many hidden cards
    each needs and by which weights (inference's), the hidden cards, the face-up trump card."""

    base: np.ndarray
    needs: np.ndarray
    weighted: np.ndarray
    weights: np.ndarray
    hidden: np.ndarray
    bottom: int

    @classmethod
    def of(cls, view: PlayerView, weights: Sequence[Mapping[int, float]]) -> DealSpec:
        base = np.zeros(6, dtype=np.int64)
        needs = np.zeros(6, dtype=np.int64)
        weighted = np.zeros(6, dtype=np.bool_)
        card_weights = np.ones((6, 52))
        for s in range(view.rules.players):
            if s == view.seat:
                base[s] = mask_of(view.hand)
                continue
            base[s] = mask_of(view.known[s])
            needs[s] = view.hand_counts[s] - len(view.known[s])
            if weights and needs[s] and weights[s]:
                weighted[s] = True
                for c, w in weights[s].items():
                    card_weights[s, c] = w
        return cls(base, needs, weighted, card_weights,
                   np.array([c.index for c in view.unseen], dtype=np.int64),
                   -1 if view.trump_card is None else view.trump_card.index)


@dataclass(frozen=True)
class RoundSpec:
    """The last rounds as the kernel replays them on a deal (`search.likelihood`), newest
    first: each one's start on one deal of the view, the cards each seat played in it, their
    moves (seat, action code, chosen: not a timeout's, rounds back), each seat's slip in each
    (`inference.slips`, faded a round back as `replay.factor`) and what the end of the round
    before the current one gave each seat (the rows of search.UNDO_*). No starts: no replay."""

    starts: np.ndarray
    played: np.ndarray
    moves: np.ndarray
    slips: np.ndarray
    undo: np.ndarray

    @classmethod
    def of(cls, past: Past, deal: Game, slips: Sequence[float], rounds: int
           ) -> RoundSpec:
        """The last `rounds` rounds (at most `KERNEL_ROUNDS`), fewer where a round's end cannot
        be undone in the kernel's way (a seat that drew twice at one end) or the history cannot
        have happened on `deal`."""
        starts, played, moves, undo = [], [], [], np.zeros((3, 6), dtype=np.int64)
        rng = random.Random(0)   # guessed draws: in the kernel each deal guesses its own
        try:
            last = round_starts(deal, rng, min(rounds, KERNEL_ROUNDS), past=past)
            for back, (start, r) in enumerate(last):
                if back == 1 and not _undo_close(past, deal, undo):
                    break
                starts.append(encode(start))
                row = np.zeros(6, dtype=np.int64)
                for s, cards in r.played:
                    row[s] = cards
                played.append(row)
                moves += [(s, code_of(a), chosen, back) for s, a, chosen in r.moves]
        except Inconsistent:
            pass
        slip = np.array([*slips, *[1.0] * (6 - len(slips))])
        return cls(np.array(starts, dtype=np.int64).reshape(-1, SIZE),
                   np.array(played, dtype=np.int64).reshape(-1, 6),
                   np.array(moves, dtype=np.int64).reshape(-1, 4),
                   np.array([slip, 1.0 - (1.0 - slip) * FADE]), undo)

    @classmethod
    def none(cls) -> RoundSpec:
        return cls(np.zeros((0, SIZE), dtype=np.int64), np.zeros((0, 6), dtype=np.int64),
                   np.zeros((0, 4), dtype=np.int64), np.ones((2, 6)),
                   np.zeros((3, 6), dtype=np.int64))


def _undo_close(past: Past, deal: Game, undo: np.ndarray) -> bool:
    """What the end of the round before the current one gave each other seat, into `undo`'s
    rows as search.likelihood reads them (replay._undo_close's, for any deal of the view);
    False where a seat drew twice at that end."""
    r = past.rounds[-2]
    bottom = face_up_bottom(deal, past)
    bottom_bit = 1 << bottom if bottom >= 0 else 0
    emptied = not deal.stock
    drew = 0
    for n, (i, s, count) in enumerate(reversed(r.draws)):
        if drew >> s & 1:
            return False
        drew |= 1 << s
        if emptied and not n and bottom_bit:   # he drew the last card: the face-up trump
            undo[UNDO_REMOVE, s] |= bottom_bit
            count -= 1
        undo[UNDO_POOL, s] = ALL_CARDS & ~past.seen[i] & ~past.shown[s] & ~bottom_bit
        undo[UNDO_COUNT, s] = count
    if r.taker >= 0:
        undo[UNDO_REMOVE, r.taker] |= r.table
    return True


def race(view: PlayerView, deal: Game, weights: Sequence[Mapping[int, float]],
         cands: list[Action], rng: random.Random, deadline: float, drop_z: float,
         rounds: int | None, iterations: int | None, network: bool = True,
         replay: tuple[Past, Sequence[float], int] | None = None) -> RaceOutcome:
    """`BaselinePlayer._race` of `cands` for `view.seat` in the kernel: `deal` is one deal of
    the view (its public fields are the template), `weights` what inference read; `network`:
    the learned network where it beat the logistic estimate (network.py), else the logistic
    estimate alone (the Python search's); `replay`: the view's past, each seat's slip and how
    many rounds to replay (at most two), to keep each deal as likely as those rounds' moves are
    on it (RoundSpec)."""
    seat = view.seat
    spec = DealSpec.of(view, weights)
    m = len(cands)
    codes = np.array([code_of(a) for a in cands], dtype=np.int64)
    alive = np.ones(m, dtype=np.bool_)
    sums = np.zeros(m)
    pair_sum = np.zeros((m, m))
    pair_squares = np.zeros((m, m))
    differ = np.zeros((m, m), dtype=np.bool_)
    status = np.zeros(2, dtype=np.int64)
    template, rules = encode(deal), encode_rules(view.rules)
    again = RoundSpec.none() if replay is None else RoundSpec.of(replay[0], deal, *replay[1:])
    seed = rng.getrandbits(32)
    chunk = FIRST_CHUNK
    while not status[STATUS_DONE]:
        played = int(status[STATUS_DEALS])
        if iterations is not None:
            if played >= iterations:
                break
            chunk = min(chunk, iterations - played)
        began = time.perf_counter()
        if began > deadline:
            break
        race_chunk(template, rules, seat, codes, alive, sums, pair_sum, pair_squares, differ,
                   status, chunk, spec.base, spec.needs, spec.weighted, spec.weights,
                   spec.hidden, spec.bottom,
                   -1 if rounds is None else rounds, estimator(network), drop_z, seed,
                   deadline_in_cycles(deadline), again.starts, again.played, again.moves,
                   again.slips, again.undo)
        seed = -1   # one stream of deals: the kernel's generator goes on where it stopped
        ended = time.perf_counter()
        per_deal = (ended - began) / max(1, int(status[STATUS_DEALS]) - played)
        chunk = max(1, min(4 * chunk, int((deadline - ended) / 4 / per_deal)))
    deals = int(status[STATUS_DEALS])
    left = int(alive.sum())
    if not deals:
        return RaceOutcome(0, 0, left)
    best = max((i for i in range(m) if alive[i]), key=lambda i: (sums[i], -i))
    return RaceOutcome(best, deals, left)


def estimator(network: bool) -> np.ndarray:
    """The packed estimate: with the network where it beat the logistic one, or without."""
    return model() if network else logistic_model()


def solver_search(deal: Game, seat: int, cands: list[Action], max_nodes: int | None,
                  network: bool = True
                  ) -> Callable[[int | None, float], tuple[Action | None, int, bool]]:
    """`HardPlayer`'s search of a known deal (engine/ai/search.py's `Search`) in the kernel:
    exactly (depth None) or to a depth, by a deadline, at most `max_nodes` nodes a search, with
    the estimate `estimator(network)` at the depth."""
    g, rules = encode(deal), encode_rules(deal.rules)
    codes = np.array([code_of(a) for a in cands], dtype=np.int64)
    weights = estimator(network)
    ctl = np.zeros(7, dtype=np.int64)

    def search(depth: int | None, deadline: float) -> tuple[Action | None, int, bool]:
        began = time.perf_counter()
        by = deadline_in_cycles(deadline)
        budget = (UNBOUNDED if by != NO_DEADLINE
                  else int(_node_rate[0] * NODE_RATE_USED * max(0.0, deadline - began)))
        if max_nodes is not None:
            budget = min(budget, max_nodes)
        best, _ = best_move(g, rules, seat, codes, -1 if depth is None else depth, budget, by,
                            weights, ctl)
        took = time.perf_counter() - began
        if took > 0.002:   # long enough to time
            _node_rate[0] = max(FIRST_NODE_RATE, int(ctl[NODES]) / took)
        return (None if best < 0 else cands[best]), int(ctl[NODES]), bool(ctl[CUT])

    return search
