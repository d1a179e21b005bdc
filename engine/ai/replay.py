"""What a whole deal says of the other players' past moves: the rounds replayed on it.

`inference.py` weighs each hidden card on its own. Much of what a move says holds only together
with the rest of the hand (he led the nine, so he had no cheaper card, unless it paired with one
he holds). A deal fixes every hand, so the rounds can be played again on it: each recent round's
start is rebuilt from the deal and the history, its moves are made again, and at every move
another seat chose, `normal` (`policy.py`) is asked what it would have done with the hand the
deal gives him. A deal on which the moves look unlike `normal` is less likely to be the real one.

Going back a round undoes what happened in it: the cards played go back to the hands, the taken
cards leave the taker, the beaten ones leave the discard, and the cards drawn at its end go back
to the stock. Which of a hand's cards were drawn then the history does not say (only how many);
they are chosen at random among the cards that may have been drawn (none that anyone saw before
the draw; the face-up trump card by whoever drew the stock's last card). A round further back
therefore rests on more guessed cards, and a move there that looks wrong counts for less
(`fade`).

`likely_deal` deals by rejection: a deal is kept with its likelihood, so the deals the search
plays on follow what the moves say. `bench/inference_bench.py` measures the result.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence

from engine.actions import Action, Event, EventKind, IllegalMove
from engine.ai.policy import normal_action
from engine.game import Game
from engine.state import DERIVED, FIELDS

ROUNDS = 8     # rounds replayed, the current one included: older ones say almost nothing
FADE = 0.8     # per round back, what is left of a mismatch's weight against 1
TRIES = 8      # deals drawn for one kept deal at most

_PLAYS = frozenset({EventKind.ATTACK, EventKind.DEFEND, EventKind.TRANSFER})
_MOVES = frozenset({*_PLAYS, EventKind.SHOW_TRUMP, EventKind.TAKE, EventKind.PASS})

# (index of the draw in the history, seat, mask of the cards he may have drawn, count) -> cards
Drawn = Callable[[int, int, int, int], list[int]]
_GIVEN = tuple(f.name for f in FIELDS if f.kind is not DERIVED)


class Inconsistent(Exception):
    """The history cannot have happened on this deal (a history cut short, say)."""


def round_starts(deal: Game, rng: random.Random, rounds: int = ROUNDS,
                 drawn: Drawn | None = None) -> Iterator[tuple[Game, Sequence[Event]]]:
    """The starts of the last `rounds` rounds on `deal`, newest first, each with the round's
    events; a start is built when it is asked for (an earlier one is rebuilt from a copy).

    `drawn(i, seat, candidates, count)` names the cards drawn at `deal.history[i]` (a test knows
    them); by default they are chosen at random among `candidates` (a mask). Raises
    Inconsistent if the history cannot have happened on the deal.
    """
    history = deal.history
    starts = [0] + [i + 1 for i, e in enumerate(history) if e.kind == EventKind.ROUND]
    seen = [0]   # seen[i]: the cards in history[:i]
    for e in history:
        seen.append(seen[-1] | (1 << e.card.index if e.card is not None else 0))
    named = 1 << deal.named_trump if deal.named_trump >= 0 else 0
    # Known since the deal and not played since (R3.1's opening trump, R2.3's last card).
    shown = [k & ~seen[-1] & ~named for k in deal.known]
    g = deal.copy(with_log=False)
    j = len(starts) - 1
    events = history[starts[j]:]
    for back in range(rounds):
        _unplay(g, events)
        start = _start(g, history, starts[j], seen[starts[j]] | named, shown, j == 0)
        if back + 1 == rounds or not j:
            yield start, events
            return
        g = start.copy(with_log=False)   # the caller plays the round on `start`
        yield start, events
        j -= 1
        events = history[starts[j]:starts[j + 1] - 1]   # the next ROUND event is not its own
        _undo_close(g, events, starts[j], seen, shown, drawn or _at_random(rng))


def unlike_normal(deal: Game, seat: int, rng: random.Random, rounds: int = ROUNDS
                  ) -> Iterator[int]:
    """Per round back (first the current one), how many moves the other seats chose that
    `normal` would not have made on `deal`. It stops early at a round that cannot have happened
    on the deal: what it said so far stands."""
    try:
        for g, events in round_starts(deal, rng, rounds):
            missed = 0
            forced = None   # a timeout's move was the engine's, and says nothing
            for e in events:
                if e.kind == EventKind.TIMEOUT:
                    forced = e.seat
                    continue
                if e.kind not in _MOVES:
                    continue
                action = Action(e.kind, e.card, e.target)
                if e.seat != seat and e.seat != forced:
                    legal = g.legal_actions(e.seat)
                    missed += len(legal) > 1 and normal_action(g, e.seat, legal) != action
                forced = None
                g.apply(e.seat, action, 0.0)
            yield missed
    except (Inconsistent, IllegalMove):
        return


def factor(back: int, missed: int, slip: float, fade: float = FADE) -> float:
    """How likely `missed` moves unlike `normal`'s are, `back` rounds ago, against none: `slip`
    each in the current round, towards 1 by `fade` a round back (`1 - (1 - slip) * fade**back`).
    """
    return (1.0 - (1.0 - slip) * fade ** back) ** missed if missed else 1.0


def likely_deal(deal_of: Callable[[random.Random], Game], seat: int, slip: float,
                rng: random.Random) -> Game:
    """A deal from `deal_of`, kept with its likelihood (the product of the rounds' `factor`s).

    Rejection: the threshold is drawn first, so a deal is dropped at the first round that brings
    its likelihood under it, the older rounds unread. If none of `TRIES` deals is kept, the one
    likeliest as far as it was read.
    """
    best, best_p = None, -1.0
    for _ in range(TRIES):
        deal = deal_of(rng)
        threshold = rng.random()
        p = 1.0
        for back, missed in enumerate(unlike_normal(deal, seat, rng)):
            p *= factor(back, missed, slip)
            if p <= threshold:
                break
        else:
            return deal
        if p > best_p:
            best, best_p = deal, p
    return best


def _at_random(rng: random.Random) -> Drawn:
    def drawn(i: int, seat: int, candidates: int, count: int) -> list[int]:
        cards = [c for c in range(candidates.bit_length()) if candidates >> c & 1]
        if len(cards) < count:
            raise Inconsistent
        return rng.sample(cards, count)
    return drawn


def _unplay(g: Game, events: Sequence[Event]) -> None:
    """Take back the round's moves: its cards to the hands that played them."""
    for e in events:
        if e.kind in _PLAYS:
            g.hands[e.seat] |= 1 << e.card.index
        elif e.kind == EventKind.SHOW_TRUMP:
            g.showed_trump &= ~(1 << e.seat)
        elif e.kind == EventKind.OUT and not g.active >> e.seat & 1:
            g.active |= 1 << e.seat
            g.out_order.remove(e.seat)


def _undo_close(g: Game, events: Sequence[Event], begin: int, seen: list[int],
                shown: list[int], drawn: Drawn) -> None:
    """Undo how a round ended: the draws (the last first), then the take or the discard."""
    table = 0
    for e in events:
        if e.kind in _PLAYS:
            table |= 1 << e.card.index
    bottom = g.trump_card_index if g.trump_card_index >= 0 else g.named_trump
    bottom_bit = 1 << bottom if bottom >= 0 else 0
    emptied = not g.stock
    draws = [(i, e) for i, e in enumerate(events, begin) if e.kind == EventKind.DRAW]
    for n, (i, e) in enumerate(reversed(draws)):
        hand = g.hands[e.seat]
        count = e.count
        if emptied and not n and bottom_bit:   # he drew the last card: the face-up trump
            if not hand & bottom_bit:
                raise Inconsistent
            hand &= ~bottom_bit
            g.stock.insert(0, bottom)
            g.trump_card_index = bottom
            count -= 1
        for c in drawn(i, e.seat, hand & ~seen[i] & ~shown[e.seat] & ~bottom_bit, count):
            hand &= ~(1 << c)
            g.stock.append(c)
        g.hands[e.seat] = hand
    for e in events:
        if e.kind == EventKind.TAKEN:
            if g.hands[e.seat] & table != table:
                raise Inconsistent
            g.hands[e.seat] &= ~table
        elif e.kind == EventKind.BEATEN:
            g.discard &= ~table


def _start(g: Game, history: Sequence[Event], begin: int, seen: int, shown: list[int],
           first: bool) -> Game:
    """The start of the round at `history[begin]`, with `g`'s hands, stock and discard."""
    if begin:
        e = history[begin - 1]
        starter, defender = e.seat, e.to_seat
    else:
        starter = next((e.seat for e in history if e.kind == EventKind.ATTACK), g.round_starter)
        defender = next(s % g.players for s in range(starter + 1, starter + g.players)
                        if g.active >> s % g.players & 1)
    limit = g.rules.max_attack
    if first:
        limit = min(limit, g.rules.first_round_limit)
    in_stock = 0
    for c in g.stock:
        in_stock |= 1 << c
    fields = {name: getattr(g, name) for name in _GIVEN}
    fields.update(
        log=[], history=[], attacks=[], defences=[], taking=False, passes=0,
        is_over=False, durak=None, first_round=first, round_limit=limit,
        round_starter=starter, attacker=starter, defender=defender,
        attack_limit=min(limit, g.hands[defender].bit_count()),
        turn_due=0.0, window_due=None, close_due=None,
        # Known: a card seen on the table before (it came back by a take), the drawn trump card.
        known=[hand & ((seen & ~in_stock) | shown[s]) for s, hand in enumerate(g.hands)],
    )
    return Game.from_fields(**fields)
