"""Bans and maintenance, as every process sees them.

Both live in the database (several webhook processes share it): each process reads them again
at most every `REFRESH_SECONDS`, and its own changes at once. A ban takes the person out of
play: his lobby drops him and his running table goes on with a computer in his seat (a private
game ends), through the same hand-over as /leave and Resign (tables/absences.py). Maintenance
stops new games and lobbies until it is switched off or its minutes have passed; running games
go on.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from tg_durak.play.operators import BotFigures, OperatorAction, minutes_of
from tg_durak.storage import DatabaseDown, Store, StoreUnavailable
from tg_durak.storage.operators import FOREVER
from tg_durak.tables.absences import Absences
from tg_durak.tables.core import TableCore
from tg_durak.tables.live import LiveLobby, LiveTable

log = logging.getLogger(__name__)

REFRESH_SECONDS = 2.0
DAY = 86400.0


@dataclass(frozen=True)
class Restrictions:
    """What the database said at `read_at`."""

    banned: frozenset[int]
    maintenance_until: float | None   # FOREVER: until switched off
    read_at: float


class Moderation:
    def __init__(self, store: Store, core: TableCore, absences: Absences,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.core = core
        self.absences = absences
        self.clock = clock
        self._known = Restrictions(frozenset(), None, -math.inf)
        self._reading = asyncio.Lock()

    async def current(self) -> Restrictions:
        """The bans and maintenance, read again when older than REFRESH_SECONDS."""
        if self.clock() - self._known.read_at < REFRESH_SECONDS:
            return self._known
        async with self._reading:   # one read for all the updates that found it old
            if self.clock() - self._known.read_at >= REFRESH_SECONDS:
                try:
                    await self.refresh()
                except StoreUnavailable as exc:   # what was known holds until the next read
                    if not isinstance(exc, DatabaseDown):   # which the store logs itself
                        log.warning("bans and maintenance not read again: %s", exc)
                    self._known = replace(self._known, read_at=self.clock())
        return self._known

    async def refresh(self) -> None:
        read_at = self.clock()
        banned = await self.store.operators.banned()
        until = await self.store.operators.maintenance_until()
        self._known = Restrictions(banned, until, read_at)

    async def is_banned(self, user_id: int) -> bool:
        return user_id in (await self.current()).banned

    async def maintenance_left(self) -> float | None:
        """Seconds until maintenance ends (math.inf: until switched off); None: no
        maintenance, new games may start."""
        until = (await self.current()).maintenance_until
        if until is None:
            return None
        if until == FOREVER:
            return math.inf
        left = until - self.clock()
        return left if left > 0 else None

    async def ban(self, user_id: int, by: int) -> bool:
        """Whether he was not banned before. Either way he is out of every lobby and table."""
        added = await self.store.operators.ban(user_id, by, self.clock())
        await self.refresh()
        live = await self.core.find_for(user_id)
        if isinstance(live, LiveLobby):
            await self.absences.leave_game(user_id)
        elif isinstance(live, LiveTable):
            await self.absences.resign(user_id)
        return added

    async def unban(self, user_id: int, by: int) -> bool:
        removed = await self.store.operators.unban(user_id, by, self.clock())
        await self.refresh()
        return removed

    async def set_maintenance(self, minutes: int | None, by: int, on: bool = True) -> None:
        """Maintenance for `minutes` (None: until switched off), or off."""
        now = self.clock()
        until = None if not on else FOREVER if minutes is None else now + 60 * minutes
        await self.store.operators.set_maintenance(until, by, now)
        await self.refresh()

    async def figures(self, operator: int, processes_alive: int, errors_429: int,
                      answer_p99: float | None) -> BotFigures:
        """/opstats for `operator` (recorded): the shared database's figures beside this
        process's (given)."""
        ops = self.store.operators
        now = self.clock()
        await ops.record(operator, OperatorAction.OPSTATS, now)
        open_tables = await ops.tables_by_status()
        left = await self.maintenance_left()
        return BotFigures(
            tables_running=open_tables.get("running", 0),
            lobbies_open=open_tables.get("lobby", 0),
            players_today=await ops.players_since(now - now % DAY),   # since midnight UTC
            players_week=await ops.players_since(now - 7 * DAY),
            processes_alive=processes_alive, errors_429=errors_429, answer_p99=answer_p99,
            maintenance_minutes=None if left is None else 0 if left == math.inf
            else minutes_of(left),
            banned=len((await self.current()).banned))
