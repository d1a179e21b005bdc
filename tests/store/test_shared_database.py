"""What several bot processes on one PostgreSQL rely on: a held transaction that serialises one
table's changes across connections and that the task's every scope joins, and the tables' stored
wakes, claimed by one process each (SKIP LOCKED). Each process is a Store of its own here."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from tests.store.helpers import ANN, CPU, raw
from tg_durak.play.rows import TableChange
from tg_durak.storage import StaleVersion, Store


@pytest.fixture
async def two(pg_url: str) -> AsyncIterator[tuple[Store, Store]]:
    """Two processes' stores on one database."""
    first, second = await Store.open(pg_url), await Store.open(pg_url)
    yield first, second
    await first.close()
    await second.close()


async def running(store: Store) -> int:
    return (await store.tables.create(1, "private", "running", {}, [ANN, CPU], {"v": 0})).id


def change(table_id: int, version: int) -> TableChange:
    return TableChange(table_id, version, [["move", version + 1]], {"v": version + 1})


async def test_a_held_change_and_its_writes_commit_together_or_not_at_all(
        two: tuple[Store, Store], pg_url: str) -> None:
    first, second = two
    table_id = await running(first)
    async with first.held(f"table {table_id}"):
        await first.tables.record(change(table_id, 0))
        await first.updates.claim(41)
        assert await second.tables.state(table_id) == (0, "running"), "not visible before"
        assert await first.tables.state(table_id) == (1, "running"), "its own reads see it"
    assert await second.tables.state(table_id) == (1, "running")
    assert await second.updates.handled(41)

    with pytest.raises(RuntimeError, match="after the writes"):
        async with first.held(f"table {table_id}"):
            await first.tables.record(change(table_id, 1))
            await first.updates.claim(42)
            raise RuntimeError("after the writes")
    assert await second.tables.state(table_id) == (1, "running"), "rolled back whole"
    assert not await second.updates.handled(42)
    assert raw(pg_url, "SELECT COUNT(*) FROM actions WHERE table_id = ?", (table_id,)) == [(1,)]


async def test_a_refused_write_inside_undoes_itself_alone(two: tuple[Store, Store]) -> None:
    first, second = two
    table_id = await running(first)
    async with first.held(f"table {table_id}"):
        with pytest.raises(StaleVersion):
            await first.tables.record(change(table_id, 5))   # a version it is not at
        await first.tables.record(change(table_id, 0))      # the transaction goes on
    assert await second.tables.state(table_id) == (1, "running")


async def test_one_table_changes_one_process_at_a_time(two: tuple[Store, Store]) -> None:
    """Each process reads the version and writes the next under the held lock: none is lost,
    none is written twice, however their turns interleave."""
    first, second = two
    table_id = await running(first)
    inside = 0
    most = 0

    async def bump(store: Store) -> None:
        nonlocal inside, most
        async with store.held(f"table {table_id}"):
            inside += 1
            most = max(most, inside)
            version, _ = await store.tables.state(table_id)
            await asyncio.sleep(0.001)   # another process's turn, if the lock let it in
            await store.tables.record(change(table_id, version))
            inside -= 1

    await asyncio.gather(*(bump(store) for _ in range(10) for store in two))
    assert most == 1
    assert await second.tables.state(table_id) == (20, "running")


async def test_other_tables_are_not_held_up(two: tuple[Store, Store]) -> None:
    first, second = two
    held_one, other = await running(first), await running(first)
    async with first.held(f"table {held_one}"):
        await asyncio.wait_for(_record_held(second, other), timeout=30)
    assert await first.tables.state(other) == (1, "running")


async def _record_held(store: Store, table_id: int) -> None:
    async with store.held(f"table {table_id}"):
        await store.tables.record(change(table_id, 0))


async def test_a_task_started_inside_does_not_join_the_held_transaction(
        two: tuple[Store, Store]) -> None:
    first, second = two
    table_id = await running(first)
    async with first.held(f"table {table_id}"):
        await first.tables.record(change(table_id, 0))
        # Another task's scope runs on its own connection: it does not see the uncommitted
        # change, and its own write commits at once.
        seen = await asyncio.create_task(first.tables.state(table_id))
        await asyncio.create_task(first.meta.set("k", 1))
        assert seen == (0, "running")
        assert await second.meta.get("k") == 1


async def test_due_tables_are_claimed_by_one_process_each(two: tuple[Store, Store]) -> None:
    first, second = two
    tables = [await running(first) for _ in range(6)]
    for n, table_id in enumerate(tables):
        await first.wakes.set(table_id, 100.0 + n)
    idle = await running(first)
    await first.wakes.set(idle, None)   # nothing due until someone acts

    now = 110.0
    claims = await asyncio.gather(
        first.wakes.claim_due(now, late_by=1.0, lease=5.0, limit=3),
        second.wakes.claim_due(now, late_by=1.0, lease=5.0, limit=3))
    assert sorted(claims[0] + claims[1]) == sorted(tables), "each once, by one of them"
    assert await first.wakes.claim_due(now, late_by=1.0, lease=5.0, limit=10) == [], "leased"
    assert sorted(await second.wakes.claim_due(now + 6.0, late_by=0.5, lease=5.0,
                                               limit=10)) == sorted(tables), "lease ran out"


async def test_only_open_tables_that_are_late_enough_are_claimed(store: Store,
                                                                db_path: str) -> None:
    due, early, finished = [await running(store) for _ in range(3)]
    for table_id in (due, early, finished):
        await store.wakes.set(table_id, 100.0)
    await store.wakes.set(early, 109.5)
    await store.tables.finish(finished, "finished", [])
    assert await store.wakes.claim_due(110.0, late_by=1.0, lease=5.0, limit=10) == [due]


async def test_a_stopping_process_hands_its_tables_over_early(store: Store) -> None:
    mine, other = await running(store), await running(store)
    for table_id in (mine, other):
        await store.wakes.set(table_id, 100.0)
    await store.wakes.hand_over([mine], 1.5)
    assert await store.wakes.claim_due(100.5, late_by=1.5, lease=5.0, limit=10) == [mine]
