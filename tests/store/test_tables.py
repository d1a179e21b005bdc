"""Tables: created, their log appended to in one transaction per change at the version read,
finished; found again; damage told apart."""

import asyncio
import sqlite3

import pytest

from tests.store.helpers import (
    ANN,
    BOB,
    CPU,
    SQLITE_ONLY,
    integrity_error,
    raw,
    running_table,
    statements_sent,
)
from tg_durak.play.ratings import Outcome
from tg_durak.play.rows import SeatStatus, TableChange, TableKind, TableStatus
from tg_durak.storage import CorruptRow, StaleVersion, Store


async def test_create_table(store: Store) -> None:
    table = await store.tables.create(-100, "group", "lobby", {"transfer": True}, [ANN], None)
    assert (table.chat_id, table.kind, table.status, table.version) == (-100, "group", "lobby", 0)
    assert table.options == {"transfer": True}
    assert table.snapshot is None
    assert table.seats == (ANN,)

    table = await store.tables.create(1, "private", "running", {}, [CPU, ANN], {"deal": 1})
    started = await store.tables.get(table.id)
    assert started is not None
    assert started.status == "running"
    assert started.snapshot == {"deal": 1}
    assert started.seats == (ANN, CPU)  # in seat order
    assert started.version == 0

    with pytest.raises(ValueError, match="a new table's status"):
        await store.tables.create(1, "private", "finished", {}, [ANN], {"deal": 2})


async def test_bad_arguments_are_refused_before_writing(store: Store) -> None:
    with pytest.raises(ValueError, match="kind"):
        await store.tables.create(1, "public", "lobby", {}, [ANN], None)
    with pytest.raises(ValueError, match="seat numbers repeat"):
        await store.tables.create(1, "private", "lobby", {}, [ANN, ANN], None)
    assert await store.tables.for_user(ANN.user_id) is None


async def test_record_appends_to_the_log_in_order(store: Store) -> None:
    table_id = await running_table(store)
    assert await store.tables.record(TableChange(table_id, 0, [{"n": 1}, {"n": 2}], {"at": 2})) == 2
    assert await store.tables.record(TableChange(table_id, 2, [{"n": 3}], {"at": 3})) == 3
    assert await store.tables.record(TableChange(table_id, 3, [], {"at": "timer"})) == 3

    assert await store.tables.log(table_id) == [{"n": 1}, {"n": 2}, {"n": 3}]
    table = await store.tables.get(table_id)
    assert table is not None
    assert (table.version, table.snapshot) == (3, {"at": "timer"})


async def test_stale_record_writes_nothing(store: Store) -> None:
    table_id = await running_table(store)
    await store.tables.record(TableChange(table_id, 0, [{"n": 1}], {"at": 1}))

    with pytest.raises(StaleVersion, match="at version 1, not 0"):
        await store.tables.record(TableChange(table_id, 0, [{"n": "late"}], {"at": "late"}))

    table = await store.tables.get(table_id)
    assert table is not None
    assert (table.version, table.snapshot) == (1, {"at": 1})
    assert await store.tables.log(table_id) == [{"n": 1}]


async def test_record_is_one_transaction(store: Store, db_path: str) -> None:
    table_id = await running_table(store)
    # A stray log row makes the second of three inserts fail; the first must not survive.
    raw(db_path, "INSERT INTO actions VALUES (?, 2, '{}', 0)", (table_id,))

    with pytest.raises(integrity_error(db_path)):
        await store.tables.record(TableChange(table_id, 0, [{"n": 1}, {"n": 2}, {"n": 3}],
                                              {"at": 3}))

    table = await store.tables.get(table_id)
    assert table is not None
    assert (table.version, table.snapshot) == (0, {"log": 0})
    assert raw(db_path, "SELECT seq FROM actions WHERE table_id = ?", (table_id,)) == [(2,)]


async def test_concurrent_records_on_one_table_one_wins(store: Store) -> None:
    table_id = await running_table(store)
    outcomes = await asyncio.gather(
        store.tables.record(TableChange(table_id, 0, [{"by": "a"}], {"by": "a"})),
        store.tables.record(TableChange(table_id, 0, [{"by": "b"}], {"by": "b"})),
        return_exceptions=True,
    )
    assert sorted(map(type, outcomes), key=str) == sorted([int, StaleVersion], key=str)
    winner = "a" if outcomes[0] == 1 else "b"
    assert await store.tables.log(table_id) == [{"by": winner}]
    table = await store.tables.get(table_id)
    assert table is not None
    assert table.snapshot == {"by": winner}


