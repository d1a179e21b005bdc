"""A running table's change as its statements: the snapshot updated at the version the change
was made on, its entries appended to the log and, at the table's end, its results written."""

from __future__ import annotations

import time
from collections.abc import Sequence

from tg_durak.play.rows import TableChange, TableStatus
from tg_durak.storage.columns import dumps, member
from tg_durak.storage.connection import Session, placeholders
from tg_durak.storage.errors import StaleVersion
from tg_durak.storage.results import Results

# A change's own condition is the version it was made on (and a running table).
_RECORD_UPDATE = (
    "UPDATE tables SET snapshot = ?, version = ?, status = ?, updated_at = ?,"
    " finished_at = CASE WHEN ? = 'running' THEN NULL ELSE ? END"
    " WHERE id = ? AND version = ? AND status = 'running'")


def _record_params(change: TableChange, now: float) -> tuple:
    return (dumps(change.snapshot), change.expected_version + len(change.entries),
            change.status, now, change.status, now, change.table_id, change.expected_version)


async def _append(db: Session, changes: Sequence[TableChange], now: float) -> None:
    """The changes' entries at the end of their tables' logs, in one statement."""
    await db.executemany(
        "INSERT INTO actions (table_id, seq, entry, at) VALUES (?, ?, ?, ?)",
        [(c.table_id, c.expected_version + i, dumps(entry), now)
         for c in changes for i, entry in enumerate(c.entries, 1)])


class MovedMeanwhile(Exception):
    """A table of a group commit changed between its reading and its update."""


class ChangeWriter:
    """Writes changes inside the caller's transaction; a table's end writes its results
    through ``results``."""

    def __init__(self, results: Results) -> None:
        self._results = results

    async def one(self, db: Session, change: TableChange) -> int | StaleVersion:
        """One change: the new version, or why it was refused (nothing of it written)."""
        table_id, expected_version = change.table_id, change.expected_version
        now = time.time()
        # Every move comes here: the version check is the update's own condition, and results
        # are written only when there are some (each statement is a trip to SQLite's thread).
        changed = await db.execute(_RECORD_UPDATE, _record_params(change, now))
        if changed != 1:
            version, current_status = await _version_and_status(db, table_id)
            if version != expected_version:
                return StaleVersion(
                    f"table {table_id} is at version {version}, not {expected_version}")
            return StaleVersion(f"table {table_id} is {current_status}, not running")
        await _append(db, [change], now)
        if change.results:
            await self._results.write(db, table_id, change.results, now)
        return expected_version + len(change.entries)

    async def together(self, db: Session, changes: list[TableChange]
                       ) -> list[int | StaleVersion]:
        """Many tables' changes in a few statements whatever their number: their versions read
        at once, then one UPDATE and one INSERT for all that still fit (each statement is a trip
        to SQLite's thread, and under load these trips were the move's wait). MovedMeanwhile
        if a table changed after its reading: the caller rolls back."""
        ids = [c.table_id for c in changes]
        if len(changes) == 1 or len(set(ids)) != len(ids):
            return [await self.one(db, c) for c in changes]
        rows = await db.fetchall(
            f"SELECT id, version, status FROM tables WHERE id IN ({placeholders(ids)})", ids)
        stored = {table_id: (version, status) for table_id, version, status in rows}
        outcomes: list[int | StaleVersion] = []
        fit = []
        for c in changes:
            version, status = stored.get(c.table_id, (None, "gone"))
            if version != c.expected_version:
                outcomes.append(StaleVersion(
                    f"table {c.table_id} is at version {version}, not {c.expected_version}"))
            elif status != TableStatus.RUNNING:
                outcomes.append(StaleVersion(f"table {c.table_id} is {status}, not running"))
            else:
                outcomes.append(c.expected_version + len(c.entries))
                fit.append(c)
        if not fit:
            return outcomes
        now = time.time()
        changed = await db.executemany(_RECORD_UPDATE, [_record_params(c, now) for c in fit])
        if changed != len(fit):
            raise MovedMeanwhile()   # another connection's transaction (PostgreSQL's pool)
        await _append(db, fit, now)
        for c in fit:
            if c.results:
                await self._results.write(db, c.table_id, c.results, now)
        return outcomes

    @staticmethod
    async def all_or_none(db: Session, changes: Sequence[TableChange]) -> None:
        """Changes that keep their tables running, all or none: StaleVersion if any table
        moved or stopped meanwhile (the caller rolls back)."""
        now = time.time()
        changed = await db.executemany(_RECORD_UPDATE, [_record_params(c, now) for c in changes])
        if changed != len(changes):
            raise StaleVersion(f"{len(changes) - changed} of {len(changes)} tables"
                               " moved or stopped meanwhile")
        await _append(db, changes, now)


async def _version_and_status(db: Session, table_id: int) -> tuple[int, TableStatus]:
    row = await db.fetchone("SELECT version, status FROM tables WHERE id = ?", (table_id,))
    if row is None:
        raise LookupError(f"table {table_id} does not exist")
    return row[0], member(TableStatus, row[1], f"status of table {table_id}")
