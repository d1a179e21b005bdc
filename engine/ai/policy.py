"""Heuristic play: the `normal` and `easy` players, and the playout policy of the search.

Each policy is a function `(game, seat, legal, rng) -> Action` that reads only what `seat` may
know (R11): its own hand, the table, counts, the trump, the discard it watched, and the cards
known to be in other hands. It never looks at another hand or the stock order, so it gives the
same answer on the real game, on any game `engine.sampling.sample` deals from the seat's view,
and inside a determinization of the search — one implementation serves all three, on raw
bitmasks, fast.
`tests/ai/test_ai_hidden_info.py` checks that it never peeks.

Card values: a card's rank index (0 for a deuce … 12 for an ace), plus 13 for a trump, so every
trump outranks every plain card.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from engine.actions import ATTACK, DEFEND, PASS, TAKE, Action, ActionKind
from engine.cards import RANK_CARDS, SUIT_CARDS, bits_of, deck_mask
from engine.game import Game

_DECKS = {size: deck_mask(size) for size in (24, 36, 52)}
# Mean card value of each deck: the value of an "average" card drawn from the stock.
MEAN = {
    size: sum(i % 13 + (13 if i // 13 == 3 else 0) for i in range(52) if mask >> i & 1)
    / mask.bit_count()
    for size, mask in _DECKS.items()
}  # (the same whichever suit is trump; ♥ stands in for it)


@dataclass(frozen=True)
class Style:
    """The normal policy's constants, tuned by playing normal against variants of itself
    (thousands of mirrored heads-up games per change, both games)."""

    card_burden: float = 1.0      # one more card in hand, while the stock refills hands
    burden_growth: float = 4.0    # ... and how much more for each card the stock is short of 6
    tempo: float = 2.0            # losing the lead by taking
    late_stock: int = 4           # "no trump attacks while the stock holds more than 4 cards"
    pair_bonus: float = 1.5       # leading a rank we hold twice dumps two cards
    endgame_pair_bonus: float = 4.0
    sure_bonus: float = 6.0       # a late lead the defender cannot beat
    throw_to_defender: int = 12   # highest rank index thrown to a defender early (12: an ace)
    throw_to_taker: int = 9       # ... to a taker (9: a jack)
    late_throw_extra: int = 2     # ... raised by this once the stock is late
    new_rank_cost: float = 3.0    # a beater of a new rank, per unseen card of that rank
    throw_all_stock: int = 2      # throw in everything once the stock is this low


NORMAL = Style()


def value(ci: int, trump: int) -> int:
    r = ci % 13
    return r + 13 if ci // 13 == trump else r


def _cheapest(mask: int, trump_mask: int) -> int:
    """The least valuable card of `mask` (plain before trump, low before high)."""
    m = mask & ~trump_mask or mask
    if not m & (m - 1):
        return m.bit_length() - 1
    return min(bits_of(m), key=lambda c: c % 13)


def unseen_mask(g: Game, seat: int) -> int:
    """Cards `seat` cannot place: in other hands beyond the known ones, or hidden in the stock."""
    seen = g.hands[seat] | g.discard
    for c in g.attacks:
        seen |= 1 << c
    for c in g.defences:
        if c >= 0:
            seen |= 1 << c
    for k in g.known:
        seen |= k
    if g.trump_card_index >= 0:
        seen |= 1 << g.trump_card_index
    return _DECKS[g.rules.deck] & ~seen


def _may_hold(g: Game, seat: int, other: int) -> int:
    """Cards `seat` must allow for in `other`'s hand."""
    return g.known[other] | unseen_mask(g, seat)


# ---- normal ----------------------------------------------------------------------------------

def normal_action(g: Game, seat: int, legal: list[Action], rng: random.Random | None = None,
                  style: Style = NORMAL) -> Action:
    """A solid heuristic move; deterministic (the search pairs its playouts on that)."""
    if not g.attacks:
        action = _lead(g, seat, style)
    elif seat == g.defender:
        action = _defend(g, seat, legal, style)
    else:
        action = _throw_in(g, seat, style)
    # Defensive: a caller may offer a subset (a standing pass leaves no PASS to choose).
    if action in legal:
        return action
    if action is PASS:
        return next((a for a in legal if a.kind != ActionKind.PASS), legal[0])
    return legal[0]


def _lead(g: Game, seat: int, style: Style) -> Action:
    trump = g.trump
    trumps = SUIT_CARDS[trump]
    hand = g.hands[seat]
    stock = len(g.stock)
    late = stock <= style.late_stock
    pool = hand & ~trumps if not late and hand & ~trumps else hand
    sure = 0
    if late:
        beaters = g.beaters
        may = _may_hold(g, seat, g.defender)
        sure = sum(1 << c for c in bits_of(pool) if not beaters[c] & may)
    pair_bonus = style.endgame_pair_bonus if stock == 0 else style.pair_bonus
    best, best_score = -1, 1e9
    for c in bits_of(pool):
        score = value(c, trump) - pair_bonus * ((hand & RANK_CARDS[c]).bit_count() - 1)
        if sure >> c & 1:
            score -= style.sure_bonus
        if score < best_score:
            best, best_score = c, score
    return ATTACK[best]


