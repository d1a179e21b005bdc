"""A private game's setup: the variant, how many computer opponents, how strong they are."""

from __future__ import annotations

from dataclasses import dataclass

VARIANTS = ("throw-in", "transfer")
LEVELS = ("easy", "normal", "hard")
# The engine seats at most 6 players (R1.2) and one of them is the person. Until the engine
# exports its MAX_PLAYERS, the number is written here, and only here.
MAX_OPPONENTS = 5


@dataclass(frozen=True)
class PlaySettings:
    """Saved per user as the "last settings"; anything unreadable falls back to the default."""

    variant: str = "throw-in"
    bots: int = 1
    level: str = "normal"

    @classmethod
    def from_dict(cls, d: dict | None) -> PlaySettings:
        d = d or {}
        variant = d.get("variant") if d.get("variant") in VARIANTS else cls.variant
        bots = d.get("bots")
        if not (isinstance(bots, int) and 1 <= bots <= MAX_OPPONENTS):
            bots = cls.bots
        level = d.get("level") if d.get("level") in LEVELS else cls.level
        return cls(variant, bots, level)

    def to_dict(self) -> dict:
        return {"variant": self.variant, "bots": self.bots, "level": self.level}
