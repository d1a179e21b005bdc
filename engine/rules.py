"""Table options (docs/rules.md marks them *option*); everything else in the rules is fixed."""

from __future__ import annotations

from contextlib import suppress
from dataclasses import asdict, dataclass, replace
from enum import StrEnum
from functools import cache

MIN_PLAYERS = 2
MAX_PLAYERS = 6          # R1.2; an app seats at most MAX_PLAYERS - 1 computer opponents
HAND_SIZE = 6            # R2.1, R7.1
AWAY_AFTER_TIMEOUTS = 2  # R10.2: consecutive time-outs that mark a player away
MAX_ATTACK = 6           # R5.3: attack cards in one round, at most
DECKS = (24, 36, 52)     # R1.1
SMALL_DECK_PLAYERS = 4   # R1.1: a 24-card deck seats at most this many
TIMERS = ("throw_in_seconds", "close_grace_seconds", "turn_seconds")


class Variant(StrEnum):
    THROW_IN = "throw-in"
    TRANSFER = "transfer"   # R9


class ThrowIn(StrEnum):
    ALL = "all"                # R5.2: every active player but the defender
    NEIGHBOURS = "neighbours"  # only the defender's two neighbours


THROW_IN_SECONDS = 8.0   # R10.1's window


@dataclass(frozen=True)
class Rules:
    variant: str = Variant.THROW_IN
    players: int = 2
    deck: int = 36
    max_attack: int = MAX_ATTACK
    first_round_limit: int = MAX_ATTACK
    throw_in: str = ThrowIn.ALL
    show_trump: bool = False
    throw_in_seconds: float = THROW_IN_SECONDS
    close_grace_seconds: float = 1.0
    turn_seconds: float = 30.0
    bot_delay: tuple[float, float] = (1.5, 3.0)
    no_draws: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "bot_delay", tuple(self.bot_delay))
        # Kept as enum members; a value outside the enum stays as given and is reported below.
        for name, enum in (("variant", Variant), ("throw_in", ThrowIn)):
            with suppress(ValueError):
                object.__setattr__(self, name, enum(getattr(self, name)))
        problems = [
            *self._table_problems(),
            *self._limit_problems(),
            *self._option_problems(),
            *self._timer_problems(),
        ]
        if problems:
            raise ValueError("; ".join(problems))

    def _table_problems(self) -> list[str]:
        problems = []
        if not isinstance(self.variant, Variant):
            problems.append(f"variant must be one of {tuple(map(str, Variant))}")
        if self.deck not in DECKS:
            problems.append("deck must be 24, 36 or 52")
        if not (isinstance(self.players, int) and MIN_PLAYERS <= self.players <= MAX_PLAYERS):
            problems.append(f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}")
        elif self.deck == 24 and self.players > SMALL_DECK_PLAYERS:
            problems.append(f"a 24-card deck seats at most {SMALL_DECK_PLAYERS} players (R1.1)")
        return problems

    def _limit_problems(self) -> list[str]:
        return [f"{name} must be 1 to {MAX_ATTACK}"
                for name in ("max_attack", "first_round_limit")
                if not (isinstance(getattr(self, name), int)
                        and 1 <= getattr(self, name) <= MAX_ATTACK)]

    def _option_problems(self) -> list[str]:
        if not isinstance(self.throw_in, ThrowIn):
            return [f"throw_in must be one of {tuple(map(str, ThrowIn))}"]
        if not isinstance(self.show_trump, bool) or not isinstance(self.no_draws, bool):
            return ["show_trump and no_draws must be booleans"]
        if self.show_trump and self.variant != Variant.TRANSFER:
            return ["show_trump belongs to the transfer game (R9.7)"]
        return []

    def _timer_problems(self) -> list[str]:
        problems = [f"{name} must be a positive number" for name in TIMERS
                    if not _positive_number(getattr(self, name))]
        low_high = self.bot_delay
        if (len(low_high) != 2 or not all(isinstance(x, int | float) for x in low_high)
                or not 0 <= low_high[0] <= low_high[1]):
            problems.append("bot_delay must be (low, high) with 0 <= low <= high")
        return problems

    def to_dict(self) -> dict:
        # Every stored snapshot holds the rules: asdict is slow, and a table's rules never change.
        return {**_as_dict(self), "bot_delay": list(self.bot_delay)}

    @classmethod
    def from_dict(cls, d: dict) -> Rules:
        # Every stored snapshot holds its table's rules, and a few sets of rules serve all the
        # tables: restoring 10,000 games checked the same few again and again (20 µs each).
        try:
            key = tuple((k, v.__class__, tuple(v) if v.__class__ is list else v)
                        for k, v in d.items())
            return _READ[key]
        except TypeError:   # an unhashable value: the checks below refuse it
            return cls(**d)
        except KeyError:
            rules = cls(**d)
            if len(_READ) < _READ_KEPT:
                _READ[key] = rules
            return rules

    def scaled(self, factor: float) -> Rules:
        """The same table with every timer multiplied by `factor` (tests and demos run fast)."""
        return replace(
            self,
            throw_in_seconds=self.throw_in_seconds * factor,
            close_grace_seconds=self.close_grace_seconds * factor,
            turn_seconds=self.turn_seconds * factor,
            bot_delay=(self.bot_delay[0] * factor, self.bot_delay[1] * factor),
        )


_READ: dict[tuple, Rules] = {}   # Rules.from_dict's: the rules read so far, by what they said
_READ_KEPT = 256


@cache
def _as_dict(rules: Rules) -> dict:
    d = asdict(rules)
    d["variant"], d["throw_in"] = str(rules.variant), str(rules.throw_in)
    return d


def _positive_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0
