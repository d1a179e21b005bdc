"""Each Telegram update handled at most once, and a stop that lets the updates under way finish.

Telegram offers an update until a later getUpdates confirms it, and aiogram confirms a batch only
with its next request, so a bot killed meanwhile is offered that batch again after its restart.
The store records every update as it is taken on (`store.updates.claim`); one offered again is
skipped, so a tap is never applied twice. An update that was under way when the bot was killed
is lost rather than doubled: its player sees no answer and taps again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.dispatcher.event.bases import UNHANDLED
from aiogram.types import Update

from tg_durak.storage import Store, StoreUnavailable

log = logging.getLogger(__name__)

CANCELLED_SECONDS = 0.25   # for a cancelled update to leave (roll back its transaction)


class Delivery(BaseMiddleware):
    """The dispatcher's outer middleware for updates: see the module docstring."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._under_way: set[asyncio.Task] = set()   # each update is handled in its own task
        self._idle = asyncio.Event()
        self._idle.set()

    async def __call__(self, handler: Callable[[Update, dict[str, Any]], Awaitable[Any]],
                       event: Update, data: dict[str, Any]) -> Any:
        task = asyncio.current_task()
        assert task is not None
        self._under_way.add(task)
        self._idle.clear()
        try:
            if not await self._first_time(event.update_id):
                log.info("update %s was taken on before a restart; skipped", event.update_id)
                return UNHANDLED
            return await handler(event, data)
        finally:
            self._under_way.discard(task)
            if not self._under_way:
                self._idle.set()

    async def _first_time(self, update_id: int) -> bool:
        try:
            return await self._store.updates.claim(update_id)
        except StoreUnavailable:
            # Unknown; handling it is better than losing it, and whatever it changes meets the
            # same refusal, which its handler answers.
            log.warning("update %s: cannot record it as handled", update_id)
            return True

    async def drain(self, timeout: float) -> int:
        """Wait until no update is under way, at most `timeout` seconds; then the ones left
        (stuck on Telegram or the database) are cancelled. Returns how many were."""
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
            return 0
        except TimeoutError:
            stuck = list(self._under_way)
        log.warning("stopping: %d update(s) still under way are abandoned", len(stuck))
        for task in stuck:
            task.cancel()
        await asyncio.wait(stuck, timeout=CANCELLED_SECONDS)
        return len(stuck)
