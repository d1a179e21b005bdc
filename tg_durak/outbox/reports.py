"""What Telegram's answers tell about chats and messages: the publisher reports each here in the
order it met them, and the table service acts on them (tables/chats.py).

A queue between the two, built before either, because each is built on the other's side of a
circle: the table service shows its screens through the publisher, and what the publisher meets
(a fresh message's id, a chat that refuses the bot, a group that became a supergroup) changes
the tables. While the service reads, a report is acted on before the publisher sends on (a
fresh message's id is stored before the next screen of any process may look for it); before the
service reads and after it stopped, reports wait for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
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
        self._queue: asyncio.Queue[tuple[OutboxReport, asyncio.Future[None] | None]] = (
            asyncio.Queue())
        self._read = False

    async def put(self, report: OutboxReport) -> None:
        """The report, acted on by the time this returns while the service reads (else it
        waits in the queue)."""
        if not self._read:
            self._queue.put_nowait((report, None))
            return
        acted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((report, acted))
        await acted

    def serve(self, act: Callable[[OutboxReport], Awaitable[None]]) -> asyncio.Task[None]:
        """From now on, until the task is cancelled: `act` on each report, in order (what
        waited before comes first)."""
        self._read = True
        return asyncio.create_task(self._serve(act))

    async def _serve(self, act: Callable[[OutboxReport], Awaitable[None]]) -> None:
        try:
            while True:
                report, acted = await self._queue.get()
                acting = asyncio.ensure_future(act(report))
                try:
                    await asyncio.shield(acting)
                except asyncio.CancelledError:   # a stop: never a report half acted on
                    await acting
                    raise
                finally:
                    if acted is not None and not acted.done():
                        acted.set_result(None)
        finally:
            self._read = False

    def waiting(self) -> list[OutboxReport]:
        """The reports not taken yet, taken now (a stop acts on them before it ends); whoever
        waits for one goes on."""
        taken = []
        while not self._queue.empty():
            report, acted = self._queue.get_nowait()
            if acted is not None and not acted.done():
                acted.set_result(None)
            taken.append(report)
        return taken
