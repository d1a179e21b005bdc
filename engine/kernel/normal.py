"""`normal`'s choices in numba's subset: the kernel's copy of `engine/ai/policy.py`.

The same rules, constants (`policy.NORMAL`) and tie-breaks (the first card, lowest index, of
equal score); the differential test compares the two choices at every step.
"""

from __future__ import annotations

import numpy as np

from engine.ai.policy import MEAN as _MEAN
from engine.ai.policy import NORMAL
from engine.kernel.jit import compiled
from engine.kernel.layout import (
    ACTION_ATTACK,
    ACTION_DEFEND,
    ACTION_PASS,
    ACTION_SHOW_TRUMP,
    ACTION_TAKE,
    ACTION_TRANSFER,
    ATTACK_LIMIT,
    ATTACKS,
    DEFENCES,
    DEFENDER,
    DISCARD,
    HANDS,
    KNOWN,
    R_DECK,
    STOCK_N,
    TABLE_N,
    TABLE_RANKS,
    TAKING,
    TRUMP,
    TRUMP_CARD,
)
from engine.kernel.play import BEATERS, RANK_CARDS, SUIT_CARDS, deck_of, popcount

MEAN_24, MEAN_36, MEAN_52 = _MEAN[24], _MEAN[36], _MEAN[52]
CARD_BURDEN = NORMAL.card_burden
BURDEN_GROWTH = NORMAL.burden_growth
TEMPO = NORMAL.tempo
LATE_STOCK = NORMAL.late_stock
PAIR_BONUS = NORMAL.pair_bonus
ENDGAME_PAIR_BONUS = NORMAL.endgame_pair_bonus
SURE_BONUS = NORMAL.sure_bonus
THROW_TO_DEFENDER = NORMAL.throw_to_defender
THROW_TO_TAKER = NORMAL.throw_to_taker
LATE_THROW_EXTRA = NORMAL.late_throw_extra
NEW_RANK_COST = NORMAL.new_rank_cost
THROW_ALL_STOCK = NORMAL.throw_all_stock


@compiled
def value(ci: int, trump: int) -> int:
    r = ci % 13
    return r + 13 if ci // 13 == trump else r


@compiled
def cheapest(mask: int, trump_mask: int) -> int:
    """The least valuable card of `mask` (plain before trump, low before high)."""
    m = mask & ~trump_mask
    if not m:
        m = mask
    best, best_rank = -1, 99
    while m:
        low = m & -m
        c = popcount(low - 1)
        if c % 13 < best_rank:
            best, best_rank = c, c % 13
        m ^= low
    return best


@compiled
def unseen_mask(s: np.ndarray, r: np.ndarray, seat: int) -> int:
    """policy.unseen_mask: cards `seat` cannot place."""
    seen = s[HANDS + seat] | s[DISCARD]
    for i in range(s[TABLE_N]):
        seen |= 1 << s[ATTACKS + i]
        if s[DEFENCES + i] >= 0:
            seen |= 1 << s[DEFENCES + i]
    for k in range(6):
        seen |= s[KNOWN + k]
    if s[TRUMP_CARD] >= 0:
        seen |= 1 << s[TRUMP_CARD]
    return deck_of(r) & ~seen


@compiled
def mean_of(r: np.ndarray) -> float:
    d = r[R_DECK]
    return MEAN_24 if d == 24 else MEAN_36 if d == 36 else MEAN_52


@compiled
def lead(s: np.ndarray, r: np.ndarray, seat: int) -> int:
    trump = s[TRUMP]
    trumps = SUIT_CARDS[trump]
    hand = s[HANDS + seat]
    stock = s[STOCK_N]
    late = stock <= LATE_STOCK
    pool = hand & ~trumps if not late and hand & ~trumps else hand
    sure = 0
    if late:
        beaters = BEATERS[trump]
        may = s[KNOWN + s[DEFENDER]] | unseen_mask(s, r, seat)
        rest = pool
        while rest:
            low = rest & -rest
            if not beaters[popcount(low - 1)] & may:
                sure |= low
            rest ^= low
    pair_bonus = ENDGAME_PAIR_BONUS if stock == 0 else PAIR_BONUS
    best, best_score = -1, 1e9
    rest = pool
    while rest:
        low = rest & -rest
        rest ^= low
        c = popcount(low - 1)
        score = value(c, trump) - pair_bonus * (popcount(hand & RANK_CARDS[c]) - 1)
        if sure >> c & 1:
            score -= SURE_BONUS
        if score < best_score:
            best, best_score = c, score
    return ACTION_ATTACK | best << 3


