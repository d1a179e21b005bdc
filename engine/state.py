"""The game's fields, declared once: what each holds, how it is copied, how a snapshot spells it.

`Game` takes its `__slots__` and its `copy()` from `FIELDS`, and `to_dict`/`from_dict` walk it, so
a field added here is copied and saved everywhere. Cards are ints 0..51 (`engine.cards`), sets of
cards are bitmasks ("card masks"), sets of seats are bitmasks too ("seat masks").

`Phase` and `next_due` are read from the fields and never stored; they live here, below both the
game and its views, because each of the two answers them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from engine.cards import CARD_NAMES, SUITS, Card, mask_of, names_of, parse_suit

if TYPE_CHECKING:
    from engine.actions import Event
    from engine.deal import Initial
    from engine.rules import Rules


class Phase(StrEnum):
    """Derived from the table, never stored."""

    LEAD = "lead"      # the table is empty: the attacker leads
    DEFEND = "defend"  # unbeaten cards wait for the defender
    WINDOW = "window"  # all beaten, or Take declared: the throw-in window (R6.3)
    OVER = "over"


def next_due(is_over: bool, turn: float | None, window: float | None,
             close: float | None) -> float | None:
    """The deadline that fires next: a turn's, else the window's end or its grace (R6.3)."""
    if is_over:
        return None
    if turn is not None:
        return turn
    return close if close is not None and (window is None or close < window) else window


def _card_name(i: int) -> str | None:
    return None if i < 0 else CARD_NAMES[i]


def _card_index(name: str | None) -> int:
    return -1 if name is None else Card.parse(name).index


def _natural(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"not a seat, count or seat mask: {value!r}")
    return value


def _same(value: Any) -> Any:
    return value


@dataclass(frozen=True, eq=False)  # kinds are told apart by identity: FIXED is not DERIVED
class Kind:
    """How one kind of field is copied and written to (and read from) a snapshot."""

    mutable: bool = False            # copy() copies it ([:]) instead of sharing it
    dump: Callable[[Any], Any] = _same
    load: Callable[[Any], Any] = _same
    column: int | None = None        # fields sharing a JSON key are the columns of its rows


NATURAL = Kind(load=_natural)                  # a seat, a count or a seat mask
FLAG = Kind(load=bool)
OPTIONAL = Kind()                              # a number or None, kept as it is
INTS = Kind(mutable=True, dump=list, load=lambda v: [int(x) for x in v])
SUIT = Kind(dump=SUITS.__getitem__, load=parse_suit)
CARD = Kind(dump=_card_name, load=_card_index)  # a card index, -1 for none
CARD_MASK = Kind(dump=names_of, load=mask_of)
CARD_MASKS = Kind(mutable=True, dump=lambda v: [names_of(m) for m in v],
                  load=lambda v: [mask_of(m) for m in v])
# Drawn with pop(), so the next card is last in the game and first in the snapshot.
STOCK = Kind(mutable=True, dump=lambda v: [CARD_NAMES[c] for c in reversed(v)],
             load=lambda v: [Card.parse(c).index for c in reversed(v)])
ATTACK_COLUMN = Kind(mutable=True, dump=lambda v: [_card_name(c) for c in v],
                     load=lambda v: [_card_index(c) for c in v], column=0)
DEFENCE_COLUMN = Kind(mutable=True, dump=ATTACK_COLUMN.dump, load=ATTACK_COLUMN.load, column=1)
# Not in a snapshot: fixed for the game, or recomputed from the fields above (Game._derive).
# Derived lists are replaced, never changed in place, so copies may share them.
FIXED = Kind()
DERIVED = Kind()
LOG = Kind(mutable=True)  # the log and its history: copied unless copy(with_log=False)


@dataclass(frozen=True)
class Field:
    name: str
    kind: Kind
    json: str | None = None  # the key in a snapshot's "state" (today's FORMAT 1 keys)


FIELDS: tuple[Field, ...] = (
    # The table
    Field("rules", FIXED),               # the table's options (Rules)
    Field("seed", FIXED),                # the shuffle's seed; also seeds reaction delays (R10.3)
    Field("players", FIXED),             # rules.players
    Field("initial", FIXED),             # the deal as dealt, for to_dict (None: a sampled game)
    # The card that named trump, shown to all (R2.2, R2.3): the stock's bottom card, or the
    # last dealt one when nothing was left for the stock; -1 when a deal named the suit alone.
    Field("named_trump", FIXED),
    Field("log", LOG),                   # every applied action and fired deadline, in order
    # Every event since the deal, as all at the table saw it (R11): what the log's entries did.
    # Not saved: restoring a game replays its log to rebuild it.
    Field("history", LOG),
    # Cards
    Field("trump", SUIT, "trump"),       # the trump suit, 0..3 in SUITS order
    Field("beaters", DERIVED),           # beaters[c]: the card mask of cards that beat c (R4)
    Field("hands", CARD_MASKS, "hands"),  # each seat's hand
    Field("known", CARD_MASKS, "known"),  # cards all players know to be in each hand (R11.1)
    Field("stock", STOCK, "stock"),      # card indexes, the next one drawn last
    Field("trump_card_index", CARD, "trump_card"),  # the face-up card under the stock (R2.2)
    Field("discard", CARD_MASK, "discard"),
    Field("attacks", ATTACK_COLUMN, "table"),     # attack cards on the table, in order
    Field("defences", DEFENCE_COLUMN, "table"),   # defences[i] beat attacks[i]; -1: unbeaten
    Field("unbeaten", DERIVED),          # how many of defences are -1
    Field("table_ranks", DERIVED),       # card mask of every card of a rank on the table (R5.2)
    # Seats and roles
    Field("active", NATURAL, "active"),  # seat mask of players still in the game (R8.1)
    Field("out_order", INTS, "out"),     # seats that left, in leaving order (R8.2)
    Field("active_list", DERIVED),       # the active seats in seat order, a tuple
    Field("next_seat", DERIVED),         # next_seat[s]: the next active seat clockwise (R1.2)
    Field("round_starter", NATURAL, "round_starter"),  # began the round's attack (R7.1, R9.6)
    Field("attacker", NATURAL, "attacker"),  # attacks now: the starter, or who transferred (R9.1)
    Field("defender", NATURAL, "defender"),
    Field("throwers", DERIVED),          # seat mask of who may throw in this round (R5.2)
    # The round
    Field("first_round", FLAG, "first_round"),
    Field("round_limit", NATURAL, "round_max"),  # attack cards the rules allow now (R5.3)
    # ... and no more than the defender held at the round's start or the transfer (R5.3, R9.4)
    Field("attack_limit", NATURAL, "limit"),
    Field("taking", FLAG, "taking"),     # the defender has declared Take (R6.2)
    Field("passes", NATURAL, "passed"),  # seat mask of standing passes (R5.4, R6.3)
    Field("showed_trump", NATURAL, "shown"),  # seat mask of who has shown a trump (R9.7)
    # Time (R10): absolute deadlines, None when not running
    Field("turn_due", OPTIONAL, "turn_due"),      # the lead's or the defender's turn
    Field("window_due", OPTIONAL, "window_due"),  # the throw-in window's end (R6.3)
    Field("close_due", OPTIONAL, "close_due"),    # the close grace once everyone is done
    Field("timeouts", INTS, "timeouts"),  # consecutive time-outs per seat (R10.2)
    # The end
    Field("is_over", FLAG, "over"),
    Field("durak", OPTIONAL, "durak"),   # the loser's seat; None while playing or for a draw
)
SLOTS = tuple(f.name for f in FIELDS)
SAVED = tuple(f for f in FIELDS if f.json is not None)
# SAVED with each one's key, which f.json spells as optional.
_KEYED = tuple((f.json, f) for f in FIELDS if f.json is not None)


def dump_state(game: object) -> dict:
    """The saved fields of `game` as a snapshot's JSON-safe "state"."""
    state: dict = {}
    columns: dict[str, list] = {}
    for key, f in _KEYED:
        value = f.kind.dump(getattr(game, f.name))
        if f.kind.column is None:
            state[key] = value
        else:
            columns.setdefault(key, []).append(value)
    for key, cols in columns.items():
        state[key] = [list(row) for row in zip(*cols, strict=True)]
    return state


