"""`hard`'s race in numba's subset: the dealer, the short playouts, the estimate, the race.

Each mirrors its Python original: `deal` is `engine.sampling.dealer`'s deal (the same weighted
deals: Efraimidis and Spirakis' keys), `playout` is `engine.ai.baseline.playout` with
`engine.ai.search`'s stop after `rounds` rounds heads-up, `estimate` is
`engine.ai.evaluation.estimate` or, at the stages where it beat that, the network of
`engine/kernel/network.py` (the packed `model` every caller passes), `race` is
`BaselinePlayer._race` over many deals in one call (the paired differences kept as running sums,
so a drop costs no pass over the deals). With a replay of the last rounds (`likelihood`, at most
two), a deal is kept as likely as those rounds' moves are on it, as
`engine.ai.replay.likely_deal` keeps it.
"""

from __future__ import annotations

import math

import numpy as np

from engine.ai.baseline import MIN_DEALS_TO_DROP, PLAYOUT_STEPS, SAME_AFTER
from engine.ai.replay import TRIES
from engine.cards import DECK_LOWEST_RANK
from engine.kernel.clock import past
from engine.kernel.jit import compiled
from engine.kernel.layout import (
    ACTIVE,
    ATTACKER,
    DURAK,
    HANDS,
    IS_OVER,
    R_DECK,
    R_PLAYERS,
    R_TRANSFER,
    STOCK,
    STOCK_N,
    TABLE_N,
    TRUMP,
    TRUMP_CARD,
)
from engine.kernel.network import (
    B1,
    B2,
    B3,
    DECK_INPUTS,
    HIDDEN,
    INPUTS,
    LOGISTIC,
    MINE,
    STOCK_CARDS,
    STOCK_SIZE,
    TERM_INPUTS,
    TERMS,
    THEIRS,
    TRANSFER_INPUT,
    TRUMP_UNDER,
    USE,
    W1,
    W2,
    W3,
)
from engine.kernel.normal import normal_action
from engine.kernel.play import (
    BEATERS,
    MAX_ACTIONS,
    SUIT_CARDS,
    apply,
    fire,
    first_to_ask,
    legal_actions,
    popcount,
)

LOW_24, LOW_36, LOW_52 = (DECK_LOWEST_RANK[d] - 2 for d in (24, 36, 52))
STATUS_DEALS, STATUS_DONE = 0, 1   # the race's status array: deals so far, whether it is over


@compiled
def _hand_terms(hand: int, against: int, beaters: np.ndarray, trump_mask: int, low: int
                ) -> tuple[float, float, float, float, float, float, float, float]:
    """evaluation._hand: one hand's terms."""
    span = 12 - low
    trumps = trump_strength = plain = 0.0
    low_cards = unbeatable = 0
    ranks = 0
    rest = hand
    while rest:
        bit = rest & -rest
        rest ^= bit
        c = popcount(bit - 1)
        rank = c % 13
        ranks |= 1 << rank
        if not beaters[c] & against:
            unbeatable += 1
        strength = (rank - low) / span
        if trump_mask & bit:
            trumps += 1
            trump_strength += strength
        else:
            plain += strength
            if strength < 0.34:
                low_cards += 1
    n = popcount(hand)
    return (n / 6, n * n / 36, trumps, trump_strength, plain / 6, low_cards / 6,
            popcount(ranks) / 6, unbeatable / 6)


@compiled
def features(s: np.ndarray, r: np.ndarray, seat: int, other: int, x: np.ndarray) -> None:
    """The network's inputs (engine/kernel/network.py) of `s` from `seat`'s side into `x`; the
    logistic estimate's terms among them."""
    x[:] = 0.0
    d = r[R_DECK]
    low = LOW_24 if d == 24 else LOW_36 if d == 36 else LOW_52
    trump = s[TRUMP]
    beaters = BEATERS[trump]
    mine, theirs = s[HANDS + seat], s[HANDS + other]
    a = _hand_terms(mine, theirs, beaters, SUIT_CARDS[trump], low)
    b = _hand_terms(theirs, mine, beaters, SUIT_CARDS[trump], low)
    for i in range(TERMS - 1):
        x[TERM_INPUTS + i] = a[i] - b[i]
    attacker = s[ATTACKER]
    x[TERM_INPUTS + TERMS - 1] = 1.0 if attacker == seat else -1.0 if attacker == other else 0.0
    stock = 0
    for i in range(s[STOCK_N]):
        stock |= 1 << s[STOCK + i]
    for at, cards in ((MINE, mine), (THEIRS, theirs), (STOCK_CARDS, stock)):
        rest = cards
        while rest:
            bit = rest & -rest
            rest ^= bit
            c = popcount(bit - 1)
            suit = c // 13
            first = 0 if suit == trump else suit + 1 if suit < trump else suit
            x[at + first * 13 + c % 13] = 1.0
    x[STOCK_SIZE] = s[STOCK_N] / 24
    x[TRUMP_UNDER] = 1.0 if s[TRUMP_CARD] >= 0 else 0.0
    x[DECK_INPUTS + (0 if d == 24 else 1 if d == 36 else 2)] = 1.0
    x[TRANSFER_INPUT] = r[R_TRANSFER]


