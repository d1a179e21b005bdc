"""Actions a seat can take, events the engine reports, and the error for an illegal move."""

from __future__ import annotations

from typing import NamedTuple

from engine.cards import CARDS, Card

KINDS = ("attack", "defend", "transfer", "show_trump", "take", "pass")


class Action(NamedTuple):
    """One move. `target` is the index into `game.table` that a "defend" card beats."""

    kind: str
    card: Card | None = None
    target: int | None = None

    def __str__(self) -> str:
        parts = [self.kind]
        if self.card is not None:
            parts.append(str(self.card))
        if self.target is not None:
            parts.append(f"@{self.target}")
        return " ".join(parts)


class Event(NamedTuple):
    """Something that happened: what the app tells players ("Bot 2 transferred with 7♥")."""

    kind: str
    seat: int | None = None
    card: Card | None = None
    other: object = None


class IllegalMove(ValueError):
    """A move the rules do not allow now; the message is a reason a player can read.

    `code` names the reason so the app can show it in the player's language.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


# Shared instances keep legal_actions() allocation-free on the hot path.
MAX_TABLE = 6
TAKE = Action("take")
PASS = Action("pass")
ATTACK = tuple(Action("attack", c) for c in CARDS)
TRANSFER = tuple(Action("transfer", c) for c in CARDS)
SHOW_TRUMP = tuple(Action("show_trump", c) for c in CARDS)
DEFEND = tuple(tuple(Action("defend", c, t) for t in range(MAX_TABLE)) for c in CARDS)
