"""Lobbies: group tables before their start, seats taken and freed until one of them starts it."""

from __future__ import annotations

import time
from collections.abc import Collection

from tg_durak.play.rows import SeatRow, TableRow, TableStatus
from tg_durak.storage.columns import check_seats, dumps, read_table, write_seats
from tg_durak.storage.connection import Connection, Dialect, Session, lock, only_row
from tg_durak.storage.errors import AlreadySeated, LobbyClosed, LobbyFull


async def _open_lobby(db: Session, dialect: Dialect, table_id: int) -> None:
    """LobbyClosed unless the table is a lobby; it stays one until the transaction ends (a
    concurrent start or seat waits for it)."""
    row = await db.fetchone(f"SELECT status FROM tables WHERE id = ?{dialect.row_lock}",
                            (table_id,))
    if row is None or row[0] != TableStatus.LOBBY:
        raise LobbyClosed(f"table {table_id} is {'gone' if row is None else row[0]}")


async def check_free(db: Session, dialect: Dialect, user_id: int,
                     unplayable: Collection[int] = ()) -> None:
    """AlreadySeated if he has a seat at an open table, read under his seat lock until the
    transaction ends: two tables seating one person at once (two lobbies, a private game, the
    quick games' claim) are stored one after the other, and the second finds him seated.
    `unplayable`: tables that hold no seat (their record is damaged)."""
    await lock(db, dialect, f"tg_durak seat {user_id}")
    passed_over = "".join(" AND t.id <> ?" for _ in unplayable)
    row = await db.fetchone(
        "SELECT t.id FROM tables t JOIN seats s ON s.table_id = t.id"
        " WHERE s.user_id = ? AND s.status = 'playing' AND t.status IN ('lobby', 'running')"
        f"{passed_over} ORDER BY t.id DESC LIMIT 1",
        (user_id, *unplayable),
    )
    if row is not None:
        raise AlreadySeated(row[0])


async def _touched(db: Session, table_id: int) -> TableRow:
    await db.execute("UPDATE tables SET updated_at = ? WHERE id = ?", (time.time(), table_id))
    table = await read_table(db, table_id)
    assert table is not None
    return table


class Lobbies:
    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self._dialect = connection.dialect

    async def create(
        self,
        chat_id: int,
        host_id: int,
        options: dict,
        *,
        invite: str,
        expires_at: float,
        language: str,
        thread_id: int | None = None,
    ) -> TableRow:
        """A new, empty lobby (status 'lobby', kind 'group'); seats come with `add_seat`."""
        now = time.time()
        async with self._connection.transaction() as db:
            (table_id,) = await only_row(
                db,
                "INSERT INTO tables (chat_id, kind, status, options, version, created_at,"
                " updated_at, host_id, thread_id, invite, expires_at, language, wake_at)"
                " VALUES (?, 'group', 'lobby', ?, 0, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (chat_id, dumps(options), now, now, host_id, thread_id, invite, expires_at,
                 language, expires_at),
            )
            table = await read_table(db, table_id)
        assert table is not None
        return table

    async def add_seat(
        self, table_id: int, user_id: int | None, name: str, level: str | None, max_seats: int
    ) -> TableRow:
        """Seat a person (or a computer, user_id None) after the lobby's last seat.

        LobbyClosed if it is no lobby any more, LobbyFull at `max_seats`, AlreadySeated if the
        person has a seat at any open table (one table per person).
        """
        async with self._connection.transaction() as db:
            await _open_lobby(db, self._dialect, table_id)
            if user_id is not None:
                await check_free(db, self._dialect, user_id)
            count, seat = await only_row(
                db, "SELECT COUNT(*), COALESCE(MAX(seat) + 1, 0) FROM seats WHERE table_id = ?",
                (table_id,),
            )
            if count >= max_seats:
                raise LobbyFull(f"table {table_id} has {count} of {max_seats} seats taken")
            await write_seats(db, table_id, [SeatRow(seat, user_id, name, level)])
            return await _touched(db, table_id)

    async def remove_seat(self, table_id: int, seat: int) -> TableRow:
        """Free one seat of a lobby (LobbyClosed if it started or closed meanwhile)."""
        async with self._connection.transaction() as db:
            await _open_lobby(db, self._dialect, table_id)
            await db.execute("DELETE FROM seats WHERE table_id = ? AND seat = ?", (table_id, seat))
            return await _touched(db, table_id)

    async def set_options(self, table_id: int, options: dict) -> TableRow:
        async with self._connection.transaction() as db:
            await _open_lobby(db, self._dialect, table_id)
            await db.execute("UPDATE tables SET options = ? WHERE id = ?",
                             (dumps(options), table_id))
            return await _touched(db, table_id)

    async def start(self, table_id: int, seats: list[SeatRow], snapshot: dict) -> TableRow:
        """The lobby becomes a running table: its final seats and first snapshot, at once."""
        check_seats(seats)
        async with self._connection.transaction() as db:
            await _open_lobby(db, self._dialect, table_id)
            await db.execute("DELETE FROM seats WHERE table_id = ?", (table_id,))
            await write_seats(db, table_id, seats)
            await db.execute(
                "UPDATE tables SET status = 'running', snapshot = ?, expires_at = NULL"
                " WHERE id = ?",
                (dumps(snapshot), table_id),
            )
            return await _touched(db, table_id)

    async def close(self, table_id: int) -> bool:
        """Cancel or expire a lobby (status 'aborted'); False if it was no lobby any more."""
        now = time.time()
        async with self._connection.transaction() as db:
            changed = await db.execute(
                "UPDATE tables SET status = 'aborted', updated_at = ?, finished_at = ?"
                " WHERE id = ? AND status = 'lobby'",
                (now, now, table_id),
            )
            return changed == 1

    async def open_in_chat(self, chat_id: int) -> TableRow | None:
        """The chat's newest lobby or running group table."""
        return await self._first(
            "SELECT id FROM tables WHERE chat_id = ? AND kind = 'group'"
            " AND status IN ('lobby', 'running') ORDER BY id DESC LIMIT 1", (chat_id,))

    async def by_invite(self, invite: str) -> TableRow | None:
        """The table whose deep-link payload is `invite`, whatever became of it."""
        return await self._first("SELECT id FROM tables WHERE invite = ?", (invite,))

    async def unstarted(self) -> list[TableRow]:
        """Every lobby not yet started (to re-arm their expiry after a restart)."""
        async with self._connection.reading() as db:
            rows = await db.fetchall("SELECT id FROM tables WHERE status = 'lobby' ORDER BY id")
            tables = [await read_table(db, table_id) for (table_id,) in rows]
        return [t for t in tables if t is not None]

    async def _first(self, sql: str, params: tuple) -> TableRow | None:
        async with self._connection.reading() as db:
            row = await db.fetchone(sql, params)
            return None if row is None else await read_table(db, row[0])
