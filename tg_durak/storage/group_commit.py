"""Changes of different tables written together: those that come while one transaction is
being written wait for it, and then share the next one."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from tg_durak.play.rows import TableChange
from tg_durak.storage.changes import ChangeWriter, MovedMeanwhile
from tg_durak.storage.connection import Connection


class GroupCommit:
    """Under load a commit serves many tables, and a move waits for one write, not for a queue
    of them. Each change keeps its own version check; a stale one is refused alone."""

    def __init__(self, connection: Connection, changes: ChangeWriter) -> None:
        self._connection = connection
        self._changes = changes
        # The changes waiting for the next transaction, and the task writing them.
        self._queued: list[tuple[TableChange, asyncio.Future[int]]] = []
        self._writer: asyncio.Task | None = None

    async def write(self, change: TableChange) -> int:
        """The change written in the next transaction, with whatever else is queued by then:
        its table's new version; StaleVersion if it was refused, the transaction's error if
        that failed."""
        written = asyncio.get_running_loop().create_future()
        self._queued.append((change, written))
        if self._writer is None:
            self._writer = asyncio.create_task(self._write_queued())
        return await written

    async def _write_queued(self) -> None:
        try:
            while self._queued:
                batch, self._queued = self._queued, []
                changes = [change for change, _ in batch]
                outcomes: Sequence[int | Exception]
                try:
                    try:
                        async with self._connection.transaction() as db:
                            outcomes = await self._changes.together(db, changes)
                    except MovedMeanwhile:   # rolled back; each on its own then
                        async with self._connection.transaction() as db:
                            outcomes = [await self._changes.one(db, c) for c in changes]
                except Exception as exc:   # the transaction rolled back: none of them stands
                    outcomes = [exc] * len(batch)
                for (_, written), outcome in zip(batch, outcomes, strict=True):
                    if written.done():
                        continue   # its caller was cancelled (a stop)
                    if isinstance(outcome, Exception):
                        written.set_exception(outcome)
                    else:
                        written.set_result(outcome)
        finally:
            self._writer = None
