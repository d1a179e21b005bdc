"""Who is asked to move next, one seat at a time: the turn protocol of the arena and of playouts.

The engine lets every attacker act at once (R5.2); a program needs an order. Ours:

1. the lead attacker while the table is empty;
2. the defender while he faces unbeaten cards and has not declared Take;
3. otherwise each attacker who still has something to throw in (a matching card, room under the
   limit) and whose pass does not stand, the round's starter (`round_starter`) first, then
   clockwise;
4. when nobody is left to ask, the clock jumps to the next deadline (the round closes, R6.3).

A seat with one legal action is not asked. An attacker's "pass" is applied like any move, so he is
not asked again until a new rank or a Take cancels the passes. Attackers wait while the defender
is still beating: throwing in later never gives them less information, and it keeps the order
fair for the arena (the app may ask computer players in the same order: `seats_to_ask`).
"""

from __future__ import annotations

from collections.abc import Callable

from engine.actions import Action
from engine.game import Game

MAX_STEPS = 5_000

Decide = Callable[[Game, int, list[Action]], Action]


def seats_to_ask(g: Game) -> list[int]:
    """The seats that should decide now, in the order they are asked (see the module text)."""
    if g.is_over:
        return []
    if not g.attacks:
        return [g.attacker]
    if g.unbeaten and not g.taking:
        return [g.defender]
    if len(g.attacks) >= g.attack_limit:
        return []
    out = []
    n, ranks, hands = g.players, g.table_ranks, g.hands
    willing = g.throwers & ~g.passes
    s = g.round_starter
    for _ in range(n):
        if willing >> s & 1 and hands[s] & ranks:
            out.append(s)
        s = s + 1 if s + 1 < n else 0
    return out


def step(g: Game, decide: Decide, now: float) -> float:
    """Make one move (or fire the next deadline); returns the clock after it."""
    seats = seats_to_ask(g)
    if not seats:
        due = g.next_deadline
        assert due is not None   # a game not over always has a clock running
        now = max(now, due)
        g.advance(now)
        return now
    seat = seats[0]
    legal = g.legal_actions(seat)
    action = legal[0] if len(legal) == 1 else decide(g, seat, legal)
    g.apply(seat, action, now)
    return now


def play_out(g: Game, decide: Decide, now: float = 0.0, max_steps: int = MAX_STEPS) -> bool:
    """Play `g` (in place) with `decide` for every seat; whether it ended within `max_steps`.

    Durak need not end: with hands of six or more nobody draws, and cards can go round through
    takes and transfers for ever. Callers score a game cut short as a draw.
    """
    for _ in range(max_steps):
        if g.is_over:
            return True
        now = step(g, decide, now)
    return g.is_over
