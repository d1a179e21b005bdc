"""Dealing the hidden cards of a view at random: the determinization that search plays on."""

from __future__ import annotations

import random

from engine.cards import RANK_CARDS, mask_of
from engine.game import _BEATS, Game
from engine.views import PlayerView


def sample_game(view: PlayerView, rng: random.Random) -> Game:
    """A full game whose `view(view.seat)` equals `view`.

    Every card the seat knows stays where it is known to be (its hand, the table, the discard,
    cards others took, the face-up trump card at the bottom of the stock); the rest are shuffled
    into the other hands and the stock, respecting every count.
    """
    hidden = list(view.unseen)
    rng.shuffle(hidden)
    n = view.rules.players
    hands = []
    pos = 0
    for s in range(n):
        known = mask_of(view.known[s])
        if s == view.seat:
            hands.append(mask_of(view.hand))
            continue
        need = view.hand_counts[s] - len(view.known[s])
        if need < 0:
            raise ValueError("view is inconsistent: more known cards than cards in a hand")
        hands.append(known | mask_of(hidden[pos:pos + need]))
        pos += need
    rest = hidden[pos:]
    expected = view.stock_count - (1 if view.trump_card is not None else 0)
    if len(rest) != expected:
        raise ValueError("view is inconsistent: hidden cards do not fill the stock")
    stock = [c.index for c in rest]  # next drawn last, as in Game
    if view.trump_card is not None:
        stock.insert(0, view.trump_card.index)

    g = object.__new__(Game)
    g.rules, g.seed, g.n = view.rules, rng.random(), n
    g.trump = "♠♣♦♥".index(view.trump_suit)
    g.beats = _BEATS[g.trump]
    g.hands = hands
    g.stock = stock
    g.trump_card_i = -1 if view.trump_card is None else view.trump_card.index
    g.discard = mask_of(view.discarded)
    g.atk = [a.index for a, _ in view.table]
    g.dfn = [-1 if d is None else d.index for _, d in view.table]
    g.unbeaten = g.dfn.count(-1)
    g.tmask = 0
    for c in g.atk + g.dfn:
        if c >= 0:
            g.tmask |= RANK_CARDS[c]
    g.pmask = sum(1 << s for s in view.passed)
    g.shown = sum(1 << s for s in view.shown_trump)
    g.taking, g.over, g._durak = view.taking, view.is_over, view.durak
    g.known = [mask_of(k) for k in view.known]
    g.active = sum(1 << s for s in view.active_seats)
    g.out = list(view.finished_order)
    g.timeouts = [2 if s in view.away else 0 for s in range(n)]
    g.first_round = view.first_round
    g.attacker, g.defender = view.attacker, view.defender
    g.limit, g.round_max = view.attack_limit, view.round_max
    g.turn_due, g.window_due, g.close_due = view.turn_due, view.window_due, view.close_due
    g.initial = None
    g.log = []
    g._update_seating()
    return g