def plan_defence(g: Game, seat: int, style: Style = NORMAL) -> list[tuple[int, int]] | None:
    """A cheap way to beat every unbeaten card: [(target, card)], or None if there is none.

    Greedy: the attack card with the fewest answers first, each beaten by the cheapest card that
    beats it; a card of a rank not yet on the table costs more, as it lets attackers throw in
    that rank too.
    """
    hand = g.hands[seat]
    beaters = g.beaters
    trump = g.trump
    trumps = SUIT_CARDS[trump]
    todo = [(t, a) for t, (a, d) in enumerate(zip(g.attacks, g.defences, strict=True)) if d < 0]
    open_ranks = g.table_ranks
    unseen = unseen_mask(g, seat) if style.new_rank_cost else 0
    plan = []
    while todo:
        best_i, best_n = 0, 99
        for i, (_, a) in enumerate(todo):
            n = (hand & beaters[a]).bit_count()
            if n < best_n or (n == best_n and value(a, trump) > value(todo[best_i][1], trump)):
                best_i, best_n = i, n
        if best_n == 0:
            return None
        t, a = todo.pop(best_i)
        options = hand & beaters[a]
        if style.new_rank_cost and options & (options - 1):
            b = min(bits_of(options), key=lambda c: value(c, trump) + (
                0 if open_ranks >> c & 1 else style.new_rank_cost
                * (unseen & RANK_CARDS[c]).bit_count()))
        else:
            b = _cheapest(options, trumps)
        hand &= ~(1 << b)
        open_ranks |= RANK_CARDS[b]
        plan.append((t, b))
    return plan


def _defend(g: Game, seat: int, legal: list[Action], style: Style) -> Action:
    trump = g.trump
    mean = MEAN[g.rules.deck]
    stock = len(g.stock)
    plan = plan_defence(g, seat, style)
    # (card, action): every transfer names its card (`and a.card` tells the type checker so).
    transfers = [(a.card, a) for a in legal if a.kind == ActionKind.TRANSFER and a.card]
    shows = [a for a in legal if a.kind == ActionKind.SHOW_TRUMP]
    # Spending a card costs what it is worth above an average card (it is replaced from the
    # stock while the stock lasts). Without a plan no price beats every card.
    cost = math.inf if plan is None else sum(value(b, trump) - mean for _, b in plan)
    if shows and (plan is None or cost > 0):
        return shows[0]
    if transfers:
        card, x = min(transfers, key=lambda t: value(t[0].index, trump))
        gx = value(card.index, trump) - mean
        if plan is None or cost >= gx or card.suit_index != trump:
            return x
    if plan is None:
        return TAKE
    if stock and _should_take(g, cost, stock, mean, style):
        return TAKE
    t, b = plan[0]
    return DEFEND[b][t]


def _should_take(g: Game, cost: float, stock: int, mean: float, style: Style) -> bool:
    """R6.1's choice: keep the beaters and take the table, or spend them.

    Taking keeps the beaters and adds the table's cards to the hand; defending spends the beaters
    (refilled with average cards) and keeps the lead. Each extra card is a burden that grows as
    the stock runs out, since fewer draws are skipped.
    """
    trump = g.trump
    table = [*g.attacks, *(c for c in g.defences if c >= 0)]
    gained = sum(value(c, trump) - mean for c in table)
    burden = style.card_burden + max(0, 6 - stock) * style.burden_growth
    return cost + gained > len(table) * burden + style.tempo


def _throw_in(g: Game, seat: int, style: Style) -> Action:
    cands = g.hands[seat] & g.table_ranks
    if not cands or len(g.attacks) >= g.attack_limit:
        return PASS
    stock = len(g.stock)
    trumps = SUIT_CARDS[g.trump]
    if stock <= style.throw_all_stock:
        pool = cands  # endgame: every card out of the hand counts
    else:
        limit = style.throw_to_taker if g.taking else style.throw_to_defender
        if stock <= style.late_stock:
            limit += style.late_throw_extra
        pool = sum(1 << c for c in bits_of(cands & ~trumps) if c % 13 <= limit)
    if not pool:
        return PASS
    return ATTACK[_cheapest(pool, trumps)]


# ---- easy ------------------------------------------------------------------------------------

def easy_action(g: Game, seat: int, legal: list[Action], rng: random.Random) -> Action:
    """A beginner: any sensible move at random — keeps trumps for last, takes only when stuck."""
    trumps = SUIT_CARDS[g.trump]
    # Every attack, defence and transfer names its card; `a.card and` tells the type checker.
    kinds: dict[str, list[Action]] = {}
    for a in legal:
        kinds.setdefault(a.kind, []).append(a)
    if not g.attacks:
        leads = kinds[ActionKind.ATTACK]
        plain = [a for a in leads if a.card and not trumps >> a.card.index & 1]
        return rng.choice(plain or leads)
    if seat == g.defender:
        moves = kinds.get(ActionKind.TRANSFER, []) if rng.random() < 0.5 else []
        moves = moves or kinds.get(ActionKind.DEFEND, [])
        plain = [a for a in moves if a.card and not trumps >> a.card.index & 1]
        if plain or moves:
            return rng.choice(plain or moves)
        return kinds.get(ActionKind.TAKE, legal)[0]
    throws = [a for a in kinds.get(ActionKind.ATTACK, [])
              if a.card and not (g.stock and trumps >> a.card.index & 1)]
    if throws and (rng.random() < 0.5 or ActionKind.PASS not in kinds):
        return rng.choice(throws)
    return kinds[ActionKind.PASS][0] if ActionKind.PASS in kinds else rng.choice(legal)
