"""What a restart reads and writes for every running table at once: the same as the per-table
methods give, in a few statements whatever the number of tables."""

import pytest

from tests.store.helpers import rewrite_action, statements_sent
from tg_durak.play.rows import SeatRow, TableChange
from tg_durak.storage import StaleVersion, Store
from tg_durak.storage.tables import _in_order

ANN = SeatRow(seat=0, user_id=1, name="Ann")
BOB = SeatRow(seat=1, user_id=2, name="Bob")
CPU = SeatRow(seat=2, user_id=None, name="", level="normal")


async def some_tables(store: Store) -> list[int]:
    """Three running tables (with logs and messages), one finished and one lobby."""
    ids = []
    for n, seats in enumerate(([ANN, CPU], [ANN, BOB], [BOB, CPU])):
        row = await store.tables.create(10 + n, "private", "running", {"n": n}, seats, {"s": n})
        await store.tables.record(TableChange(row.id, 0, [["act", n], ["tick", float(n)]],
                                              {"s": n + 1}))
        await store.messages.set(row.id, seats[0].user_id, seats[0].user_id, 100 + n)
        ids.append(row.id)
    done = await store.tables.create(20, "private", "running", {}, [ANN, CPU], {"s": 9})
    await store.tables.record(TableChange(done.id, 0, [["act", 9]], {"s": 9}, status="finished"))
    await store.lobbies.create(-5, 1, {}, invite="x", expires_at=0.0, language="en")
    return ids


async def test_running_tables_logs_and_messages_at_once(store: Store) -> None:
    ids = await some_tables(store)
    sent = statements_sent(store)
    tables = await store.tables.running()
    logs = await store.tables.running_logs()
    messages = await store.messages.running()
    assert len(sent) == 4, "two reads for the tables and seats, one for logs, one for messages"
    assert tables == [await store.tables.get(table_id) for table_id in ids]
    assert logs == {table_id: await store.tables.log(table_id) for table_id in ids}
    assert messages == {table_id: await store.messages.of_table(table_id) for table_id in ids}


async def test_a_table_with_an_unreadable_entry_is_left_out_of_the_logs(
        store: Store, db_path: str) -> None:
    first, second, third = await some_tables(store)
    rewrite_action(db_path, second, 2, '["cut')
    assert set(await store.tables.running_logs()) == {first, third}


async def test_an_entry_that_is_more_than_one_value_leaves_its_log_out(
        store: Store, db_path: str) -> None:
    first, second, third = await some_tables(store)
    rewrite_action(db_path, second, 2, '["tick",1.0],["tick",2.0]')
    assert set(await store.tables.running_logs()) == {first, third}


def test_a_log_read_out_of_order_is_put_in_order() -> None:
    assert _in_order("1,2,3", [["a"], ["b"], ["c"]]) == [["a"], ["b"], ["c"]]
    assert _in_order("3,1,2", [["c"], ["a"], ["b"]]) == [["a"], ["b"], ["c"]]
    assert _in_order("2,4", [["b"], ["d"]]) == [["b"], ["d"]], "a gap is the caller's to find"
    with pytest.raises(ValueError):
        _in_order("1,2", [["a"], ["b"], ["c"]])


async def test_users_in_a_few_reads(store: Store, db_path: str,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from tg_durak.storage import users as users_module

    monkeypatch.setattr(users_module, "_IDS_PER_QUERY", 2)
    for user_id in (1, 2, 3):
        await store.users.ensure(user_id, f"P{user_id}")
        await store.users.set_language(user_id, "ru")
    fresh = await Store.open(db_path)   # a restart: nobody's row in memory yet
    sent = statements_sent(fresh)
    found = await fresh.users.many([3, 1, 2, 99, 1])
    assert sorted(found) == [1, 2, 3] and found[2].language == "ru"
    assert len(sent) == 2, "three people, two to a read"
    assert await fresh.users.many([1, 2, 3]) == found and len(sent) == 2, "then kept in memory"
    await fresh.close()


async def test_many_records_in_one_transaction(store: Store) -> None:
    ids = await some_tables(store)
    changes = [TableChange(table_id, 2, [["postpone", 5.0]], {"after": table_id})
               for table_id in ids]
    await store.tables.record_many(changes)
    for table_id in ids:
        row = await store.tables.get(table_id)
        assert (row.version, row.snapshot) == (3, {"after": table_id})
        assert (await store.tables.log(table_id))[-1] == ["postpone", 5.0]


async def test_many_records_stand_or_fall_together(store: Store) -> None:
    first, second, _ = await some_tables(store)
    await store.tables.record(TableChange(second, 2, [["act", 5]], {"moved": True}))   # moved
    changes = [TableChange(table_id, 2, [["postpone", 5.0]], {"after": 1})
               for table_id in (first, second)]
    with pytest.raises(StaleVersion):
        await store.tables.record_many(changes)
    assert (await store.tables.get(first)).version == 2, "nothing written"
    assert len(await store.tables.log(first)) == 2
