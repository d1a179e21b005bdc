"""What every tap costs the store, in trips to SQLite's thread (or PostgreSQL's server): each
trip waits for the event loop to come round, and the store's lock (or a pooled connection) is
held meanwhile, so under load they queue."""

import pytest

from tests.store.helpers import SQLITE_ONLY, statements_sent
from tg_durak.play.rows import SeatRow, TableChange
from tg_durak.storage import StaleVersion, Store, StoreUnavailable

ANN = SeatRow(seat=0, user_id=1, name="Ann")
CPU = SeatRow(seat=1, user_id=None, name="", level="normal")
SNAPSHOT = {"state": "any JSON object"}


async def test_a_move_is_one_update_and_its_log_entries(store: Store) -> None:
    row = await store.tables.create(1, "private", "running", {}, [ANN, CPU], SNAPSHOT)
    sent = statements_sent(store, keep=lambda sql: sql.split()[0])
    assert await store.tables.record(
        TableChange(row.id, 0, [["act"], ["tick", 1.0]], SNAPSHOT)) == 2
    assert sent == ["BEGIN", "UPDATE", "INSERT", "COMMIT"]
    assert len(await store.tables.log(row.id)) == 2


async def test_a_refused_move_still_says_why(store: Store) -> None:
    row = await store.tables.create(1, "private", "running", {}, [ANN, CPU], SNAPSHOT)
    await store.tables.record(TableChange(row.id, 0, [["act"]], SNAPSHOT))
    with pytest.raises(StaleVersion, match="at version 1, not 0"):
        await store.tables.record(TableChange(row.id, 0, [["act"]], SNAPSHOT))
    await store.tables.finish(row.id, "aborted", [])
    with pytest.raises(StaleVersion, match="aborted, not running"):
        await store.tables.record(TableChange(row.id, 1, [["act"]], SNAPSHOT))
    assert len(await store.tables.log(row.id)) == 1, "nothing written by a refused move"
    assert (await store.tables.get(row.id)).version == 1


async def test_claiming_an_update_is_one_statement(store: Store) -> None:
    sent = statements_sent(store, keep=lambda sql: sql.split()[0])
    assert await store.updates.claim(7) is True
    assert await store.updates.claim(7) is False
    assert sent == ["INSERT", "INSERT"]


@SQLITE_ONLY
async def test_a_claim_the_database_refuses_is_unavailable(store: Store, db_path: str) -> None:
    other = await Store.open(db_path)
    try:
        await other.connection._db.execute("PRAGMA busy_timeout = 0")
        # another process holds the write lock
        await other.connection._db.execute("BEGIN IMMEDIATE")
        await store.connection._db.execute("PRAGMA busy_timeout = 0")
        with pytest.raises(StoreUnavailable):
            await store.updates.claim(8)
    finally:
        await other.connection._db.execute("ROLLBACK")
        await other.close()


async def test_catching_a_table_up_reads_its_new_entries_with_its_row(store: Store) -> None:
    """What a process holding the game at a version lacks: the row, with the entries written
    since in order (none when it is current), in the row's own statement and the seats'."""
    row = await store.tables.create(1, "private", "running", {}, [ANN, CPU], SNAPSHOT)
    entries = [["act", n] for n in range(12)]   # seq 10 after 9: ordered as numbers
    assert await store.tables.record(TableChange(row.id, 0, entries, SNAPSHOT)) == 12
    sent = statements_sent(store, keep=lambda sql: sql.split()[0])
    found = await store.tables.since(row.id, 8)
    assert sent == ["SELECT", "SELECT"]
    assert found is not None
    table, new = found
    assert (table.id, table.version, table.seats, table.snapshot) == (row.id, 12, (ANN, CPU),
                                                                      SNAPSHOT)
    assert new == entries[8:]
    assert await store.tables.since(row.id, 12) == (table, [])
    assert await store.tables.since(row.id + 1, 0) is None
