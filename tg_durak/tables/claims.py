"""The Telegram update being handled, claimed in the transaction of the change it makes.

Telegram offers an update again until one offer is answered with a 2xx; with several processes
on one database (a webhook behind a load balancer) two offers may even be handled at once. So on
a shared database the update's claim (`store.updates.claim`) is written inside the first table
lock its handler takes (`TableCore.lock`): the change and the claim commit together or not at
all, and a second offer meets the first's claim under the same lock and changes nothing
(`AlreadyHandled`). An update that changes no table is claimed once its handler is done
(telegram.update_claims).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from tg_durak.storage import Store


class AlreadyHandled(Exception):
    """Another offer of this update was applied already: nothing of this one is."""


@dataclass
class PendingClaim:
    update_id: int
    task: asyncio.Task | None
    claimed: bool = False


_PENDING: ContextVar[PendingClaim | None] = ContextVar("tg_durak_update", default=None)


@contextmanager
def handling(update_id: int) -> Iterator[PendingClaim]:
    """While the current task handles the update `update_id`: its claim waits for the first
    table change (or for the end, see `PendingClaim.claimed`)."""
    pending = PendingClaim(update_id, asyncio.current_task())
    token = _PENDING.set(pending)
    try:
        yield pending
    finally:
        _PENDING.reset(token)


async def claim_with_change(store: Store) -> None:
    """Inside a table's lock on a shared database: claim the update this task handles, if it
    was not claimed yet. AlreadyHandled if it was, by another offer."""
    pending = _PENDING.get()
    if pending is None or pending.claimed or pending.task is not asyncio.current_task():
        return
    if not await store.updates.claim(pending.update_id):
        raise AlreadyHandled(f"update {pending.update_id} was applied already")
    pending.claimed = True