@compiled
def network_value(model: np.ndarray, x: np.ndarray) -> float:
    """network.forward of one row, the first layer summed over the inputs that are not 0."""
    h1 = model[B1:B1 + HIDDEN].copy()
    for i in range(INPUTS):
        v = x[i]
        if v != 0.0:
            row = W1 + i * HIDDEN
            for j in range(HIDDEN):
                h1[j] += v * model[row + j]
    h2 = model[B2:B2 + HIDDEN].copy()
    for j in range(HIDDEN):   # row by row: the inner loop runs over contiguous weights
        v = h1[j]
        if v > 0.0:
            row = W2 + j * HIDDEN
            for k in range(HIDDEN):
                h2[k] += v * model[row + k]
    z = model[B3]
    for k in range(HIDDEN):
        if h2[k] > 0.0:
            z += h2[k] * model[W3 + k]
    z = min(30.0, max(-30.0, z))
    return 1.0 / (1.0 + math.exp(-z))


@compiled
def estimate(s: np.ndarray, r: np.ndarray, seat: int, other: int, model: np.ndarray) -> float:
    """The chance that `seat` is not the durak, heads-up: the network at the stages `model`
    uses it at (network.py), else evaluation.estimate."""
    stock = s[STOCK_N]
    stage = 2 if stock == 0 else 1 if stock <= 6 else 0
    if model[USE + stage] > 0.0:
        x = np.empty(INPUTS)
        features(s, r, seat, other, x)
        return network_value(model, x)
    d = r[R_DECK]
    low = LOW_24 if d == 24 else LOW_36 if d == 36 else LOW_52
    trump = s[TRUMP]
    beaters = BEATERS[trump]
    mine, theirs = s[HANDS + seat], s[HANDS + other]
    a = _hand_terms(mine, theirs, beaters, SUIT_CARDS[trump], low)
    b = _hand_terms(theirs, mine, beaters, SUIT_CARDS[trump], low)
    lead = 1.0 if s[ATTACKER] == seat else -1.0 if s[ATTACKER] == other else 0.0
    w = LOGISTIC + TERMS * stage
    z = (model[w] * (a[0] - b[0]) + model[w + 1] * (a[1] - b[1]) + model[w + 2] * (a[2] - b[2])
         + model[w + 3] * (a[3] - b[3]) + model[w + 4] * (a[4] - b[4])
         + model[w + 5] * (a[5] - b[5]) + model[w + 6] * (a[6] - b[6])
         + model[w + 7] * (a[7] - b[7]) + model[w + 8] * lead)
    if z < -30:
        return 0.0
    return 1.0 / (1.0 + math.exp(-z))


@compiled
def playout(s: np.ndarray, r: np.ndarray, seat: int, rounds: int, model: np.ndarray,
            legal: np.ndarray) -> float:
    """baseline.playout (`normal` everywhere, in place) with search's stop: heads-up, once
    `rounds` more rounds have started, the estimate (rounds < 0: play to the end)."""
    started = -1
    for _ in range(PLAYOUT_STEPS):
        if s[IS_OVER]:
            durak = s[DURAK]
            return 0.5 if durak < 0 else 0.0 if durak == seat else 1.0
        active = s[ACTIVE]
        if not active >> seat & 1 and active & (active - 1):
            return 1.0   # out of cards while two others still play: safe
        if rounds >= 0 and s[TABLE_N] == 0:
            started += 1
            if started >= rounds and popcount(active) == 2:
                other = 0
                for t in range(6):
                    if active >> t & 1 and t != seat:
                        other = t
                return estimate(s, r, seat, other, model)
        who = first_to_ask(s, r)
        if who < 0:
            fire(s, r)
            continue
        n = legal_actions(s, r, who, legal)
        action = legal[0] if n == 1 else normal_action(s, r, who, legal, n)
        apply(s, r, who, action)
    return 0.5   # cut short: cards went round without end


