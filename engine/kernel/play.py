"""The rules' transitions in numba's subset: the kernel's copy of `engine/game.py`.

Each function mirrors the engine's function of the same name (`_put_attack`, `_defend`,
`_close_round`, ...) on the state array of `layout.py`; `engine/game.py` stays the authority and
tests/ai/test_kernel_diff.py plays both side by side. Clocks are flags: which deadline fires
next is all a search needs (a running turn fires a time-out, else the round closes, R10.2, R6.3).
"""

from __future__ import annotations

import numpy as np

from engine.cards import RANK_CARDS as _RANK_CARDS
from engine.cards import SUIT_CARDS as _SUIT_CARDS
from engine.cards import deck_mask
from engine.game import BEATERS as _BEATERS
from engine.kernel.jit import compiled
from engine.kernel.layout import (
    ACTION_ATTACK,
    ACTION_DEFEND,
    ACTION_PASS,
    ACTION_SHOW_TRUMP,
    ACTION_TAKE,
    ACTION_TRANSFER,
    ACTIVE,
    ATTACK_LIMIT,
    ATTACKER,
    ATTACKS,
    CLOSE_RUNS,
    DEFENCES,
    DEFENDER,
    DISCARD,
    DURAK,
    FIRST_ROUND,
    HANDS,
    IS_OVER,
    KNOWN,
    NEXT_SEAT,
    OUT_N,
    OUT_ORDER,
    PASSES,
    R_DECK,
    R_FIRST_LIMIT,
    R_MAX_ATTACK,
    R_NO_DRAWS,
    R_PLAYERS,
    R_SHOW_TRUMP,
    R_THROW_IN_ALL,
    R_TRANSFER,
    ROUND_LIMIT,
    ROUND_STARTER,
    SHOWED_TRUMP,
    STOCK,
    STOCK_N,
    TABLE_N,
    TABLE_RANKS,
    TAKING,
    THROWERS,
    TIMEOUTS,
    TRUMP,
    TRUMP_CARD,
    TURN_RUNS,
    UNBEATEN,
    WINDOW_RUNS,
)
from engine.rules import HAND_SIZE

RANK_CARDS = np.array(_RANK_CARDS, dtype=np.int64)
SUIT_CARDS = np.array(_SUIT_CARDS, dtype=np.int64)
BEATERS = np.array(_BEATERS, dtype=np.int64)   # [trump, card]
DECKS = np.array([deck_mask(24), deck_mask(36), deck_mask(52)], dtype=np.int64)
MAX_ACTIONS = 64   # more than any seat ever has (6 attacks x 6 beaters + take + 12 transfers)


@compiled
def popcount(x: int) -> int:
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    x = x + (x >> 8)
    x = x + (x >> 16)
    x = x + (x >> 32)
    return x & 0x7F


@compiled
def lowest_bit(x: int) -> int:
    """The index of the lowest set bit of a non-zero mask."""
    return popcount((x & -x) - 1)


@compiled
def highest_bit(x: int) -> int:
    """bit_length - 1 of a non-zero mask."""
    i = -1
    while x:
        x >>= 1
        i += 1
    return i


@compiled
def deck_of(r: np.ndarray) -> int:
    d = r[R_DECK]
    return DECKS[0] if d == 24 else DECKS[1] if d == 36 else DECKS[2]


# ---- seating (Game._update_seating, _update_throwers) ---------------------------------------

@compiled
def update_throwers(s: np.ndarray, r: np.ndarray) -> None:
    """R5.2: everyone but the defender, or (option) his neighbours; with 3 that is all."""
    d = s[DEFENDER]
    active = s[ACTIVE]
    if r[R_THROW_IN_ALL] or popcount(active) <= 3:
        s[THROWERS] = active & ~(1 << d)
        return
    before = -1
    last = -1
    for seat in range(r[R_PLAYERS]):
        if active >> seat & 1:
            last = seat
            if seat < d:
                before = seat
    if before < 0:
        before = last
    s[THROWERS] = ((1 << before) | (1 << s[NEXT_SEAT + d])) & ~(1 << d)


@compiled
def update_seating(s: np.ndarray, r: np.ndarray) -> None:
    n = r[R_PLAYERS]
    active = s[ACTIVE]
    seats = active if active else (1 << n) - 1
    first = lowest_bit(seats)
    for seat in range(n):
        nxt = first
        for t in range(seat + 1, n):
            if seats >> t & 1:
                nxt = t
                break
        s[NEXT_SEAT + seat] = nxt
    update_throwers(s, r)


