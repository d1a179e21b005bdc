"""The store when the database cannot take a write (full disk, a lock held elsewhere), and the
Telegram updates it remembers as handled."""

from __future__ import annotations

import sqlite3

import pytest

from tg_durak.play.records import SeatRow, TableChange
from tg_durak.storage import Store, StoreUnavailable
from tg_durak.storage import updates as updates_module

ANN = SeatRow(seat=0, user_id=1, name="Ann")
CPU = SeatRow(seat=1, user_id=None, name="", level="normal")


async def running_table(store: Store) -> int:
    return (await store.tables.create(1, "private", "running", {}, [ANN, CPU], {"v": 0})).id


async def record(store: Store, table_id: int, version: int, size: int = 10) -> int:
    return await store.tables.record(TableChange(table_id, version, [["tick", float(version)]] * 1,
                              {"v": version + 1, "pad": "x" * size}))


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


async def test_an_update_is_claimed_once_even_after_a_restart(db_path: str) -> None:
    first = await Store.open(db_path)
    try:
        assert await first.updates.claim(41) is True
        assert await first.updates.claim(41) is False
        assert await first.updates.claim(42) is True
    finally:
        await first.close()
    again = await Store.open(db_path)
    try:
        assert await again.updates.claim(41) is False
        assert await again.updates.claim(43) is True
    finally:
        await again.close()


async def test_only_the_latest_updates_are_remembered(store: Store,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(updates_module, "_KEEP_UPDATES", 5)
    monkeypatch.setattr(updates_module, "_FORGET_EVERY", 10)
    for update_id in range(1, 21):
        assert await store.updates.claim(update_id)
    # At 10 the ids up to 5 were forgotten, at 20 those up to 15.
    cursor = await store.connection._db.execute("SELECT update_id FROM handled_updates ORDER BY 1")
    assert [u for (u,) in await cursor.fetchall()] == list(range(16, 21))
