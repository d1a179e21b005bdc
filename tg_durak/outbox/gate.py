"""What the publisher asks before a request when it shares the bot token with other processes
(outbox.redis_gate): the shared budgets and the message's lease. None in one process: then the
process's own budgets (outbox.budgets) are the whole story.
"""

from __future__ import annotations

from collections.abc import Hashable
from enum import StrEnum
from typing import NamedTuple, Protocol


class HeldBy(StrEnum):
    """What holds a request back."""

    BOT = "bot"           # the bot's budget
    CHAT = "chat"         # its chat's budget
    MESSAGE = "message"   # its message: another process is sending it
    STALE = "stale"       # nothing: a newer screen was sent meanwhile


class Verdict(NamedTuple):
    """Whether a request may go; else for how long (seconds) and what holds it."""

    go: bool
    wait: float = 0.0
    held_by: HeldBy | None = None
    ticket: object = None  # what `done` needs to give back what `admit` took


class SharedGate(Protocol):
    def stamp(self, key: Hashable, version: int | None) -> object:
        """When a screen is queued: its stamp (or what will be it), later passed to admit."""

    async def admit(self, key: Hashable, chat_id: int, stamp: object) -> Verdict:
        """Before a request: a place in the shared budgets and the message's lease (none for a
        ``stamp`` None: a one-off message that no other process writes)."""

    async def done(self, verdict: Verdict) -> None:
        """The admitted request's answer came (or it failed)."""

    async def flooded(self, chat_id: int | None, retry_after: float) -> None:
        """A 429: every process pauses the chat (None: the bot)."""