# ---- who may do what (Game._thrower_seats, _transfers) --------------------------------------

@compiled
def may_throw_in(s: np.ndarray) -> int:
    if s[TABLE_N] == 0:
        return 0
    return s[THROWERS] if s[TABLE_N] < s[ATTACK_LIMIT] else 0


@compiled
def may_pass(s: np.ndarray) -> int:
    if s[TABLE_N] == 0:
        return 0
    return s[THROWERS] & ~s[PASSES]


@compiled
def transfers(s: np.ndarray, r: np.ndarray, seat: int) -> tuple[int, int]:
    """R9.1-R9.5, R9.7: the cards `seat` may transfer with, by laying one and by showing one."""
    if not r[R_TRANSFER]:
        return 0, 0
    k = s[TABLE_N]
    receiver = s[NEXT_SEAT + seat]
    if s[UNBEATEN] != k or s[TABLE_RANKS] != RANK_CARDS[s[ATTACKS]] or receiver == seat:
        return 0, 0
    cards = s[HANDS + seat] & s[TABLE_RANKS]
    room = popcount(s[HANDS + receiver])
    by_card = 0 if k + 1 > s[ROUND_LIMIT] or room < k + 1 else cards
    shown = 0
    if r[R_SHOW_TRUMP] and not s[SHOWED_TRUMP] >> seat & 1 and room >= k:
        shown = cards & SUIT_CARDS[s[TRUMP]]
    return by_card, shown


@compiled
def _add_cards(out: np.ndarray, n: int, cards: int, kind: int, target: int) -> int:
    while cards:
        low = cards & -cards
        out[n] = kind | popcount(low - 1) << 3 | target << 9
        n += 1
        cards ^= low
    return n


@compiled
def legal_actions(s: np.ndarray, r: np.ndarray, seat: int, out: np.ndarray) -> int:
    """Game.legal_actions in the engine's order, as action codes in `out`; how many."""
    if s[IS_OVER] or seat < 0 or not s[ACTIVE] >> seat & 1:
        return 0
    hand = s[HANDS + seat]
    k = s[TABLE_N]
    if k == 0:
        return _add_cards(out, 0, hand, ACTION_ATTACK, 0) if seat == s[ATTACKER] else 0
    if seat == s[DEFENDER]:
        n = 0
        if s[UNBEATEN] and not s[TAKING]:
            beaters = BEATERS[s[TRUMP]]
            for t in range(k):
                if s[DEFENCES + t] < 0:
                    n = _add_cards(out, n, hand & beaters[s[ATTACKS + t]], ACTION_DEFEND, t)
            out[n] = ACTION_TAKE
            n += 1
            if r[R_TRANSFER] and s[UNBEATEN] == k:
                by_card, shown = transfers(s, r, seat)
                n = _add_cards(out, n, by_card, ACTION_TRANSFER, 0)
                n = _add_cards(out, n, shown, ACTION_SHOW_TRUMP, 0)
        return n
    if not s[THROWERS] >> seat & 1:
        return 0
    n = 0
    cards = hand & s[TABLE_RANKS]
    if cards and k < s[ATTACK_LIMIT]:
        n = _add_cards(out, 0, cards, ACTION_ATTACK, 0)
    if not s[PASSES] >> seat & 1:
        out[n] = ACTION_PASS
        n += 1
    return n


@compiled
def first_to_ask(s: np.ndarray, r: np.ndarray) -> int:
    """engine.ai.driver.seats_to_ask's first seat, -1 when nobody is asked (a deadline fires)."""
    if s[IS_OVER]:
        return -1
    if s[TABLE_N] == 0:
        return s[ATTACKER]
    if s[UNBEATEN] and not s[TAKING]:
        return s[DEFENDER]
    if s[TABLE_N] >= s[ATTACK_LIMIT]:
        return -1
    n = r[R_PLAYERS]
    ranks = s[TABLE_RANKS]
    willing = s[THROWERS] & ~s[PASSES]
    seat = s[ROUND_STARTER]
    for _ in range(n):
        if willing >> seat & 1 and s[HANDS + seat] & ranks:
            return seat
        seat = seat + 1 if seat + 1 < n else 0
    return -1


