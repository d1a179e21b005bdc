"""Table options (RULES.md marks them *default*); everything else in the rules is fixed."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

VARIANTS = ("throw-in", "transfer")
THROW_IN = ("all", "neighbours")


@dataclass(frozen=True)
class Rules:
    variant: str = "throw-in"
    players: int = 2
    deck: int = 36
    max_attack: int = 6
    first_round_limit: int = 6
    throw_in: str = "all"
    show_trump: bool = False
    throw_in_seconds: float = 8.0
    close_grace_seconds: float = 1.0
    turn_seconds: float = 30.0
    bot_delay: tuple[float, float] = (1.5, 3.0)
    no_draws: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "bot_delay", tuple(self.bot_delay))
        problems = []
        if self.variant not in VARIANTS:
            problems.append(f"variant must be one of {VARIANTS}")
        if self.deck not in (24, 36, 52):
            problems.append("deck must be 24, 36 or 52")
        if not (isinstance(self.players, int) and 2 <= self.players <= 6):
            problems.append("players must be 2 to 6")
        elif self.deck == 24 and self.players > 4:
            problems.append("a 24-card deck seats at most 4 players (R1.1)")
        if not (isinstance(self.max_attack, int) and 1 <= self.max_attack <= 6):
            problems.append("max_attack must be 1 to 6")
        if not (isinstance(self.first_round_limit, int) and 1 <= self.first_round_limit <= 6):
            problems.append("first_round_limit must be 1 to 6")
        if self.throw_in not in THROW_IN:
            problems.append(f"throw_in must be one of {THROW_IN}")
        if not isinstance(self.show_trump, bool) or not isinstance(self.no_draws, bool):
            problems.append("show_trump and no_draws must be booleans")
        elif self.show_trump and self.variant != "transfer":
            problems.append("show_trump belongs to the transfer game (R9.7)")
        for name in ("throw_in_seconds", "close_grace_seconds", "turn_seconds"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
                problems.append(f"{name} must be a positive number")
        low_high = self.bot_delay
        if (len(low_high) != 2 or not all(isinstance(x, int | float) for x in low_high)
                or not 0 <= low_high[0] <= low_high[1]):
            problems.append("bot_delay must be (low, high) with 0 <= low <= high")
        if problems:
            raise ValueError("; ".join(problems))

    def to_dict(self) -> dict:
        d = asdict(self)
        d["bot_delay"] = list(self.bot_delay)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Rules:
        return cls(**d)

    def scaled(self, factor: float) -> Rules:
        """The same table with every timer multiplied by `factor` (tests and demos run fast)."""
        return replace(
            self,
            throw_in_seconds=self.throw_in_seconds * factor,
            close_grace_seconds=self.close_grace_seconds * factor,
            turn_seconds=self.turn_seconds * factor,
            bot_delay=(self.bot_delay[0] * factor, self.bot_delay[1] * factor),
        )
