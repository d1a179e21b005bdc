"""The records' stored form, shared by the repositories: JSON columns, a table with its seats."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Sequence
from enum import StrEnum
from typing import Any, TypeVar

from tg_durak.play.rows import SeatRow, SeatStatus, TableKind, TableRow, TableStatus
from tg_durak.storage.connection import Session
from tg_durak.storage.errors import CorruptRow

TABLE_COLUMNS = ("id, chat_id, kind, status, options, snapshot, version, created_at, updated_at,"
                 " host_id, thread_id, invite, expires_at, language")
SEAT_COLUMNS = "seat, user_id, name, level, status"
RUNNING_IDS = "SELECT id FROM tables WHERE status = 'running'"

E = TypeVar("E", bound=StrEnum)


def dumps(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def loads(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError) as exc:
        raise CorruptRow(f"{what} is not valid JSON: {exc}") from exc


def loads_dict(text: str, what: str) -> dict:
    value = loads(text, what)
    if not isinstance(value, dict):
        raise CorruptRow(f"{what} is not a JSON object")
    return value


def member(kind: type[E], value: str, what: str) -> E:
    """The stored ``value`` as a member of ``kind``; CorruptRow if it is none of them."""
    try:
        return kind(value)
    except ValueError as exc:
        raise CorruptRow(f"{what} is not one of {', '.join(kind)}: {value!r}") from exc


def check(value: str, allowed: Collection[str], what: str) -> None:
    if value not in allowed:
        raise ValueError(f"{what} must be one of {', '.join(allowed)}, not {str(value)!r}")


def check_seats(seats: Iterable[SeatRow]) -> None:
    numbers = [s.seat for s in seats]
    if len(numbers) != len(set(numbers)):
        raise ValueError(f"seat numbers repeat: {numbers}")


def seat_row(table_id: int, row: Sequence) -> SeatRow:
    """A SeatRow from one row of `SEAT_COLUMNS`."""
    seat, user_id, name, level, status = row
    return SeatRow(seat, user_id, name, level,
                   member(SeatStatus, status, f"status of seat {seat} of table {table_id}"))


def table_row(row: Sequence, seats: tuple[SeatRow, ...]) -> TableRow:
    """A TableRow from the `TABLE_COLUMNS` of one row and its seats."""
    table_id, chat_id, kind, status, options, snapshot, version, created_at, updated_at = row[:9]
    host_id, thread_id, invite, expires_at, language = row[9:]
    return TableRow(
        id=table_id,
        chat_id=chat_id,
        kind=member(TableKind, kind, f"kind of table {table_id}"),
        status=member(TableStatus, status, f"status of table {table_id}"),
        options=loads_dict(options, f"options of table {table_id}"),
        snapshot=(
            None if snapshot is None
            else loads_dict(snapshot, f"snapshot of table {table_id}")
        ),
        version=version,
        seats=seats,
        created_at=created_at,
        updated_at=updated_at,
        host_id=host_id,
        thread_id=thread_id,
        invite=invite,
        expires_at=expires_at,
        language=language,
    )


async def read_table(db: Session, table_id: int) -> TableRow | None:
    """The table with its seats, or None; CorruptRow if its stored JSON cannot be read."""
    row = await db.fetchone(f"SELECT {TABLE_COLUMNS} FROM tables WHERE id = ?", (table_id,))
    if row is None:
        return None
    return table_row(row, await read_seats(db, table_id))


async def read_seats(db: Session, table_id: int) -> tuple[SeatRow, ...]:
    seats = await db.fetchall(
        f"SELECT {SEAT_COLUMNS} FROM seats WHERE table_id = ? ORDER BY seat", (table_id,))
    return tuple(seat_row(table_id, seat) for seat in seats)


async def write_seats(db: Session, table_id: int, seats: Iterable[SeatRow]) -> None:
    await db.executemany(
        "INSERT INTO seats (table_id, seat, user_id, name, level) VALUES (?, ?, ?, ?, ?)",
        [(table_id, s.seat, s.user_id, s.name, s.level) for s in seats],
    )
