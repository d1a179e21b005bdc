"""Whether the PostgreSQL server answers, as one process sees it: the store's gate in an outage.

A server that crashed or restarts fails every statement. Left to itself, each scope would wait
for the pool (up to its timeout) and the pool would try to connect again with an exponential
back-off (1, 2, 4, 8 ... s), so a process noticed the server's return seconds late and logged a
failure per scope. Here the first failure that may be the server's own (a connection lost or
refused) has the server probed with a connection of its own: if that fails too, the log says
once that the database does not answer, every scope is refused at once (`DatabaseDown`) until
it does, and the server is probed every `RETRY_SECONDS`; the first probe that connects has the
pool's connections from before replaced (they are broken) and opens the gate again, with one
more line in the log. A failure of one connection while the server answers (a connection
killed, a PgBouncer restart) closes nothing: the caller meets a plain refusal.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from tg_durak.storage.errors import DatabaseDown

log = logging.getLogger(__name__)

# Seconds between two probes while the server does not answer: a process notices its return
# this soon after, whatever the outage's length.
RETRY_SECONDS = 0.5
# A probe that takes longer counts as no answer (a host that drops packets never refuses).
PROBE_SECONDS = 1.0


class ServerWatch:
    """`probe()`: True if a fresh connection to the server works; `reopen()`: what to do before
    the gate opens again (the pool's old connections closed)."""

    def __init__(self, probe: Callable[[], Awaitable[bool]],
                 reopen: Callable[[], Awaitable[None]]) -> None:
        self._probe = probe
        self._reopen = reopen
        self.down = False
        self._checking: asyncio.Future[bool] | None = None
        self._watching: asyncio.Task | None = None

    def refuse_if_down(self) -> None:
        """DatabaseDown while the server is known not to answer."""
        if self.down:
            raise DatabaseDown("PostgreSQL does not answer")

    async def answers(self, failure: BaseException) -> bool:
        """After `failure`, which may be the server's: whether the server answers. One probe
        serves every scope that failed meanwhile; when it fails, the gate closes."""
        if self.down:
            return False
        checking = self._checking
        if checking is None:
            checking = self._checking = asyncio.ensure_future(self._check(failure))
            checking.add_done_callback(self._checked)
        # A caller cancelled meanwhile leaves the probe to the others.
        return await asyncio.shield(checking)

    async def connect_failed(self, _pool: object) -> None:
        """The pool's call when it could not make a connection."""
        await self.answers(DatabaseDown("a pooled connection cannot be made"))

    def _checked(self, _: asyncio.Future[bool]) -> None:
        self._checking = None

    async def _check(self, failure: BaseException) -> bool:
        if await self._answers():
            return True
        self.down = True
        log.error("PostgreSQL does not answer (%s): every change is refused until it does, "
                  "trying again every %.1fs", " ".join(str(failure).split())
                  or type(failure).__name__, RETRY_SECONDS)
        self._watching = asyncio.create_task(self._until_back())
        return False

    async def _until_back(self) -> None:
        loop = asyncio.get_running_loop()
        since = loop.time()
        while not await self._answers():
            await asyncio.sleep(RETRY_SECONDS)
        try:
            await self._reopen()
        finally:
            self.down = False
        log.warning("PostgreSQL answers again after %.1fs", loop.time() - since)

    async def _answers(self) -> bool:
        try:
            async with asyncio.timeout(PROBE_SECONDS):
                return await self._probe()
        except TimeoutError:
            return False

    async def close(self) -> None:
        for task in (self._watching, self._checking):
            if task is not None:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
