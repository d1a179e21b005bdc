"""A game as a JSON-safe document, and back: the rules, the seed, the deal, the state, the log.

The state's keys come from the field declaration (`engine/state.py`); this module adds what
surrounds it, reads snapshots written by earlier versions of the engine, and refuses a damaged
one rather than restore a wrong game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from engine.cards import CARD_NAMES, Card, deck_mask
from engine.deal import Initial
from engine.rules import Rules
from engine.state import GameFields, dump_state, load_state

if TYPE_CHECKING:
    from engine.actions import Event

FORMAT = 1


def write_snapshot(game: GameFields, log: bool) -> dict:
    d = {
        "format": FORMAT,
        "rules": game.rules.to_dict(),
        "seed": game.seed,
        "initial": _initial_json(game.initial),
        "state": dump_state(game),
    }
    if log:
        d["log"] = [entry_to_json(e) for e in game.log]
    return d


def read_snapshot(game: GameFields, d: dict, replay: Callable[[dict], GameFields]) -> Initial:
    """Set every field `write_snapshot` wrote (the derived ones are the game's to compute);
    returns the deal, which a snapshot always has. `replay` (Game.replay) gives the history."""
    try:
        if d.get("format") != FORMAT:
            raise ValueError(f"unknown snapshot format {d.get('format')!r}")
        game.rules = Rules.from_dict(d["rules"])
        game.seed, game.players = d["seed"], game.rules.players
        game.initial = initial = parse_initial(d["initial"])
        load_state(game, _with_roles(d["state"], game.players))
        game.log = [entry_from_json(e) for e in d["log"]]
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        raise ValueError(f"damaged game snapshot: {exc!r}") from exc
    _check(game)
    game.history = _history(game, d, replay)
    return initial


def _history(game: GameFields, d: dict, replay: Callable[[dict], GameFields]) -> list[Event]:
    """The events the log made, replayed from the deal: the history is not saved. A log that does
    not replay (a damaged row, which `tg_durak.ops.check` reports) leaves it empty: the game
    itself is the saved state."""
    if not game.log:
        return []
    try:
        return replay(d).history
    except ValueError:   # IllegalMove is one
        return []


def read_record(d: dict) -> tuple[Rules, int | str, Initial, list[tuple]]:
    """What a replay starts from: the rules, the seed, the deal, and the log's entries."""
    log = [entry_from_json(e) if isinstance(e, list) else e for e in d["log"]]
    return Rules.from_dict(d["rules"]), d["seed"], parse_initial(d["initial"]), log


def entry_to_json(e: tuple) -> list:
    """One log entry as JSON-safe data (what the store appends per action)."""
    if e[0] == "act":
        _, seat, kind, card, target, now, auto = e
        return ["act", seat, str(kind), None if card is None else str(card), target, now, auto]
    return list(e)


def changed_at(log: Sequence[tuple]) -> float | None:
    """When the log's last move or deadline happened (a postponement has no time of its own);
    None when nothing has."""
    for entry in reversed(log):
        if entry[0] == "act":
            return entry[5]
        if entry[0] == "tick":
            return entry[1]
    return None


def entry_from_json(e: list) -> tuple:
    """A log entry from its JSON form (entry_to_json's inverse)."""
    if e[0] == "act":
        _, seat, kind, card, target, now, auto = e
        return ("act", seat, kind, None if card is None else Card.parse(card), target, now,
                bool(auto))
    if e[0] in ("tick", "postpone") and len(e) == 2:
        return (e[0], float(e[1]))
    raise ValueError(f"unknown log entry {e!r}")


def parse_initial(ini: dict) -> Initial:
    """The deal recorded in a snapshot, as (hands, stock, trump, first, now, revealed)."""
    return (
        tuple(tuple(map(Card.parse, h)) for h in ini["hands"]),
        tuple(map(Card.parse, ini["stock"])),
        ini["trump"], ini["first_attacker"], ini["now"],
        None if ini.get("revealed") is None else Card.parse(ini["revealed"]),
    )


def _initial_json(initial: Initial | None) -> dict | None:
    if initial is None:
        return None  # a determinization made for search has no deal of its own
    hands, stock, trump, first_attacker, now, revealed = initial
    return {
        "hands": [[CARD_NAMES[c.index] for c in h] for h in hands],
        "stock": [CARD_NAMES[c.index] for c in stock],
        "trump": trump,
        "first_attacker": first_attacker,
        "now": now,
        "revealed": None if revealed is None else str(revealed),
    }


def _with_roles(state: dict, players: int) -> dict:
    """A state with R9.1's two roles: snapshots written before them name only the round's
    starter, as "attacker"; who attacks now is the seat before the defender once the attack has
    been transferred."""
    if "round_starter" in state:
        return state
    starter, defender, active = state["attacker"], state["defender"], state["active"]
    seats = [s for s in range(players) if active >> s & 1] or list(range(players))
    after_starter = next((s for s in seats if s > starter), seats[0])
    before_defender = next((s for s in reversed(seats) if s < defender), seats[-1])
    attacker = starter if after_starter == defender else before_defender
    return {**state, "round_starter": starter, "attacker": attacker}


def _check(game: GameFields) -> None:
    n = game.players
    if len(game.hands) != n or len(game.known) != n or len(game.timeouts) != n:
        raise ValueError("damaged game snapshot: seat count")
    zones = [*game.hands, game.discard, *(1 << c for c in game.stock),
             *(1 << c for c in game.attacks + game.defences if c >= 0)]
    seen = 0
    for z in zones:
        if seen & z:
            raise ValueError("damaged game snapshot: a card is in two places")
        seen |= z
    if seen & ~deck_mask(game.rules.deck) or not all(
        0 <= seat < n for seat in (game.round_starter, game.attacker, game.defender)
    ) or any(mask >> n for mask in (game.active, game.passes, game.showed_trump)):
        raise ValueError("damaged game snapshot: cards or seats out of range")
