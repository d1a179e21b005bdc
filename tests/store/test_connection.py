"""The connection: SQLite's pragmas, a database that cannot take a write (full disk, a lock held
elsewhere), and a call cancelled half-way (PostgreSQL's refusals: test_postgres.py)."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from tests.store.helpers import SQLITE_ONLY, raw
from tg_durak.play.rows import SeatRow, TableChange
from tg_durak.storage import Store, StoreUnavailable

ANN = SeatRow(seat=0, user_id=1, name="Ann")
CPU = SeatRow(seat=1, user_id=None, name="", level="normal")


async def running_table(store: Store) -> int:
    return (await store.tables.create(1, "private", "running", {}, [ANN, CPU], {"v": 0})).id


async def record(store: Store, table_id: int, version: int, size: int = 10) -> int:
    return await store.tables.record(TableChange(table_id, version, [["tick", float(version)]] * 1,
                                                 {"v": version + 1, "pad": "x" * size}))


@SQLITE_ONLY
async def test_wal_and_foreign_keys(store: Store, db_path: str) -> None:
    assert raw(db_path, "PRAGMA journal_mode") == [("wal",)]
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
        await store.messages.set(999, 1, 1, 10)
    with pytest.raises(LookupError):
        await store.tables.finish(999, "aborted", [])


@SQLITE_ONLY
async def test_a_write_while_another_process_holds_the_lock_is_refused_cleanly(
        store: Store, db_path: str) -> None:
    table_id = await running_table(store)
    # not the bot's 5 s, for the test
    await store.connection._db.execute("PRAGMA busy_timeout = 50")
    other = sqlite3.connect(db_path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreUnavailable, match="locked"):
            await record(store, table_id, 0)
        other.execute("ROLLBACK")
    finally:
        other.close()
    assert (await store.tables.get(table_id)).version == 0
    assert await store.tables.log(table_id) == []
    assert await record(store, table_id, 0) == 1, "the store writes again once the lock is gone"


@SQLITE_ONLY
async def test_a_full_disk_refuses_the_write_and_writes_nothing(store: Store) -> None:
    table_id = await running_table(store)
    await record(store, table_id, 0)
    cursor = await store.connection._db.execute("PRAGMA page_count")
    (pages,) = await cursor.fetchone()
    await store.connection._db.execute(f"PRAGMA max_page_count = {pages}")   # the disk is full now
    with pytest.raises(StoreUnavailable, match="full"):
        await record(store, table_id, 1, size=100_000)
    row = await store.tables.get(table_id)
    assert (row.version, row.snapshot["v"]) == (1, 1)
    assert len(await store.tables.log(table_id)) == 1
    assert not store.connection._db.in_transaction
    await store.connection._db.execute("PRAGMA max_page_count = 1000000")
    assert await record(store, table_id, 1, size=100_000) == 2


async def test_a_cancelled_write_leaves_the_store_usable(db_path: str) -> None:
    store = await Store.open(db_path)
    try:
        for i in range(60):
            task = asyncio.create_task(store.meta.set("cancelled", i))
            for _ in range(i % 6):   # cancelled at each await of the transaction in turn
                await asyncio.sleep(0)
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await store.meta.set("next", i)
            assert await store.meta.get("next") == i
    finally:
        await store.close()