# ---- transitions -------------------------------------------------------------------------

@compiled
def maybe_leave(s: np.ndarray, r: np.ndarray, seat: int) -> None:
    """R8.1: with the stock empty, a player without cards is safe and leaves at once."""
    if s[STOCK_N] == 0 and s[HANDS + seat] == 0 and s[ACTIVE] >> seat & 1:
        s[ACTIVE] &= ~(1 << seat)
        s[OUT_ORDER + s[OUT_N]] = seat
        s[OUT_N] += 1
        update_seating(s, r)


@compiled
def check_window(s: np.ndarray) -> None:
    """R6.3: once nobody who may throw in is left, the round closes after the grace."""
    willing = may_throw_in(s) & may_pass(s)
    ranks = s[TABLE_RANKS]
    for seat in range(6):
        if willing >> seat & 1 and s[HANDS + seat] & ranks:
            s[CLOSE_RUNS] = 0
            return
    s[CLOSE_RUNS] = 1


@compiled
def open_window(s: np.ndarray) -> None:
    s[TURN_RUNS] = 0
    s[WINDOW_RUNS] = 1
    s[CLOSE_RUNS] = 0
    check_window(s)


@compiled
def put_attack(s: np.ndarray, r: np.ndarray, seat: int, ci: int) -> None:
    bit = 1 << ci
    lead = s[TABLE_N] == 0
    reopens = s[UNBEATEN] == 0 and not s[TAKING]
    s[HANDS + seat] ^= bit
    s[KNOWN + seat] &= ~bit
    k = s[TABLE_N]
    s[ATTACKS + k] = ci
    s[DEFENCES + k] = -1
    s[TABLE_N] = k + 1
    s[UNBEATEN] += 1
    if not s[TABLE_RANKS] & bit:
        s[TABLE_RANKS] |= RANK_CARDS[ci]
        s[PASSES] = 0   # R6.3: a new rank cancels passes
    if s[STOCK_N] == 0 and s[HANDS + seat] == 0:
        maybe_leave(s, r, seat)
    if lead or reopens:
        s[TURN_RUNS] = 1
        s[WINDOW_RUNS] = 0
        s[CLOSE_RUNS] = 0
    elif s[TAKING]:
        s[WINDOW_RUNS] = 1   # R6.3: renews the window
        s[CLOSE_RUNS] = 0
        check_window(s)


@compiled
def defend(s: np.ndarray, r: np.ndarray, seat: int, ci: int, target: int) -> None:
    bit = 1 << ci
    s[HANDS + seat] ^= bit
    s[KNOWN + seat] &= ~bit
    s[DEFENCES + target] = ci
    s[UNBEATEN] -= 1
    if not s[TABLE_RANKS] & bit:
        s[TABLE_RANKS] |= RANK_CARDS[ci]
        s[PASSES] = 0
    if s[STOCK_N] == 0 and s[HANDS + seat] == 0:
        maybe_leave(s, r, seat)
    if s[UNBEATEN]:
        s[TURN_RUNS] = 1
    else:
        open_window(s)


@compiled
def declare_take(s: np.ndarray) -> None:
    s[TAKING] = 1
    s[PASSES] = 0   # R6.3: a take cancels passes
    open_window(s)


@compiled
def transfer(s: np.ndarray, r: np.ndarray, seat: int, ci: int, show: bool) -> None:
    receiver = s[NEXT_SEAT + seat]
    bit = 1 << ci
    if show:
        s[SHOWED_TRUMP] |= 1 << seat
        s[KNOWN + seat] |= bit
    else:
        s[HANDS + seat] ^= bit
        s[KNOWN + seat] &= ~bit
        k = s[TABLE_N]
        s[ATTACKS + k] = ci
        s[DEFENCES + k] = -1
        s[TABLE_N] = k + 1
        s[UNBEATEN] += 1
    s[ATTACKER] = seat   # R9.1: never attacker and defender at once
    s[DEFENDER] = receiver
    s[ATTACK_LIMIT] = min(s[ROUND_LIMIT], popcount(s[HANDS + receiver]))   # R9.4
    s[PASSES] = 0
    s[TURN_RUNS] = 1
    update_throwers(s, r)
    maybe_leave(s, r, seat)


