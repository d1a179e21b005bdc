"""When each running table or open lobby next needs a process: kept with the table, so that any
live process claims the ones whose time has come (several processes share the database, and the
one that last changed a table may have died since)."""

from __future__ import annotations

from tg_durak.storage.connection import Connection, placeholders

_DUE = "status IN ('lobby', 'running') AND wake_at <= ?"


class Wakes:
    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    async def claim_due(self, now: float, *, late_by: float, lease: float,
                        limit: int) -> list[int]:
        """The tables due `late_by` seconds before `now`, at most `limit`
        of them, the most overdue first; each is put off for `lease` seconds, so that nobody
        else claims it meanwhile (its wake then stores its next time). Rows another transaction
        holds are passed over, not waited for."""
        skip = self._connection.dialect.skip_locked
        async with self._connection.transaction() as db:
            rows = await db.fetchall(
                f"SELECT id FROM tables WHERE {_DUE} ORDER BY wake_at, id"
                f" LIMIT ?{skip}", (now - late_by, limit))
            ids = [table_id for (table_id,) in rows]
            await db.executemany("UPDATE tables SET wake_at = ? WHERE id = ?",
                                 [(now + lease, table_id) for table_id in ids])
        return ids

    async def set(self, table_id: int, at: float | None) -> None:
        """The table's next time (None: nothing is due until someone acts on it)."""
        async with self._connection.statement() as db:
            await db.execute("UPDATE tables SET wake_at = ? WHERE id = ?", (at, table_id))

    async def hand_over(self, table_ids: list[int], late_by: float) -> None:
        """A process stops: the tables it held come due for the others `late_by` earlier, at
        their own time (the others take up only what is that late)."""
        if table_ids:
            async with self._connection.statement() as db:
                await db.execute(
                    f"UPDATE tables SET wake_at = wake_at - ? WHERE id IN"
                    f" ({placeholders(table_ids)}) AND wake_at IS NOT NULL",
                    (late_by, *table_ids))
