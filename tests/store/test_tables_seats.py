"""A person's seat at a running table: he plays it, or a computer plays it on for him."""

from __future__ import annotations

import pytest

from tg_durak.play.rows import SeatRow
from tg_durak.storage import Store

ANN, BOB = 1, 2


async def table(store: Store) -> int:
    seats = [SeatRow(0, ANN, "Ann"), SeatRow(1, None, "", "easy"), SeatRow(2, BOB, "Bob")]
    row = await store.tables.create(-100, "group", "running", {}, seats, {"state": 1})
    assert [s.status for s in row.seats] == ["playing"] * 3
    return row.id


async def test_a_person_who_leaves_or_is_removed_keeps_his_seat_row(store: Store) -> None:
    table_id = await table(store)
    await store.tables.set_seat_status(table_id, 0, "left")
    await store.tables.set_seat_status(table_id, 2, "kicked")
    row = await store.tables.get(table_id)
    assert [(s.user_id, s.status) for s in row.seats] == [
        (ANN, "left"), (None, "playing"), (BOB, "kicked")]
    # One open table per person: who left is free to sit elsewhere.
    other = await store.lobbies.create(-200, ANN, {}, invite="x", expires_at=0.0, language="en")
    assert (await store.lobbies.add_seat(other.id, ANN, "Ann", None, 2)).seats[0].user_id == ANN


async def test_only_a_persons_seat_takes_a_known_status(store: Store) -> None:
    table_id = await table(store)
    with pytest.raises(LookupError):
        await store.tables.set_seat_status(table_id, 1, "left")    # a computer's seat
    with pytest.raises(LookupError):
        await store.tables.set_seat_status(table_id, 5, "left")
    with pytest.raises(ValueError):
        await store.tables.set_seat_status(table_id, 0, "asleep")
    assert [s.status for s in (await store.tables.get(table_id)).seats] == ["playing"] * 3