@compiled
def start_round(s: np.ndarray, r: np.ndarray, attacker: int) -> None:
    s[ROUND_STARTER] = attacker
    s[ATTACKER] = attacker
    d = s[NEXT_SEAT + attacker]
    s[DEFENDER] = d
    limit = r[R_MAX_ATTACK]
    if s[FIRST_ROUND]:
        limit = min(limit, r[R_FIRST_LIMIT])
    s[ROUND_LIMIT] = limit
    s[ATTACK_LIMIT] = min(limit, popcount(s[HANDS + d]))
    s[TURN_RUNS] = 1
    s[WINDOW_RUNS] = 0
    s[CLOSE_RUNS] = 0
    update_throwers(s, r)


@compiled
def clear_table(s: np.ndarray) -> None:
    """The table to the discard (R6.4) or into the taker's hand, seen by all (R11.1)."""
    d = s[DEFENDER]
    table = 0
    for i in range(s[TABLE_N]):
        table |= 1 << s[ATTACKS + i]
        if s[DEFENCES + i] >= 0:
            table |= 1 << s[DEFENCES + i]
    if s[TAKING]:
        s[HANDS + d] |= table
        s[KNOWN + d] |= table
    else:
        s[DISCARD] |= table
    for i in range(6):
        s[ATTACKS + i] = 0
        s[DEFENCES + i] = -1
    s[TABLE_N] = 0
    s[UNBEATEN] = 0
    s[TABLE_RANKS] = 0
    s[PASSES] = 0
    s[TAKING] = 0
    s[TURN_RUNS] = 0
    s[WINDOW_RUNS] = 0
    s[CLOSE_RUNS] = 0


@compiled
def drawing_order(s: np.ndarray, r: np.ndarray) -> tuple[int, int]:
    """R7.1 / R9.6: the round's first attacker, the others clockwise, the defender last; as
    (seats packed four bits each, first lowest; how many)."""
    n = r[R_PLAYERS]
    active = s[ACTIVE]
    d = s[DEFENDER]
    order = 0
    count = 0
    seat = s[ROUND_STARTER]
    for _ in range(n):
        if seat != d and active >> seat & 1:
            order |= seat << 4 * count
            count += 1
        seat = seat + 1 if seat + 1 < n else 0
    if active >> d & 1:
        order |= d << 4 * count
        count += 1
    return order, count


@compiled
def draw(s: np.ndarray, order: int, count: int) -> None:
    """R7: up to six cards each, in `order`, while the stock lasts."""
    trump_i = s[TRUMP_CARD]
    for i in range(count):
        seat = order >> 4 * i & 15
        need = HAND_SIZE - popcount(s[HANDS + seat])
        if need <= 0:
            continue
        left = s[STOCK_N]
        take = min(need, left)
        hand = s[HANDS + seat]
        drew_trump = False
        for j in range(left - take, left):
            ci = s[STOCK + j]
            hand |= 1 << ci
            drew_trump |= ci == trump_i
            s[STOCK + j] = 0
        s[HANDS + seat] = hand
        s[STOCK_N] = left - take
        if trump_i >= 0 and drew_trump:
            s[KNOWN + seat] |= 1 << trump_i   # all saw who drew the face-up trump
            s[TRUMP_CARD] = -1
            trump_i = -1
        if s[STOCK_N] == 0:
            return


@compiled
def finish(s: np.ndarray, r: np.ndarray, last_defender: int) -> None:
    """R8.2 / R8.3: the last one holding cards is the durak; nobody left is a draw."""
    s[IS_OVER] = 1
    if s[ACTIVE]:
        s[DURAK] = highest_bit(s[ACTIVE])
    elif r[R_NO_DRAWS]:
        s[DURAK] = last_defender
        found = False
        for i in range(s[OUT_N]):
            if found:
                s[OUT_ORDER + i - 1] = s[OUT_ORDER + i]
            elif s[OUT_ORDER + i] == last_defender:
                found = True
        if found:
            s[OUT_N] -= 1
            s[OUT_ORDER + s[OUT_N]] = 0
    else:
        s[DURAK] = -1
    s[TURN_RUNS] = 0
    s[WINDOW_RUNS] = 0
    s[CLOSE_RUNS] = 0