def load_state(game: object, state: dict) -> None:
    """Set the saved fields of `game` from a snapshot's "state" (KeyError etc. when damaged)."""
    for key, f in _KEYED:
        value = state[key]
        if f.kind.column is not None:
            value = [row[f.kind.column] for row in value]
        setattr(game, f.name, f.kind.load(value))


def compile_copy(doc: str) -> Callable:
    """`copy(self, with_log=True)` assigning every field of FIELDS, unrolled like hand-written
    code (a loop over the fields would make search, which copies at every node, slower)."""
    lines = ["def copy(self, with_log=True):", "    g = _new(self.__class__)"]
    for f in FIELDS:
        if f.kind is LOG:
            lines.append(f"    g.{f.name} = self.{f.name}[:] if with_log else []")
        else:
            lines.append(f"    g.{f.name} = self.{f.name}{'[:]' if f.kind.mutable else ''}")
    lines.append("    return g")
    namespace: dict = {"_new": object.__new__}
    exec(compile("\n".join(lines), "<engine.state.compile_copy>", "exec"), namespace)
    copy = namespace["copy"]
    copy.__doc__ = doc
    return copy


class GameFields:
    """Every field of a game with its type, for the type checker (it cannot read a computed
    __slots__): `Game` takes its slots from FIELDS, in this order, and its rules from game.py;
    what only reads or writes the fields (snapshot.py) needs no more than this."""

    if not TYPE_CHECKING:   # no instance dict; the checker takes `Game`'s slots from these
        __slots__ = ()

    rules: Rules
    seed: int | float | str   # a sampled game's is a float from the search's rng
    players: int
    initial: Initial | None
    named_trump: int
    log: list[tuple]
    history: list[Event]
    trump: int
    beaters: tuple[int, ...]
    hands: list[int]
    known: list[int]
    stock: list[int]
    trump_card_index: int
    discard: int
    attacks: list[int]
    defences: list[int]
    unbeaten: int
    table_ranks: int
    active: int
    out_order: list[int]
    active_list: tuple[int, ...]
    next_seat: list[int]
    round_starter: int
    attacker: int
    defender: int
    throwers: int
    first_round: bool
    round_limit: int
    attack_limit: int
    taking: bool
    passes: int
    showed_trump: int
    turn_due: float | None
    window_due: float | None
    close_due: float | None
    timeouts: list[int]
    is_over: bool
    durak: int | None