async def test_changes_that_come_together_share_a_commit_and_a_stale_one_is_refused_alone(
        store: Store) -> None:
    tables = [await running_table(store, chat_id=10 + n) for n in range(8)]
    await store.tables.record(TableChange(tables[0], 0, [{"n": 1}], {"at": 1}))
    sent = statements_sent(store, keep=lambda sql: sql.split()[0].upper())
    outcomes = await asyncio.gather(
        *(store.tables.record(TableChange(t, 0, [{"t": t}], {"t": t})) for t in tables),
        return_exceptions=True)
    assert isinstance(outcomes[0], StaleVersion)   # tables[0] was at version 1 already
    assert outcomes[1:] == [1] * 7
    for t in tables[1:]:
        assert await store.tables.log(t) == [{"t": t}]
    assert await store.tables.log(tables[0]) == [{"n": 1}]
    # The eight came before the first could be written: one transaction for them all, and in
    # it one reading of their versions, one update and one insert for the seven that fit.
    assert sent.count("COMMIT") == 1, sent
    assert sent[:sent.index("COMMIT") + 1] == ["BEGIN", "SELECT", "UPDATE", "INSERT", "COMMIT"]


async def test_finished_tables_take_no_more_moves(store: Store) -> None:
    table_id = await running_table(store)
    assert await store.tables.record(
        TableChange(table_id, 0, [{"last": True}], {"over": True}, "finished")) == 1
    with pytest.raises(StaleVersion, match="finished, not running"):
        await store.tables.record(TableChange(table_id, 1, [{"n": 2}], {}))
    with pytest.raises(ValueError, match="status"):
        await store.tables.record(TableChange(table_id, 1, [{"n": 2}], {}, "lobby"))


async def test_finding_tables(store: Store) -> None:
    old = await store.tables.create(-1, "group", "lobby", {}, [ANN], None)
    await store.tables.finish(old.id, "aborted", [])
    lobby = await store.tables.create(-1, "group", "lobby", {}, [ANN, BOB], None)
    private = await running_table(store, chat_id=1)

    found = await store.tables.for_user(1, statuses=("aborted",))
    assert found is not None
    assert found.id == old.id

    found = await store.tables.for_user(1)
    assert found is not None
    assert found.id == private  # the newest of Ann's two open tables
    found = await store.tables.for_user(2)
    assert found is not None
    assert found.id == lobby.id
    assert await store.tables.for_user(2, statuses=("running",)) is None
    assert await store.tables.for_user(3) is None

    assert [t.id for t in await store.tables.running()] == [private]


async def test_corrupt_snapshot(store: Store, db_path: str) -> None:
    broken = await running_table(store)
    good = await running_table(store)
    raw(db_path, "UPDATE tables SET snapshot = '{\"cut' WHERE id = ?", (broken,))

    with pytest.raises(CorruptRow, match=f"snapshot of table {broken}"):
        await store.tables.get(broken)
    assert [t.id for t in await store.tables.running()] == [good]


async def test_statuses_are_read_as_their_enums(store: Store) -> None:
    table_id = await running_table(store)
    await store.tables.set_seat_status(table_id, 0, SeatStatus.LEFT)
    await store.tables.record(TableChange(table_id, 0, [], {}, TableStatus.FINISHED,
                                          [(ANN.user_id, Outcome.RESIGNED, 1)]))
    record = await store.tables.whole(table_id)
    assert record is not None
    assert type(record.row.kind) is TableKind and record.row.kind == TableKind.PRIVATE
    assert type(record.row.status) is TableStatus and record.row.status == "finished"
    assert [type(s.status) for s in record.row.seats] == [SeatStatus, SeatStatus]
    assert [s.status for s in record.row.seats] == ["left", "playing"]
    assert record.results == [(ANN.user_id, Outcome.RESIGNED, 1)]
    assert type(record.results[0][1]) is Outcome
    state = await store.tables.state(table_id)
    assert state is not None and type(state[1]) is TableStatus


@SQLITE_ONLY
@pytest.mark.parametrize(("sql", "what"), [
    ("UPDATE tables SET kind = 'public' WHERE id = ?", "kind of table"),
    ("UPDATE tables SET status = 'paused' WHERE id = ?", "status of table"),
    ("UPDATE seats SET status = 'dancing' WHERE table_id = ? AND seat = 0", "status of seat 0"),
])
async def test_a_status_outside_its_enum_is_a_corrupt_row(
        store: Store, db_path: str, sql: str, what: str) -> None:
    broken = await running_table(store)
    good = await running_table(store)
    with sqlite3.connect(db_path) as conn:   # past the schema's CHECKs, as damage would be
        conn.execute("PRAGMA ignore_check_constraints = ON")
        conn.execute(sql, (broken,))

    with pytest.raises(CorruptRow, match=what):
        await store.tables.get(broken)
    assert [t.id for t in await store.tables.running()] == [good]


async def test_actions_are_append_only(store: Store, db_path: str) -> None:
    table_id = await running_table(store)
    await store.tables.record(TableChange(table_id, 0, [{"n": 1}], {}))
    with pytest.raises(integrity_error(db_path), match="append-only"):
        raw(db_path, "UPDATE actions SET entry = '{}'")
