"""Dealing a game consistent with a view: the resampler search plays on (determinization).

OpenSpiel's `resample_from_infostate`: the seat's view fixes everything it may know, and the
cards it cannot see are dealt at random. Not a rule of the game, so not in `engine/game.py`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from engine.cards import mask_of, parse_suit
from engine.game import Game
from engine.rules import AWAY_AFTER_TIMEOUTS
from engine.views import PlayerView

Dealer = Callable[[random.Random], Game]


def sample(view: PlayerView, rng: random.Random,
           weights: Sequence[Mapping[int, float]] | None = None) -> Game:
    """A full game whose `view(view.seat)` equals `view`: the hidden cards dealt at random.

    Every card the seat knows stays where it is known to be (its hand, the table, the discard,
    cards others took, the face-up trump card at the bottom of the stock); the rest are shuffled
    into the other hands and the stock, respecting every count. Such a game has no deal and no
    log of its own.

    `weights[seat]` maps card indexes to how likely (against 1 for an unlisted card) the card is
    to be dealt to that seat rather than elsewhere (what his moves said: `engine.ai.inference`).
    """
    return dealer(view, weights)(rng)


def dealer(view: PlayerView, weights: Sequence[Mapping[int, float]] | None = None) -> Dealer:
    """`sample` for many deals of one view: what the view fixes is read once (a search deals
    hundreds of times a decision), and each deal draws from `rng` as `sample` does."""
    rules = view.rules
    known = [mask_of(k) for k in view.known]
    # Per seat: what its hand holds before a deal (the view's own seat, its whole hand), how
    # many hidden cards it still needs, and the weights they are drawn by.
    seats: list[tuple[int, int, Mapping[int, float] | None]] = []
    for seat, count in enumerate(view.hand_counts):
        if seat == view.seat:
            seats.append((mask_of(view.hand), 0, None))
            continue
        need = count - len(view.known[seat])
        if need < 0:
            raise ValueError("view is inconsistent: more known cards than cards in a hand")
        seats.append((known[seat], need, weights[seat] if weights and need else None))
    hidden = [c.index for c in view.unseen]
    stocked = len(hidden) - sum(need for _, need, _ in seats)
    if stocked != view.stock_count - (view.trump_card is not None):
        raise ValueError("view is inconsistent: hidden cards do not fill the stock")
    bottom = [] if view.trump_card is None else [view.trump_card.index]
    template = Game.from_fields(
        rules=rules, seed=0.0, players=rules.players, initial=None, log=[],
        history=list(view.history),
        trump=parse_suit(view.trump_suit),
        hands=[0] * rules.players,
        known=known,
        stock=[],
        trump_card_index=-1 if view.trump_card is None else view.trump_card.index,
        named_trump=-1 if view.named_trump is None else view.named_trump.index,
        discard=mask_of(view.discarded),
        attacks=[a.index for a, _ in view.table],
        defences=[-1 if d is None else d.index for _, d in view.table],
        active=_seat_mask(view.active_seats),
        out_order=list(view.finished_order),
        round_starter=view.round_starter, attacker=view.attacker, defender=view.defender,
        first_round=view.first_round, taking=view.taking,
        round_limit=view.round_limit, attack_limit=view.attack_limit,
        passes=_seat_mask(view.passed),
        showed_trump=_seat_mask(view.shown_trump),
        turn_due=view.turn_due, window_due=view.window_due, close_due=view.close_due,
        timeouts=[AWAY_AFTER_TIMEOUTS if s in view.away else 0 for s in range(rules.players)],
        is_over=view.is_over, durak=view.durak,
    )

    def deal(rng: random.Random) -> Game:
        seed = rng.random()  # drawn first: the order of draws decides the deals a search plays
        cards = hidden[:]
        rng.shuffle(cards)
        hands = []
        pos = 0
        for m, need, weight in seats:
            if weight:
                _weigh_forward(cards, pos, need, weight, rng)
            for c in cards[pos:pos + need]:
                m |= 1 << c
            hands.append(m)
            pos += need
        g = template.copy()
        g.seed, g.hands, g.stock = seed, hands, bottom + cards[pos:]  # the next drawn last
        return g

    return deal


def _weigh_forward(hidden: list[int], pos: int, need: int, weights: Mapping[int, float],
                   rng: random.Random) -> None:
    """Put `need` of `hidden[pos:]` first, each card chosen in proportion to its weight
    (Efraimidis and Spirakis' weighted sampling without replacement: the largest u^(1/w)).
    The others keep their shuffled order: where they lie in the stock says nothing."""
    rand = rng.random
    tail = hidden[pos:]
    keys = [rand() ** (1.0 / weights.get(c, 1.0)) for c in tail]
    chosen = sorted(range(len(tail)), key=keys.__getitem__, reverse=True)[:need]
    taken = set(chosen)
    hidden[pos:] = [tail[i] for i in chosen] + [c for i, c in enumerate(tail) if i not in taken]


def _seat_mask(seats: tuple[int, ...] | frozenset[int]) -> int:
    return sum(1 << s for s in seats)
