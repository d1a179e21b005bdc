"""The kernel's game state as one int64 array, and the game's own fields written into it.

`encode(game)` is the one bridge from the engine (`engine/game.py`, the authority) to the
kernel: a search encodes its template once and the kernel copies the array at every playout.
The differential test encodes the engine's game after every step and compares it with the
kernel's array slot by slot, so every slot here is a field of `engine/state.py` (the clocks
reduced to whether each runs: the kernel's playouts need no time, only which deadline fires).

An action is one int: kind | card << 3 | target << 9 (ACTION_* kinds, card -1 stored as 0).
"""

from __future__ import annotations

import numpy as np

from engine.actions import ATTACK, DEFEND, PASS, SHOW_TRUMP, TAKE, TRANSFER, Action, ActionKind
from engine.game import Game
from engine.rules import MAX_PLAYERS, Rules, ThrowIn, Variant

# Slots of the state array.
HANDS = 0             # 6 card masks
KNOWN = 6             # 6 card masks (R11.1)
STOCK = 12            # 52 card indexes, the next drawn last (as Game.stock)
STOCK_N = 64
TRUMP = 65
TRUMP_CARD = 66       # the face-up card under the stock, -1 once drawn
DISCARD = 67
ATTACKS = 68          # 6 card indexes
DEFENCES = 74         # 6 card indexes, -1 unbeaten
TABLE_N = 80
UNBEATEN = 81
TABLE_RANKS = 82
ACTIVE = 83
OUT_ORDER = 84        # 6 seats
OUT_N = 90
ROUND_STARTER = 91
ATTACKER = 92
DEFENDER = 93
THROWERS = 94
FIRST_ROUND = 95
ROUND_LIMIT = 96
ATTACK_LIMIT = 97
TAKING = 98
PASSES = 99
SHOWED_TRUMP = 100
TURN_RUNS = 101       # turn_due is not None
WINDOW_RUNS = 102     # window_due is not None
CLOSE_RUNS = 103      # close_due is not None
TIMEOUTS = 104        # 6 counts
IS_OVER = 110
DURAK = 111           # -1: none (playing, or a draw)
NEXT_SEAT = 112       # 6 seats (derived, as Game.next_seat)
SIZE = 118

# Slots of the rules array.
R_TRANSFER = 0
R_PLAYERS = 1
R_DECK = 2
R_MAX_ATTACK = 3
R_FIRST_LIMIT = 4
R_THROW_IN_ALL = 5
R_SHOW_TRUMP = 6
R_NO_DRAWS = 7
RULES_SIZE = 8

(ACTION_ATTACK, ACTION_DEFEND, ACTION_TRANSFER, ACTION_SHOW_TRUMP, ACTION_TAKE,
 ACTION_PASS) = range(6)
_KIND_CODES: dict[str, int] = {ActionKind.ATTACK: ACTION_ATTACK, ActionKind.DEFEND: ACTION_DEFEND,
               ActionKind.TRANSFER: ACTION_TRANSFER, ActionKind.SHOW_TRUMP: ACTION_SHOW_TRUMP,
               ActionKind.TAKE: ACTION_TAKE, ActionKind.PASS: ACTION_PASS}
_FIELDS = (
    ("hands", HANDS, 6), ("known", KNOWN, 6), ("stock", STOCK, 52), ("stock_n", STOCK_N, 1),
    ("trump", TRUMP, 1), ("trump_card", TRUMP_CARD, 1), ("discard", DISCARD, 1),
    ("attacks", ATTACKS, 6), ("defences", DEFENCES, 6), ("table_n", TABLE_N, 1),
    ("unbeaten", UNBEATEN, 1), ("table_ranks", TABLE_RANKS, 1), ("active", ACTIVE, 1),
    ("out_order", OUT_ORDER, 6), ("out_n", OUT_N, 1), ("round_starter", ROUND_STARTER, 1),
    ("attacker", ATTACKER, 1), ("defender", DEFENDER, 1), ("throwers", THROWERS, 1),
    ("first_round", FIRST_ROUND, 1), ("round_limit", ROUND_LIMIT, 1),
    ("attack_limit", ATTACK_LIMIT, 1), ("taking", TAKING, 1), ("passes", PASSES, 1),
    ("showed_trump", SHOWED_TRUMP, 1), ("turn_runs", TURN_RUNS, 1),
    ("window_runs", WINDOW_RUNS, 1), ("close_runs", CLOSE_RUNS, 1), ("timeouts", TIMEOUTS, 6),
    ("is_over", IS_OVER, 1), ("durak", DURAK, 1), ("next_seat", NEXT_SEAT, 6))
