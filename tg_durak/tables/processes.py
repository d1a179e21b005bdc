"""Each bot process's own heartbeat in the database, so that an operator sees how many run (the
meta 'alive_at' of tables/restart.py is only the latest of any)."""

from __future__ import annotations

import logging
import os
import socket
import time
import uuid
from collections.abc import Callable

from tg_durak.storage import Store, StoreUnavailable

log = logging.getLogger(__name__)

ALIVE_SECONDS = 15.0   # three heartbeats (app.py's HEARTBEAT_SECONDS) missed: not alive


class ProcessBeats:
    def __init__(self, store: Store, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock
        self.host = socket.gethostname()
        self.pid = os.getpid()
        # The pid alone may come back after a restart (a container's is often 1).
        self.name = f"{self.host}:{self.pid}:{uuid.uuid4().hex[:8]}"
        self.started_at = clock()

    async def beat(self) -> None:
        await self.store.operators.beat(self.name, self.host, self.pid, self.started_at,
                                        self.clock())

    async def stopped(self) -> None:
        try:
            await self.store.operators.stopped(self.name)
        except StoreUnavailable as exc:   # then it is not counted alive a few seconds later
            log.warning("process not marked stopped: %s", exc)

    async def alive(self) -> int:
        return await self.store.operators.alive(self.clock() - ALIVE_SECONDS)
