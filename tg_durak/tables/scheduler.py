"""One timer per table: wakes the table service at the table's next due time.

Due times are wall-clock (time.time()) and live in the game itself, so after a restart the
service re-arms every running table from its snapshot (R10.4). A wake the store refused (a
database down) is tried again `RETRY_SECONDS` later: the table's timers wait for the store.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from tg_durak.storage import DatabaseDown, StoreUnavailable

log = logging.getLogger(__name__)

RETRY_SECONDS = 1.0   # after the store refused a wake, the next try


class Scheduler:
    def __init__(
        self, wake: Callable[[int], Awaitable[None]], clock: Callable[[], float] = time.time
    ) -> None:
        self._wake = wake
        self._clock = clock
        self._timers: dict[int, asyncio.TimerHandle] = {}
        self._running: set[asyncio.Task] = set()
        self._closed = False

    def arm(self, table_id: int, at: float | None) -> None:
        """Wake for `table_id` at wall time `at` (replacing its earlier timer); None disarms."""
        old = self._timers.pop(table_id, None)
        if old is not None:
            old.cancel()
        if at is None or self._closed:
            return
        loop = asyncio.get_running_loop()
        delay = max(0.0, at - self._clock())
        self._timers[table_id] = loop.call_later(delay, self._fire, table_id)

    @property
    def armed(self) -> int:
        """How many tables have a timer set."""
        return len(self._timers)

    def _fire(self, table_id: int) -> None:
        self._timers.pop(table_id, None)
        task = asyncio.get_running_loop().create_task(self._run(table_id))
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def _run(self, table_id: int) -> None:
        try:
            await self._wake(table_id)
        except StoreUnavailable as exc:
            if not isinstance(exc, DatabaseDown):   # that one the store logged once
                log.warning("table %s: wake-up refused by the store: %s", table_id, exc)
            if table_id not in self._timers:   # nothing re-armed it meanwhile
                self.arm(table_id, self._clock() + RETRY_SECONDS)
        except Exception:
            log.exception("table %s: wake-up failed", table_id)

    async def close(self) -> None:
        self._closed = True
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        for task in list(self._running):
            task.cancel()
        await asyncio.gather(*self._running, return_exceptions=True)
