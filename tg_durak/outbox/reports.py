"""What Telegram's answers tell about chats and messages: the publisher reports each here in the
order it met them, and the table service acts on them (tables/chats.py).

A queue between the two, built before either, because each is built on the other's side of a
circle: the table service shows its screens through the publisher, and what the publisher meets
(a fresh message's id, a chat that refuses the bot, a group that became a supergroup) changes
the tables.
"""

from __future__ import annotations

import asyncio
from collections.abc import Hashable
from dataclasses import dataclass


@dataclass(frozen=True)
class MessageSent:
    """A fresh message now shows `key`: its id, for later edits."""

    key: Hashable
    chat_id: int
    message_id: int


@dataclass(frozen=True)
class ChatRefused:
    """A 403: a person blocked the bot, or the bot left a group."""

    chat_id: int


@dataclass(frozen=True)
class ChatMigrated:
    """A group became a supergroup (the screen goes afresh to the new chat)."""

    old_chat_id: int
    new_chat_id: int


OutboxReport = MessageSent | ChatRefused | ChatMigrated


class OutboxReports:
    def __init__(self) -> None:
        self._queue: asyncio.Queue[OutboxReport] = asyncio.Queue()

    def put(self, report: OutboxReport) -> None:
        self._queue.put_nowait(report)

    async def next(self) -> OutboxReport:
        return await self._queue.get()

    def waiting(self) -> list[OutboxReport]:
        """The reports not taken yet, taken now (a stop acts on them before it ends)."""
        taken = []
        while not self._queue.empty():
            taken.append(self._queue.get_nowait())
        return taken