@compiled
def _weigh_forward(cards: np.ndarray, pos: int, need: int, weights: np.ndarray) -> None:
    """sampling._weigh_forward: `need` of cards[pos:] first, each chosen in proportion to its
    weight (the largest u^(1/w)); the others keep their shuffled order."""
    size = len(cards) - pos
    keys = np.empty(size)
    for i in range(size):
        keys[i] = np.random.random() ** (1.0 / weights[cards[pos + i]])
    order = np.argsort(-keys)
    tail = cards[pos:].copy()
    chosen = np.zeros(size, dtype=np.bool_)
    for i in range(need):
        cards[pos + i] = tail[order[i]]
        chosen[order[i]] = True
    at = pos + need
    for i in range(size):
        if not chosen[i]:
            cards[at] = tail[i]
            at += 1


@compiled
def deal(template: np.ndarray, r: np.ndarray, base: np.ndarray, needs: np.ndarray,
         weighted: np.ndarray, weights: np.ndarray, hidden: np.ndarray, bottom: int,
         out: np.ndarray) -> None:
    """sampling.dealer's deal into `out`: the hidden cards shuffled, each seat's needs dealt
    (by its weights where it has any), the rest into the stock above the face-up trump."""
    out[:] = template
    cards = hidden.copy()
    np.random.shuffle(cards)
    pos = 0
    for seat in range(r[R_PLAYERS]):
        need = needs[seat]
        if weighted[seat] and need:
            _weigh_forward(cards, pos, need, weights[seat])
        hand = base[seat]
        for i in range(pos, pos + need):
            hand |= 1 << cards[i]
        out[HANDS + seat] = hand
        pos += need
    n = 0
    if bottom >= 0:
        out[STOCK] = bottom
        n = 1
    for i in range(pos, len(cards)):
        out[STOCK + n] = cards[i]
        n += 1
    for i in range(n, 52):
        out[STOCK + i] = 0
    out[STOCK_N] = n


MOVE_SEAT, MOVE_CODE, MOVE_CHOSEN, MOVE_BACK = range(4)   # a replay's moves' columns
UNDO_REMOVE, UNDO_POOL, UNDO_COUNT = range(3)   # a replay's undo rows (racing.RoundSpec)


@compiled
def _replayed(start: np.ndarray, r: np.ndarray, hands: np.ndarray, moves: np.ndarray,
              back: int, slips: np.ndarray, seat: int, g: np.ndarray, legal: np.ndarray
              ) -> float:
    """The round `back` rounds ago played again from `start` with the other seats holding
    `hands`: the product over the moves another seat chose of its slip where `normal` would
    have chosen otherwise (replay.factor). The stock's cards are not read: no card is drawn
    within a round, and `normal` reads only its size."""
    g[:] = start
    for t in range(r[R_PLAYERS]):
        if t != seat:
            g[HANDS + t] = hands[t]
    p = 1.0
    for i in range(len(moves)):
        if moves[i, MOVE_BACK] != back:
            continue
        who, code = moves[i, MOVE_SEAT], moves[i, MOVE_CODE]
        if moves[i, MOVE_CHOSEN] and who != seat:
            k = legal_actions(g, r, who, legal)
            if k > 1 and normal_action(g, r, who, legal, k) != code:
                p *= slips[who]
        apply(g, r, who, code)
    return p


@compiled
def likelihood(starts: np.ndarray, r: np.ndarray, dealt: np.ndarray, played: np.ndarray,
               moves: np.ndarray, slips: np.ndarray, undo: np.ndarray, seat: int,
               threshold: float, g: np.ndarray, legal: np.ndarray) -> float:
    """replay.likely_deal's likelihood of the deal `dealt` over the last len(starts) rounds (at
    most two), read newest first and no further once it is at or under `threshold`.

    starts[back] is the start of the round `back` rounds ago on some deal of the view; on
    `dealt`, each other seat's hand there is his hand now with the cards he played since
    (played[back]: no card is drawn within a round) and, a round further back, without what
    the round's end gave him: what he took and the face-up trump card if he drew it
    (undo[UNDO_REMOVE]) and undo[UNDO_COUNT] cards drawn then, chosen at random among those he
    holds that nobody had seen (undo[UNDO_POOL]). A deal on which that cannot have happened
    keeps what the newer round said (replay.unlike_normal)."""
    hands = np.empty(6, dtype=np.int64)
    for t in range(r[R_PLAYERS]):
        hands[t] = dealt[HANDS + t] | played[0, t]
    p = _replayed(starts[0], r, hands, moves, 0, slips[0], seat, g, legal)
    if len(starts) < 2 or p <= threshold:
        return p
    for t in range(r[R_PLAYERS]):
        if t == seat:
            continue
        hand = hands[t] & ~undo[UNDO_REMOVE, t]
        pool = hand & undo[UNDO_POOL, t]
        left = popcount(pool)
        if left < undo[UNDO_COUNT, t]:
            return p
        for _ in range(undo[UNDO_COUNT, t]):
            skip = np.random.randint(left)
            rest = pool
            for _ in range(skip):
                rest &= rest - 1
            bit = rest & -rest
            pool ^= bit
            hand ^= bit
            left -= 1
        hands[t] = hand | played[1, t]
    return p * _replayed(starts[1], r, hands, moves, 1, slips[1], seat, g, legal)