@compiled
def plan_defence(s: np.ndarray, r: np.ndarray, seat: int, mean: float
                 ) -> tuple[bool, float, int, int]:
    """policy.plan_defence: whether there is a plan, what its cards cost above `mean` in all
    (policy._defend's cost), and its first step (target, card)."""
    hand = s[HANDS + seat]
    trump = s[TRUMP]
    beaters = BEATERS[trump]
    todo = 0   # targets still unbeaten: the plan's list, in table order as its pops keep it
    for t in range(s[TABLE_N]):
        if s[DEFENCES + t] < 0:
            todo |= 1 << t
    open_ranks = s[TABLE_RANKS]
    unseen = unseen_mask(s, r, seat)
    cost = 0.0
    first_t = first_b = -1
    while todo:
        best_t, best_n = -1, 99
        for t in range(6):
            if not todo >> t & 1:
                continue
            n = popcount(hand & beaters[s[ATTACKS + t]])
            if n < best_n or (n == best_n and value(s[ATTACKS + t], trump)
                              > value(s[ATTACKS + best_t], trump)):
                best_t, best_n = t, n
        if best_n == 0:
            return False, np.inf, -1, -1
        todo &= ~(1 << best_t)
        options = hand & beaters[s[ATTACKS + best_t]]
        if options & (options - 1):
            b, b_cost = -1, 1e18
            rest = options
            while rest:
                low = rest & -rest
                rest ^= low
                c = popcount(low - 1)
                card_cost = float(value(c, trump))
                if not open_ranks >> c & 1:
                    card_cost += NEW_RANK_COST * popcount(unseen & RANK_CARDS[c])
                if card_cost < b_cost:
                    b, b_cost = c, card_cost
        else:
            b = cheapest(options, SUIT_CARDS[trump])
        hand &= ~(1 << b)
        open_ranks |= RANK_CARDS[b]
        cost += value(b, trump) - mean
        if first_t < 0:
            first_t, first_b = best_t, b
    return True, cost, first_t, first_b


@compiled
def should_take(s: np.ndarray, cost: float, stock: int, mean: float) -> bool:
    """policy._should_take: keep the beaters and take the table, or spend them."""
    trump = s[TRUMP]
    gained = 0.0
    count = 0
    for i in range(s[TABLE_N]):
        gained += value(s[ATTACKS + i], trump) - mean
        count += 1
    for i in range(s[TABLE_N]):
        if s[DEFENCES + i] >= 0:
            gained += value(s[DEFENCES + i], trump) - mean
            count += 1
    burden = CARD_BURDEN + max(0, 6 - stock) * BURDEN_GROWTH
    return cost + gained > count * burden + TEMPO


@compiled
def defend_choice(s: np.ndarray, r: np.ndarray, seat: int, legal: np.ndarray, n: int) -> int:
    trump = s[TRUMP]
    mean = mean_of(r)
    stock = s[STOCK_N]
    planned, cost, first_t, first_b = plan_defence(s, r, seat, mean)
    first_show, best_transfer, best_value = -1, -1, 99
    for i in range(n):
        kind = legal[i] & 7
        if kind == ACTION_SHOW_TRUMP and first_show < 0:
            first_show = legal[i]
        elif kind == ACTION_TRANSFER:
            v = value(legal[i] >> 3 & 63, trump)
            if v < best_value:
                best_transfer, best_value = legal[i], v
    if first_show >= 0 and (not planned or cost > 0):
        return first_show
    if best_transfer >= 0:
        gx = best_value - mean
        if not planned or cost >= gx or (best_transfer >> 3 & 63) // 13 != trump:
            return best_transfer
    if not planned:
        return ACTION_TAKE
    if stock and should_take(s, cost, stock, mean):
        return ACTION_TAKE
    return ACTION_DEFEND | first_b << 3 | first_t << 9


@compiled
def throw_in(s: np.ndarray, seat: int) -> int:
    cands = s[HANDS + seat] & s[TABLE_RANKS]
    if not cands or s[TABLE_N] >= s[ATTACK_LIMIT]:
        return ACTION_PASS
    stock = s[STOCK_N]
    trumps = SUIT_CARDS[s[TRUMP]]
    if stock <= THROW_ALL_STOCK:
        pool = cands
    else:
        limit = THROW_TO_TAKER if s[TAKING] else THROW_TO_DEFENDER
        if stock <= LATE_STOCK:
            limit += LATE_THROW_EXTRA
        pool = 0
        plain = cands & ~trumps
        while plain:
            low = plain & -plain
            plain ^= low
            if popcount(low - 1) % 13 <= limit:
                pool |= low
    if not pool:
        return ACTION_PASS
    return ACTION_ATTACK | cheapest(pool, trumps) << 3


@compiled
def normal_action(s: np.ndarray, r: np.ndarray, seat: int, legal: np.ndarray, n: int) -> int:
    """policy.normal_action among `legal[:n]`."""
    if s[TABLE_N] == 0:
        action = lead(s, r, seat)
    elif seat == s[DEFENDER]:
        action = defend_choice(s, r, seat, legal, n)
    else:
        action = throw_in(s, seat)
    for i in range(n):
        if legal[i] == action:
            return action
    if action == ACTION_PASS:
        for i in range(n):
            if legal[i] & 7 != ACTION_PASS:
                return legal[i]
    return legal[0]
