"""Tables: their engine snapshot, seats and append-only action log, from creation to the end,
and the readings a restart and the check make of them."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Collection, Sequence

from tg_durak.play.ratings import Result
from tg_durak.play.rows import (
    SeatRow,
    SeatStatus,
    TableChange,
    TableKind,
    TableRecord,
    TableRow,
    TableStatus,
)
from tg_durak.storage.changes import ChangeWriter
from tg_durak.storage.columns import (
    RUNNING_IDS,
    TABLE_COLUMNS,
    check,
    check_seats,
    dumps,
    loads,
    member,
    read_seats,
    read_table,
    seat_row,
    table_row,
    write_seats,
)
from tg_durak.storage.connection import Connection, Session, only_row, placeholders
from tg_durak.storage.errors import CorruptRow, StaleVersion
from tg_durak.storage.group_commit import GroupCommit
from tg_durak.storage.lobbies import check_free
from tg_durak.storage.results import Results, check_results

log = logging.getLogger(__name__)

OPEN = (TableStatus.LOBBY, TableStatus.RUNNING)
_ENDED = (TableStatus.FINISHED, TableStatus.ABORTED)


def _in_order(seqs: str, entries: list) -> list:
    """`entries` by their seqs (`seqs`: theirs, comma-separated, in the same order); ValueError
    if the two disagree in number (an entry that is not one JSON value)."""
    if seqs == ",".join(map(str, range(1, len(entries) + 1))):
        return entries   # as SQLite has always given them
    order = [int(seq) for seq in seqs.split(",")]
    if len(order) != len(entries):
        raise ValueError(f"{len(order)} entries read as {len(entries)}")
    return [entry for _, entry in sorted(zip(order, entries, strict=True),
                                         key=lambda pair: pair[0])]


async def _log(db: Session, table_id: int) -> list[list]:
    rows = await db.fetchall(
        "SELECT seq, entry FROM actions WHERE table_id = ? ORDER BY seq", (table_id,))
    return [loads(entry, f"action {seq} of table {table_id}") for seq, entry in rows]


class Tables:
    """Tables and their logs; a table's end writes its results through ``results``."""

    def __init__(self, connection: Connection, results: Results) -> None:
        self._connection = connection
        self._results = results
        self._changes = ChangeWriter(results)
        self._group_commit = GroupCommit(connection, self._changes)

    async def create(
        self,
        chat_id: int,
        kind: TableKind,
        status: TableStatus,
        options: dict,
        seats: list[SeatRow],
        snapshot: dict | None,
        *,
        one_table: bool = False,
        unplayable: Collection[int] = (),
    ) -> TableRow:
        """A new table at version 0 (its action log is empty). `one_table` (a private game):
        AlreadySeated, and nothing written, if one of its people has a seat at another open
        table, read under his seat lock as a lobby's seat does (storage/lobbies.py), so that
        a lobby or the quick games' claim of another process cannot seat him meanwhile;
        `unplayable`: tables that hold no seat in that check (their record is damaged)."""
        check(kind, tuple(TableKind), "kind")
        check(status, OPEN, "a new table's status")
        check_seats(seats)
        options_json = dumps(options)
        snapshot_json = None if snapshot is None else dumps(snapshot)
        now = time.time()
        async with self._connection.transaction() as db:
            if one_table:
                for user_id in sorted(s.user_id for s in seats if s.user_id is not None):
                    await check_free(db, self._connection.dialect, user_id, unplayable)
            (table_id,) = await only_row(
                db,
                "INSERT INTO tables (chat_id, kind, status, options, snapshot, version,"
                " created_at, updated_at, wake_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)"
                " RETURNING id",
                (chat_id, kind, status, options_json, snapshot_json, now, now, now),
            )
            await write_seats(db, table_id, seats)
            table = await read_table(db, table_id)
        assert table is not None
        return table

    async def record(self, change: TableChange) -> int:
        """Append the change's entries to the table's log and store its snapshot, atomically.

        The table must still be at the change's expected version and running, else StaleVersion
        and nothing is written. Its results (and the ratings they move) are written in the same
        transaction, so a game's last move, its results and the ratings stand or fall together.
        Returns the new version (the expected one plus the number of entries).

        Changes of other tables that come while one is being written wait for it and are then
        written together, in one transaction (a group commit): under load a commit serves many
        tables, and a move waits for one write, not for a queue of them. Each keeps its own
        version check; a stale one is refused alone.
        """
        check(change.status, (TableStatus.RUNNING, *_ENDED), "status")
        check_results(change.results)
        if self._connection.holding():   # the change commits with the transaction it is in
            async with self._connection.transaction() as db:
                outcome = await self._changes.one(db, change)
            if isinstance(outcome, StaleVersion):
                raise outcome
            return outcome
        return await self._group_commit.write(change)

    async def record_many(self, changes: Sequence[TableChange]) -> None:
        """`record` for many running tables in one transaction; the tables stay running.
        StaleVersion, and nothing written, if any of them moved.

        For a change made to every table at once: the postponement after a restart (R10.4).
        """
        if any(c.status != TableStatus.RUNNING or c.results for c in changes):
            raise ValueError("record_many keeps tables running; record ends one")
        async with self._connection.transaction() as db:
            await self._changes.all_or_none(db, changes)

    async def finish(self, table_id: int, status: TableStatus,
                     results: Sequence[Result]) -> None:
        """Close the table and store each person's (user_id, outcome, place).

        The people's ratings move in the same transaction (see `Results.write`); a table moves
        ratings once.
        """
        check(status, _ENDED, "status")
        check_results(results)
        now = time.time()
        async with self._connection.transaction() as db:
            changed = await db.execute(
                "UPDATE tables SET status = ?, updated_at = ?,"
                " finished_at = COALESCE(finished_at, ?) WHERE id = ?",
                (status, now, now, table_id),
            )
            if changed == 0:
                raise LookupError(f"table {table_id} does not exist")
            await self._results.write(db, table_id, results, now)

    async def state(self, table_id: int) -> tuple[int, TableStatus] | None:
        """The table's stored version and status (None: no such table)."""
        async with self._connection.reading() as db:
            row = await db.fetchone("SELECT version, status FROM tables WHERE id = ?",
                                    (table_id,))
        if row is None:
            return None
        return row[0], member(TableStatus, row[1], f"status of table {table_id}")

    async def get(self, table_id: int) -> TableRow | None:
        """The table, or None; CorruptRow if a stored value of it cannot be read."""
        async with self._connection.reading() as db:
            return await read_table(db, table_id)

    async def log(self, table_id: int) -> list[list]:
        """The table's action log, oldest first."""
        async with self._connection.reading() as db:
            return await _log(db, table_id)

    async def since(self, table_id: int, version: int) -> tuple[TableRow, list[list]] | None:
        """The table (as `get`) and the log entries written after `version`, oldest first:
        what a game held at that version lacks. The entries come with the table's row, in
        one statement (as `running_logs` joins them), not in a trip of their own: a process
        sharing a table with others round robin catches it up at nearly every change."""
        joined = self._connection.dialect.joined
        async with self._connection.reading() as db:
            row = await db.fetchone(
                f"SELECT {TABLE_COLUMNS}, a.seqs, a.entries FROM tables LEFT JOIN"
                f" (SELECT table_id, {joined('seq')} AS seqs,"
                f" '[' || {joined('entry')} || ']' AS entries"
                " FROM (SELECT table_id, seq, entry FROM actions"
                " WHERE table_id = ? AND seq > ? ORDER BY seq) AS o"
                " GROUP BY table_id) AS a ON a.table_id = tables.id WHERE tables.id = ?",
                (table_id, version, table_id))
            if row is None:
                return None
            table = table_row(row[:-2], await read_seats(db, table_id))
        seqs, entries = row[-2:]
        if seqs is None:
            return table, []
        try:
            return table, _in_order(seqs, loads(entries, f"the log of table {table_id}"))
        except ValueError as exc:
            raise CorruptRow(f"the log of table {table_id}: {exc}") from exc

    async def for_user(self, user_id: int,
                       statuses: Sequence[TableStatus] = OPEN) -> TableRow | None:
        """The newest table in one of ``statuses`` where the user has a seat."""
        async with self._connection.reading() as db:
            row = await db.fetchone(
                "SELECT t.id FROM tables t JOIN seats s ON s.table_id = t.id"
                f" WHERE s.user_id = ? AND t.status IN ({placeholders(statuses)})"
                " ORDER BY t.id DESC LIMIT 1",
                (user_id, *statuses),
            )
            return None if row is None else await read_table(db, row[0])

    async def seated_at(self, user_id: int) -> int | None:
        """The open table (lobby or running) where the user still has his seat."""
        async with self._connection.reading() as db:
            row = await db.fetchone(
                "SELECT t.id FROM tables t JOIN seats s ON s.table_id = t.id"
                " WHERE s.user_id = ? AND s.status = 'playing'"
                " AND t.status IN ('lobby', 'running') ORDER BY t.id DESC LIMIT 1", (user_id,))
        return None if row is None else row[0]

    async def set_seat_status(self, table_id: int, seat: int, status: SeatStatus) -> None:
        """A person left ("left") or was removed ("kicked"); his seat row stays, for the results."""
        check(status, tuple(SeatStatus), "seat status")
        async with self._connection.transaction() as db:
            changed = await db.execute(
                "UPDATE seats SET status = ?, left_at = ?"
                " WHERE table_id = ? AND seat = ? AND user_id IS NOT NULL",
                (status, None if status == SeatStatus.PLAYING else time.time(), table_id, seat),
            )
            if changed == 0:
                raise LookupError(f"table {table_id} has no person in seat {seat}")

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> None:
        """A group became a supergroup: its tables and their messages follow it to the new id."""
        async with self._connection.transaction() as db:
            await db.execute("UPDATE tables SET chat_id = ? WHERE chat_id = ?",
                             (new_chat_id, old_chat_id))
            await db.execute("UPDATE messages SET chat_id = ? WHERE chat_id = ?",
                             (new_chat_id, old_chat_id))

    # Resuming reads every running table at once: a few queries for all of them, not a few
    # for each (10,000 tables are re-armed within a couple of seconds).

    async def running(self) -> list[TableRow]:
        """Every running table (to resume after a restart); unreadable ones are logged, skipped."""
        async with self._connection.reading() as db:
            rows = await db.fetchall(
                f"SELECT {TABLE_COLUMNS} FROM tables WHERE status = 'running' ORDER BY id")
            seat_rows = await db.fetchall(
                "SELECT s.table_id, s.seat, s.user_id, s.name, s.level, s.status FROM seats s"
                f" WHERE s.table_id IN ({RUNNING_IDS}) ORDER BY s.table_id, s.seat")
        seats: dict[int, list[Sequence]] = {}
        for table_id, *seat in seat_rows:
            seats.setdefault(table_id, []).append(seat)
        tables = []
        for row in rows:
            try:
                tables.append(table_row(row, tuple(seat_row(row[0], seat)
                                                   for seat in seats.get(row[0], ()))))
            except CorruptRow:
                log.exception("skipping table %s", row[0])
        return tables

    async def running_logs(self) -> dict[int, list]:
        """Every running table's action log, oldest entry first, by table id (a table without
        entries is left out); a log with an unreadable entry is logged and left out too."""
        # One JSON array of entries per table, put together by the database (ten thousand
        # decodings, not hundreds of thousands), and beside it their seqs, joined in the same
        # order: the database promises no order, so it is checked.
        joined = self._connection.dialect.joined
        async with self._connection.reading() as db:
            rows = await db.fetchall(
                f"SELECT table_id, {joined('seq')}, '[' || {joined('entry')} || ']'"
                " FROM (SELECT table_id, seq, entry FROM actions"
                f" WHERE table_id IN ({RUNNING_IDS}) ORDER BY table_id, seq) AS a"
                " GROUP BY table_id")
        logs = {}
        for table_id, seqs, entries in rows:
            try:
                logs[table_id] = _in_order(seqs, json.loads(entries))
            except (TypeError, ValueError):
                log.exception("table %s: its log is not valid JSON", table_id)
        return logs

    async def finished_since(self, since: float) -> list[TableRow]:
        """Tables that finished (all played) at wall time `since` or later, oldest first;
        unreadable ones are logged and skipped."""
        tables = []
        async with self._connection.reading() as db:
            rows = await db.fetchall(
                "SELECT id FROM tables WHERE status = 'finished' AND finished_at >= ?"
                " ORDER BY finished_at, id", (since,))
            for (table_id,) in rows:
                try:
                    table = await read_table(db, table_id)
                except CorruptRow:
                    log.exception("skipping table %s", table_id)
                    continue
                if table is not None:
                    tables.append(table)
        return tables

    async def ids(self) -> list[int]:
        """Every table's id, whatever its status (to check them all, one at a time)."""
        async with self._connection.reading() as db:
            return [table_id for (table_id,) in await db.fetchall(
                "SELECT id FROM tables ORDER BY id")]

    async def whole(self, table_id: int) -> TableRecord | None:
        """The table, its log and its results as one consistent reading (a bot may be writing
        meanwhile); None if there is no such table. CorruptRow if a stored value cannot be
        read."""
        async with self._connection.reading(consistent=True) as db:
            row = await read_table(db, table_id)
            if row is None:
                return None
            return TableRecord(row, await _log(db, table_id),
                               await self._results.of_table(db, table_id))