# Each slot's name, for a difference a person can read ("hands[2]").
SLOT_NAMES: tuple[str, ...] = tuple(
    name if count == 1 else f"{name}[{i}]" for name, _, count in _FIELDS for i in range(count))


def encode_rules(rules: Rules) -> np.ndarray:
    return np.array([rules.variant == Variant.TRANSFER, rules.players, rules.deck,
                     rules.max_attack, rules.first_round_limit, rules.throw_in == ThrowIn.ALL,
                     rules.show_trump, rules.no_draws], dtype=np.int64)


def encode(g: Game) -> np.ndarray:
    """The kernel's array of `g` (every field the rules read; not the log, the seed, the times)."""
    s = np.zeros(SIZE, dtype=np.int64)
    n = g.players
    s[HANDS:HANDS + n] = g.hands
    s[KNOWN:KNOWN + n] = g.known
    s[STOCK:STOCK + len(g.stock)] = g.stock
    s[STOCK_N] = len(g.stock)
    s[TRUMP] = g.trump
    s[TRUMP_CARD] = g.trump_card_index
    s[DISCARD] = g.discard
    k = len(g.attacks)
    s[DEFENCES:DEFENCES + 6] = -1
    s[ATTACKS:ATTACKS + k] = g.attacks
    s[DEFENCES:DEFENCES + k] = g.defences
    s[TABLE_N] = k
    s[UNBEATEN] = g.unbeaten
    s[TABLE_RANKS] = g.table_ranks
    s[ACTIVE] = g.active
    s[OUT_ORDER:OUT_ORDER + len(g.out_order)] = g.out_order
    s[OUT_N] = len(g.out_order)
    s[ROUND_STARTER] = g.round_starter
    s[ATTACKER] = g.attacker
    s[DEFENDER] = g.defender
    s[THROWERS] = g.throwers
    s[FIRST_ROUND] = g.first_round
    s[ROUND_LIMIT] = g.round_limit
    s[ATTACK_LIMIT] = g.attack_limit
    s[TAKING] = g.taking
    s[PASSES] = g.passes
    s[SHOWED_TRUMP] = g.showed_trump
    s[TURN_RUNS] = g.turn_due is not None
    s[WINDOW_RUNS] = g.window_due is not None
    s[CLOSE_RUNS] = g.close_due is not None
    s[TIMEOUTS:TIMEOUTS + n] = g.timeouts
    s[IS_OVER] = g.is_over
    s[DURAK] = -1 if g.durak is None else g.durak
    s[NEXT_SEAT:NEXT_SEAT + n] = g.next_seat
    return s


def action_code(a: Action) -> int:
    card = 0 if a.card is None else a.card.index
    return _KIND_CODES[a.kind] | card << 3 | (a.target or 0) << 9


def action_of(code: int) -> Action:
    """The engine's interned Action for a kernel action code."""
    kind, card, target = code & 7, code >> 3 & 63, code >> 9
    if kind == ACTION_ATTACK:
        return ATTACK[card]
    if kind == ACTION_DEFEND:
        return DEFEND[card][target]
    if kind == ACTION_TRANSFER:
        return TRANSFER[card]
    if kind == ACTION_SHOW_TRUMP:
        return SHOW_TRUMP[card]
    return TAKE if kind == ACTION_TAKE else PASS

if MAX_PLAYERS != 6 or len(SLOT_NAMES) != SIZE:
    raise ImportError("the kernel's layout has six slots a seat and a name for each slot")
