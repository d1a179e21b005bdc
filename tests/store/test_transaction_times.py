"""The store tells its timer of each transaction (the bot's durak_store_transaction_seconds):
a commit and a rollback on either database, and on PostgreSQL a table's change under its held
lock once, as one held transaction, its inner scopes being part of it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from prometheus_client import CollectorRegistry

from tests.store.helpers import running_table
from tg_durak.observe.store import TransactionTimes
from tg_durak.play.ratings import rate
from tg_durak.play.rows import TableChange
from tg_durak.storage import StaleVersion, Store

METRIC = "durak_store_transaction_seconds"


@pytest.fixture
def registry() -> CollectorRegistry:
    return CollectorRegistry()


@pytest.fixture
async def timed_store(db_path: str, registry: CollectorRegistry) -> AsyncIterator[Store]:
    store = await Store.open(db_path, rate=rate, timer=TransactionTimes(registry))
    yield store
    await store.close()


def counted(registry: CollectorRegistry, scope: str, outcome: str) -> float:
    value = registry.get_sample_value(f"{METRIC}_count", {"scope": scope, "outcome": outcome})
    return value or 0.0


def change(table_id: int, version: int) -> TableChange:
    return TableChange(table_id, version, [["tick", float(version)]], {"v": version + 1})


async def test_a_commit_and_a_rollback_are_each_timed(
        timed_store: Store, registry: CollectorRegistry) -> None:
    table_id = await running_table(timed_store)
    before = counted(registry, "transaction", "committed")
    assert await timed_store.tables.record(change(table_id, 0)) == 1
    assert counted(registry, "transaction", "committed") == before + 1
    with pytest.raises(ValueError):   # raised inside the transaction: it is rolled back
        async with timed_store.connection.transaction() as db:
            await db.execute("UPDATE tables SET version = 7 WHERE id = ?", (table_id,))
            raise ValueError("the change goes wrong half-way")
    assert counted(registry, "transaction", "rolled_back") == 1
    assert (await timed_store.tables.get(table_id)).version == 1
    total = registry.get_sample_value(f"{METRIC}_sum",
                                      {"scope": "transaction", "outcome": "committed"})
    assert total is not None and 0 < total < 60


async def test_a_held_change_is_one_held_transaction(
        timed_store: Store, registry: CollectorRegistry) -> None:
    if not timed_store.shared:
        pytest.skip("SQLite: nothing is held")
    table_id = await running_table(timed_store)
    transactions = counted(registry, "transaction", "committed")
    async with timed_store.held(f"table {table_id}"):
        await timed_store.tables.record(change(table_id, 0))
    assert counted(registry, "held", "committed") == 1
    assert counted(registry, "transaction", "committed") == transactions   # a savepoint
    with pytest.raises(StaleVersion):
        async with timed_store.held(f"table {table_id}"):
            await timed_store.tables.record(change(table_id, 0))   # version 1 now
    assert counted(registry, "held", "rolled_back") == 1

