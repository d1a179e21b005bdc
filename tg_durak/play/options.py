"""A table's options and a private game's setup (the options, how many computers, how strong).

`TableOptions` holds what a player may choose about the rules; the private setup and the group
lobby both edit it through `with_option`, both show it with render/options.py. Saved per user
as flat JSON ("last settings"): anything unreadable falls back to its default, so settings saved
by an older version, or garbage, still load.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from enum import StrEnum
from typing import Any

from engine import MAX_PLAYERS, Rules, ThrowIn, Variant
from engine.rules import DECKS, MAX_ATTACK, SMALL_DECK_PLAYERS, THROW_IN_SECONDS

LEVELS = ("easy", "normal", "hard")
TURN_SECONDS = (15, 30, 60, 120)
USUAL_TURN_SECONDS = 30
FIRST_ROUND_LIMIT = 5   # R5.3 option: the first round's attack is limited to 5 cards
MAX_OPPONENTS = MAX_PLAYERS - 1
DEFAULT_DECK = 36


class OptionField(StrEnum):
    """One option; the value is the TableOptions attribute and travels in callback data."""

    VARIANT = "variant"
    DECK = "deck"
    TURN = "turn_seconds"
    THROW_IN = "throw_in"
    FIRST_ROUND = "first_round_five"
    DRAWS = "draws"
    SHOW_TRUMP = "show_trump"


# What each option may be, in the order the buttons show them.
CHOICES: dict[OptionField, tuple[object, ...]] = {
    OptionField.VARIANT: tuple(Variant),
    OptionField.DECK: DECKS,
    OptionField.TURN: TURN_SECONDS,
    OptionField.THROW_IN: tuple(ThrowIn),
    OptionField.FIRST_ROUND: (False, True),
    OptionField.DRAWS: (False, True),
    OptionField.SHOW_TRUMP: (False, True),
}


def encode(value: object) -> str:
    """An option's value as callback data carries it."""
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def decode(field: OptionField, text: str) -> object | None:
    """The value `text` stands for, if `field` may take it; None for anything else."""
    return next((v for v in CHOICES[field] if encode(v) == text), None)


def _kind(value: object) -> type:
    return bool if isinstance(value, bool) else int if isinstance(value, int) else str


def is_choice(field: OptionField, value: object) -> bool:
    """Exactly one of the field's choices: 1 is not True, "36" is not 36."""
    return any(_kind(value) is _kind(v) and value == v for v in CHOICES[field])


@dataclass(frozen=True)
class TableOptions:
    """The rules a table's players choose (docs/rules.md's options); the rest is fixed."""

    variant: Variant = Variant.THROW_IN
    deck: int = DEFAULT_DECK
    turn_seconds: int = 30
    throw_in: ThrowIn = ThrowIn.ALL
    first_round_five: bool = False
    draws: bool = True
    show_trump: bool = False   # R9.7: the transfer game only

    def __post_init__(self) -> None:
        for field in OptionField:
            if not is_choice(field, getattr(self, field)):
                raise ValueError(f"{field} may be {CHOICES[field]}, not {getattr(self, field)!r}")
        object.__setattr__(self, "variant", Variant(self.variant))
        object.__setattr__(self, "throw_in", ThrowIn(self.throw_in))
        if self.show_trump and self.variant != Variant.TRANSFER:
            raise ValueError("show_trump belongs to the transfer game (R9.7)")

    @property
    def max_players(self) -> int:
        return SMALL_DECK_PLAYERS if self.deck == 24 else MAX_PLAYERS

    def to_rules(self, players: int, time_scale: float = 1.0) -> Rules:
        """The engine's rules for `players` seats (at most max_players), timers scaled."""
        return Rules(
            variant=self.variant, players=players, deck=self.deck,
            first_round_limit=FIRST_ROUND_LIMIT if self.first_round_five else MAX_ATTACK,
            throw_in=self.throw_in, show_trump=self.show_trump,
            turn_seconds=self.turn_seconds, no_draws=not self.draws,
            throw_in_seconds=self.throw_in_window,
        ).scaled(time_scale)

    @property
    def throw_in_window(self) -> float:
        """R10.1's 8 s at the usual turns, as much longer as a slower table's turn
        (docs/rules.md's notes: those who chose time to think must not miss a throw-in)."""
        return max(THROW_IN_SECONDS, THROW_IN_SECONDS * self.turn_seconds / USUAL_TURN_SECONDS)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["variant"], d["throw_in"] = str(self.variant), str(self.throw_in)
        return d

    @classmethod
    def from_dict(cls, d: dict | None) -> TableOptions:
        """Each readable value is kept, each other one is the default."""
        d = d if isinstance(d, dict) else {}
        kept = {field.value: d[field] for field in OptionField
                if field in d and is_choice(field, d[field])}
        if kept.get(OptionField.VARIANT.value, Variant.THROW_IN) != Variant.TRANSFER:
            kept.pop(OptionField.SHOW_TRUMP.value, None)
        return cls(**kept)


def with_option(options: TableOptions, field: OptionField, text: str) -> TableOptions | None:
    """`options` with one option set from a button's value; None if the button was forged.

    Leaving the transfer game turns show-trump off; show-trump outside it is refused.
    """
    value = decode(field, text)
    if value is None:
        return None
    # Any: each field's own type, which TableOptions checks (is_choice)
    changed: dict[str, Any] = {field.value: value}
    if field is OptionField.VARIANT and value != Variant.TRANSFER:
        changed[OptionField.SHOW_TRUMP.value] = False
    try:
        return replace(options, **changed)
    except ValueError:
        return None


@dataclass(frozen=True)
class PlaySettings:
    """A private game: the table's options, the computer opponents and their strength.

    A 24-card deck seats at most 4 (R1.1), so at most 3 opponents: the latest choice wins and
    the other one gives way (24 cards with 5 opponents leaves 3; 5 opponents with 24 cards
    brings back the 36-card deck).
    """

    options: TableOptions = TableOptions()
    bots: int = 1
    level: str = "normal"

    def __post_init__(self) -> None:
        if not (type(self.bots) is int and 1 <= self.bots < self.options.max_players):
            raise ValueError(f"bots must be 1 to {self.options.max_players - 1}")
        if self.level not in LEVELS:
            raise ValueError(f"level must be one of {LEVELS}")

    @property
    def players(self) -> int:
        return self.bots + 1

    def to_rules(self, time_scale: float = 1.0) -> Rules:
        return self.options.to_rules(self.players, time_scale)

    def with_option(self, field: OptionField, text: str) -> PlaySettings | None:
        options = with_option(self.options, field, text)
        if options is None:
            return None
        return replace(self, options=options, bots=min(self.bots, options.max_players - 1))

    def with_bots(self, bots: int) -> PlaySettings:
        options = self.options
        if bots >= options.max_players:
            options = replace(options, deck=DEFAULT_DECK)
        return replace(self, options=options, bots=bots)

    def with_level(self, level: str) -> PlaySettings:
        return replace(self, level=level)

    def to_dict(self) -> dict:
        return {**self.options.to_dict(), "bots": self.bots, "level": self.level}

    @classmethod
    def from_dict(cls, d: dict | None) -> PlaySettings:
        d = d if isinstance(d, dict) else {}
        options = TableOptions.from_dict(d)
        bots = d.get("bots")
        if not (type(bots) is int and 1 <= bots <= MAX_OPPONENTS):
            bots = cls.bots
        level = d.get("level")
        if level not in LEVELS:
            level = cls.level
        return cls(options, min(bots, options.max_players - 1), level)
