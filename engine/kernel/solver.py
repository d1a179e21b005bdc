"""`hard`'s endgame search in numba's subset: the kernel's copy of `LeanSolver` and
`HorizonSolver` (engine/ai/search.py, on the baseline's `Solver`).

Alpha-beta over the driver's turn order with a transposition table of value bounds, the moves
below the root cards first (plain, then trump, then a take or a pass: `cards_first`), a position
met again on the line scored as a draw. With a depth, a round that starts that deep is the
learned estimate's (and `CUT` says one was). The clock (clock.py's cycle counter, where it is
read) and the node cap are checked every 64 nodes, as the Python solver checks them.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.typed import Dict

from engine.ai.baseline import MAX_LINE
from engine.kernel.clock import past
from engine.kernel.jit import compiled
from engine.kernel.layout import (
    ACTION_PASS,
    ACTION_TAKE,
    ACTIVE,
    ATTACK_LIMIT,
    ATTACKS,
    DEFENCES,
    DEFENDER,
    DURAK,
    HANDS,
    IS_OVER,
    PASSES,
    ROUND_LIMIT,
    ROUND_STARTER,
    SHOWED_TRUMP,
    TABLE_N,
    TAKING,
    TRUMP,
)
from engine.kernel.play import (
    MAX_ACTIONS,
    SUIT_CARDS,
    apply,
    fire,
    first_to_ask,
    highest_bit,
    legal_actions,
)
from engine.kernel.search import estimate

# Slots of the control array a search shares with its caller.
NODES, MAX_NODES, OUT, CUT, DEPTH, SEAT, DEADLINE = range(7)
CHECK_MASK = 63
KEY = types.UniTuple(types.int64, 9)
BOUNDS = types.UniTuple(types.float64, 2)


@compiled
def settle(g: np.ndarray, r: np.ndarray) -> int:
    """baseline.settle: fire deadlines until someone is asked; that seat (-1: the game is over)."""
    while not g[IS_OVER]:
        seat = first_to_ask(g, r)
        if seat >= 0:
            return seat
        fire(g, r)
    return -1


@compiled
def position(g: np.ndarray) -> tuple[int, int, int, int, int, int, int, int, int]:
    """baseline._position, packed: the hands, the table, and who may do what."""
    k = g[TABLE_N]
    attacks = k << 36
    defences = 0
    for i in range(k):
        attacks |= g[ATTACKS + i] << 6 * i
        defences |= (g[DEFENCES + i] + 1) << 6 * i
    roles = (g[ROUND_STARTER] | g[DEFENDER] << 3 | g[TAKING] << 6 | g[PASSES] << 7
             | g[ATTACK_LIMIT] << 13 | g[ROUND_LIMIT] << 17 | g[ACTIVE] << 21
             | g[SHOWED_TRUMP] << 27)
    return (g[HANDS], g[HANDS + 1], g[HANDS + 2], g[HANDS + 3], g[HANDS + 4], g[HANDS + 5],
            attacks, defences, roles)


@compiled
def cards_first(g: np.ndarray, legal: np.ndarray, n: int, out: np.ndarray) -> None:
    """search.cards_first into `out`: plain cards, then trumps, each in the engine's order, then
    a take or a pass."""
    trumps = SUIT_CARDS[g[TRUMP]]
    at = 0
    for group in range(3):
        for i in range(n):
            kind = legal[i] & 7
            plays = kind not in (ACTION_TAKE, ACTION_PASS)
            if group == (trumps >> (legal[i] >> 3 & 63) & 1 if plays else 2):
                out[at] = legal[i]
                at += 1


@compiled
def value(g: np.ndarray, r: np.ndarray, ctl: np.ndarray, table: Dict, line: Dict,
          weights: np.ndarray, alpha: float, beta: float, states: np.ndarray,
          moves: np.ndarray) -> float:
    """Solver.value (HorizonSolver's with a depth): `g`'s value for the searching seat.
    `states` and `moves` hold a row for each ply of the line (no allocation a node): this
    node's children go in row len(line), its moves in two rows of `moves` there."""
    seat = ctl[SEAT]
    s = settle(g, r)
    if g[IS_OVER]:
        durak = g[DURAK]
        return 0.5 if durak < 0 else 0.0 if durak == seat else 1.0
    if ctl[DEPTH] >= 0 and len(line) >= ctl[DEPTH] and g[TABLE_N] == 0:
        ctl[CUT] = 1
        return estimate(g, r, seat, highest_bit(g[ACTIVE] & ~(1 << seat)), weights)
    key = position(g)
    if key in line or len(line) > MAX_LINE:
        return 0.5
    lo, hi = 0.0, 1.0
    if key in table:
        lo, hi = table[key]
    if lo >= beta or lo == hi:
        return lo
    if hi <= alpha:
        return hi
    alpha, beta = max(alpha, lo), min(beta, hi)
    ctl[NODES] += 1
    if not ctl[NODES] & CHECK_MASK and (ctl[NODES] > ctl[MAX_NODES] or past(ctl[DEADLINE])):
        ctl[OUT] = 1
        return 0.5
    ply = len(line)
    line[key] = True
    legal = moves[2 * ply]
    ordered = moves[2 * ply + 1]
    n = legal_actions(g, r, s, legal)
    cards_first(g, legal, n, ordered)
    mine = s == seat
    best = 0.0 if mine else 1.0
    window_lo, window_hi = alpha, beta   # the bounds stored are the window as it came in
    child = states[ply]
    for i in range(n):
        child[:] = g
        apply(child, r, s, ordered[i])
        v = value(child, r, ctl, table, line, weights, alpha, beta, states, moves)
        if ctl[OUT]:
            line.pop(key)
            return 0.5
        if mine:
            if v > best:
                best = v
                alpha = max(alpha, v)
        elif v < best:
            best = v
            beta = min(beta, v)
        if alpha >= beta:
            break
    line.pop(key)
    if best <= window_lo:
        table[key] = (lo, best)
    elif best >= window_hi:
        table[key] = (best, hi)
    else:
        table[key] = (best, best)
    return best


@compiled
def best_move(g: np.ndarray, r: np.ndarray, seat: int, cands: np.ndarray, depth: int,
              max_nodes: int, deadline: int, weights: np.ndarray, ctl: np.ndarray
              ) -> tuple[int, float]:
    """Solver.best over `cands` (in their order: `normal`'s first): the index of the best and
    its value. The search runs out after `max_nodes` nodes or at `deadline` (clock.py's cycle
    counter; NO_DEADLINE: none), read every 64 nodes. `ctl` tells the nodes searched, and
    whether the search ran out (OUT: no answer) or the depth cut a line (CUT)."""
    ctl[DEADLINE] = deadline
    ctl[NODES] = 0
    ctl[MAX_NODES] = max_nodes
    ctl[OUT] = 0
    ctl[CUT] = 0
    ctl[DEPTH] = depth
    ctl[SEAT] = seat
    table = Dict.empty(key_type=KEY, value_type=BOUNDS)
    line = Dict.empty(key_type=KEY, value_type=types.boolean)
    plies = MAX_LINE + 3   # a line holds at most MAX_LINE + 1 positions; the root's row too
    states = np.empty((plies, len(g)), dtype=np.int64)
    moves = np.empty((2 * plies, MAX_ACTIONS), dtype=np.int64)
    best_i, best_v = 0, -1.0
    child = states[plies - 1]
    for i in range(len(cands)):
        child[:] = g
        apply(child, r, seat, cands[i])
        v = value(child, r, ctl, table, line, weights, max(best_v, 0.0), 1.0, states, moves)
        if ctl[OUT]:
            return -1, 0.0
        if v > best_v:
            best_i, best_v = i, v
            if v >= 1.0:
                break
    return best_i, best_v
