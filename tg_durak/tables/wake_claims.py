"""Timers nobody owns: every process claims, from the store, the tables whose time has passed
while the process that changed them last did not act (it died, or is stopping).

The process that changes a table arms its own timer for it (tables.scheduler) and stores the
table's next wake with the change (TableCore.lock). That timer fires on time while the process
lives; the store's copy is for the others: each polls it, claims a few tables that are overdue
by `LATE_SECONDS` with ``FOR UPDATE SKIP LOCKED`` (two processes never claim one table), puts
them off by a lease (a claimer that dies lets go) and wakes them. A wake under the table's lock
checks the stored version first, so a table woken twice changes once. No process is special:
any may die, none must run alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from tg_durak.storage import DatabaseDown, Store, StoreUnavailable
from tg_durak.tables.repeating import repeat

log = logging.getLogger(__name__)

POLL_SECONDS = 0.5   # how often each process looks
LATE_SECONDS = 1.5   # how late a table's own process may be before another takes it up
LEASE_SECONDS = 10.0  # a claimed table is another's again if its wake has not stored by then
BATCH = 50   # tables claimed at once; more wait for the next look


class WakeClaims:
    def __init__(self, store: Store, wake: Callable[[int], Awaitable[None]],
                 clock: Callable[[], float]) -> None:
        self._store = store
        self._wake = wake
        self._clock = clock
        self._task: asyncio.Task | None = None
        self._waking: set[asyncio.Task] = set()
        self.claimed = 0   # tables taken up from the store (stats)

    def start(self) -> None:
        self._task = asyncio.create_task(
            repeat(self.claim_once, POLL_SECONDS, "claiming due tables failed", log))

    async def claim_once(self) -> list[int]:
        """Claim the overdue tables and start waking each; their ids."""
        ids = await self._store.wakes.claim_due(self._clock(), late_by=LATE_SECONDS,
                                                lease=LEASE_SECONDS, limit=BATCH)
        self.claimed += len(ids)
        for table_id in ids:
            task = asyncio.create_task(self._run(table_id))
            self._waking.add(task)
            task.add_done_callback(self._waking.discard)
        return ids

    async def _run(self, table_id: int) -> None:
        try:
            await self._wake(table_id)
        except DatabaseDown:   # the store said so once; its lease runs out, someone tries again
            pass
        except StoreUnavailable as exc:
            log.warning("table %s: claimed wake-up refused by the store: %s", table_id, exc)
        except Exception:   # its lease runs out and someone tries again
            log.exception("table %s: claimed wake-up failed", table_id)

    async def close(self) -> None:
        """Stop looking; the wakes under way finish (what they claimed is theirs to store)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._waking:
            await asyncio.wait(self._waking, timeout=1.0)