@compiled
def close_round(s: np.ndarray, r: np.ndarray) -> None:
    """R6.4 / R6.2: the table goes to the discard or the taker; then R7, R8 and R6.5."""
    defender = s[DEFENDER]
    taken = s[TAKING]
    clear_table(s)
    order, count = drawing_order(s, r)
    if s[STOCK_N]:
        draw(s, order, count)
    if s[STOCK_N] == 0:
        for i in range(count):
            maybe_leave(s, r, order >> 4 * i & 15)
    s[FIRST_ROUND] = 0
    if popcount(s[ACTIVE]) <= 1:
        finish(s, r, defender)
        return
    keeps_lead = not taken and s[ACTIVE] >> defender & 1
    start_round(s, r, defender if keeps_lead else s[NEXT_SEAT + defender])


@compiled
def covers(hand: int, needs: np.ndarray, count: int) -> bool:
    """Whether each mask of `needs[:count]` can get a card of its own from `hand` (a matching):
    the sets of hand cards used so far, as subsets of the hand's (at most six) cards."""
    cards = np.empty(6, dtype=np.int64)
    k = 0
    for c in range(52):
        if hand >> c & 1:
            cards[k] = c
            k += 1
    reach = np.zeros(64, dtype=np.bool_)
    reach[0] = True
    for i in range(count):
        nxt = np.zeros(64, dtype=np.bool_)
        for used in range(1 << k):
            if not reach[used]:
                continue
            for j in range(k):
                if not used >> j & 1 and needs[i] >> cards[j] & 1:
                    nxt[used | 1 << j] = True
        reach = nxt
    return bool(reach[:1 << k].any())


@compiled
def draw_possible(s: np.ndarray, r: np.ndarray) -> bool:
    d = s[DEFENDER]
    if r[R_NO_DRAWS] or s[TAKING] or s[ACTIVE] != 1 << d:
        return False
    hand = s[HANDS + d]
    if popcount(hand) != s[UNBEATEN]:
        return False
    needs = np.empty(6, dtype=np.int64)
    count = 0
    beaters = BEATERS[s[TRUMP]]
    for i in range(s[TABLE_N]):
        if s[DEFENCES + i] < 0:
            needs[count] = beaters[s[ATTACKS + i]]
            count += 1
    return covers(hand, needs, count)


@compiled
def end_if_decided(s: np.ndarray, r: np.ndarray) -> None:
    """R8.5: decided unless the defender can still end the round with his last cards."""
    active = s[ACTIVE]
    if s[STOCK_N] or s[IS_OVER] or active & (active - 1) or draw_possible(s, r):
        return
    finish(s, r, s[DEFENDER])


@compiled
def apply(s: np.ndarray, r: np.ndarray, seat: int, code: int) -> None:
    """Game.apply of a legal move (the caller took it from legal_actions), not `auto`."""
    kind = code & 7
    ci = code >> 3 & 63
    if kind == ACTION_ATTACK:
        put_attack(s, r, seat, ci)
    elif kind == ACTION_DEFEND:
        defend(s, r, seat, ci, code >> 9)
    elif kind == ACTION_TRANSFER:
        transfer(s, r, seat, ci, False)
    elif kind == ACTION_SHOW_TRUMP:
        transfer(s, r, seat, ci, True)
    elif kind == ACTION_TAKE:
        declare_take(s)
    else:
        s[PASSES] |= 1 << seat
        if s[WINDOW_RUNS]:
            check_window(s)
    active = s[ACTIVE]
    if s[STOCK_N] == 0 and not active & (active - 1):
        end_if_decided(s, r)
    s[TIMEOUTS + seat] = 0


@compiled
def lowest_card(hand: int, trump: int) -> int:
    """R10.2's forced lead: lowest non-trump, else lowest trump; ties by suit order (R3.2)."""
    plain = hand & ~SUIT_CARDS[trump]
    pool = plain if plain else hand
    for rank in range(13):
        for suit in range(4):
            if pool >> (suit * 13 + rank) & 1:
                return suit * 13 + rank
    return -1


@compiled
def fire(s: np.ndarray, r: np.ndarray) -> None:
    """Game._fire of the deadline due next: a time-out while a turn runs, else the round
    closes."""
    if s[TURN_RUNS]:
        k = s[TABLE_N]
        seat = s[DEFENDER] if k else s[ATTACKER]
        s[TIMEOUTS + seat] += 1
        if k:
            declare_take(s)
        else:
            put_attack(s, r, seat, lowest_card(s[HANDS + seat], s[TRUMP]))
        end_if_decided(s, r)
    else:
        close_round(s, r)
