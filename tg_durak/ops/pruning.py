"""DURAK_KEEP_DAYS: once a day one process deletes the action logs of the tables that ended more
than that many days ago (storage/privacy.py); their results and ratings stay.

Every process asks each hour; the store lets the first ask of a day (UTC) have it, so on a
database several processes share the day's pruning runs once, whichever of them lives.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from tg_durak.storage import Store
from tg_durak.tables.repeating import repeat

log = logging.getLogger(__name__)

DAY = 86400.0
ASK_SECONDS = 3600.0   # how often a process asks whether the day's pruning is still to do


async def prune_today(store: Store, keep_days: int, now: float) -> int | None:
    """The day's pruning, if this process is the one to do it: the tables whose logs went
    (None: another process has it)."""
    if not await store.privacy.claim_pruning(int(now // DAY)):
        return None
    pruned = await store.privacy.prune(now - keep_days * DAY)
    log.info("pruned the logs of %d tables that ended over %d days ago", pruned, keep_days)
    return pruned


async def prune_daily(store: Store, keep_days: int, clock: Callable[[], float] = time.time,
                      every: float = ASK_SECONDS) -> None:
    """`prune_today`, asked every `every` seconds for as long as the bot runs."""
    await repeat(lambda: prune_today(store, keep_days, clock()), every,
                 "the old logs were not pruned", log)