@compiled
def race(template: np.ndarray, r: np.ndarray, seat: int, cands: np.ndarray,
         alive: np.ndarray, sums: np.ndarray, pair_sum: np.ndarray, pair_squares: np.ndarray,
         differ: np.ndarray, status: np.ndarray, max_deals: int, base: np.ndarray,
         needs: np.ndarray, weighted: np.ndarray, weights: np.ndarray, hidden: np.ndarray,
         bottom: int, rounds: int, model: np.ndarray, drop_z: float,
         seed: int, deadline: int, starts: np.ndarray, played: np.ndarray, moves: np.ndarray,
         slips: np.ndarray, undo: np.ndarray) -> None:
    """Up to `max_deals` more deals of BaselinePlayer._race: every move still alive played out
    on the same deal, then a move trailing the leader by `drop_z` standard errors of the paired
    difference dropped (after MIN_DEALS_TO_DROP deals). The race's state lives in the arrays
    the caller keeps between calls; status[STATUS_DONE] is set once one move is left or
    SAME_AFTER deals showed no difference. `seed` seeds the deals (-1: go on where the last
    call stopped). No deal starts past `deadline` (clock.py's cycle counter; NO_DEADLINE:
    none). With `starts` (a replay of the last rounds: `likelihood`), each deal is kept with its
    likelihood, drawn again up to TRIES times, else the likeliest of them as far as it was read
    (replay.likely_deal); with none, every deal is played."""
    if seed >= 0:
        np.random.seed(seed)
    m = len(cands)
    dealt = np.empty_like(template)
    g = np.empty_like(template)
    legal = np.empty(MAX_ACTIONS, dtype=np.int64)
    results = np.zeros(m)
    tried = np.empty_like(template)
    for _ in range(max_deals):
        if past(deadline):
            return
        left = 0
        for i in range(m):
            left += alive[i]
        if left <= 1:
            status[STATUS_DONE] = 1
            return
        if len(starts):
            likeliest = -1.0
            for _ in range(TRIES):
                deal(template, r, base, needs, weighted, weights, hidden, bottom, tried)
                threshold = np.random.random()
                p = likelihood(starts, r, tried, played, moves, slips, undo, seat, threshold, g,
                               legal)
                if p > threshold:
                    dealt[:] = tried
                    break
                if p > likeliest:
                    likeliest = p
                    dealt[:] = tried
        else:
            deal(template, r, base, needs, weighted, weights, hidden, bottom, dealt)
        for i in range(m):
            if alive[i]:
                g[:] = dealt
                apply(g, r, seat, cands[i])
                results[i] = playout(g, r, seat, rounds, model, legal)
        for i in range(m):
            if not alive[i]:
                continue
            sums[i] += results[i]
            for j in range(m):
                if alive[j] and j != i:
                    diff = results[i] - results[j]
                    pair_sum[i, j] += diff
                    pair_squares[i, j] += diff * diff
                    if diff != 0.0:
                        differ[i, j] = True
        status[STATUS_DEALS] += 1
        n = status[STATUS_DEALS]
        if n >= MIN_DEALS_TO_DROP:
            leader = -1
            for i in range(m):
                if alive[i] and (leader < 0 or sums[i] > sums[leader]):
                    leader = i
            for i in range(m):
                if not alive[i] or i == leader:
                    continue
                mean = pair_sum[leader, i] / n
                var = max(0.0, (pair_squares[leader, i] - pair_sum[leader, i] ** 2 / n) / (n - 1))
                if mean > 0 and mean > drop_z * math.sqrt(var / n):
                    alive[i] = False
        if n >= SAME_AFTER:
            same = True
            for i in range(m):
                for j in range(m):
                    if alive[i] and alive[j] and differ[i, j]:
                        same = False
            if same:
                status[STATUS_DONE] = 1
                return


@compiled
def playouts(states: np.ndarray, rules: np.ndarray, seats: np.ndarray, rounds: int,
             model: np.ndarray, repeat: int, scores: np.ndarray) -> None:
    """`playout` of each row of `states` (under its row of `rules`, for its seat), `repeat`
    times over, in one call: the kernel's playouts a second without a call's overhead
    (bench/kernel_bench.py), the scores into `scores`."""
    legal = np.empty(MAX_ACTIONS, dtype=np.int64)
    g = np.empty(states.shape[1], dtype=np.int64)
    for _ in range(repeat):
        for i in range(states.shape[0]):
            g[:] = states[i]
            scores[i] = playout(g, rules[i], seats[i], rounds, model, legal)
