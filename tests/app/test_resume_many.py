"""A start with many running tables: all read at once, postponed in one transaction, every timer
armed before any screen is drawn, then the screens a chunk at a time (issue 11)."""

from __future__ import annotations

import asyncio

import pytest

from tests.app.test_table_service import (
    ONE_COMPUTER,
    START,
    USER,
    FakeClock,
    World,
    screens_out,
    service,
)
from tests.store.helpers import ONE_PROCESS, statements_sent
from tg_durak.play.answers import Answer
from tg_durak.play.taps import PlayCard
from tg_durak.storage import Store, StoreUnavailable
from tg_durak.tables import restart, screens
from tg_durak.tables.restart import HEARTBEAT_KEY

# A start that takes up every table at once is one process's (tests/app/test_shared_tables.py
# shows how several processes take them up).
pytestmark = ONE_PROCESS

TABLES = 30


async def started_tables(store: Store) -> list[int]:
    before = service(store, FakeClock(START))
    ids = []
    for n in range(TABLES):
        await store.users.ensure(USER + n, f"P{n}")
        await store.users.set_language(USER + n, "pl")
        ids.append(await before.tables.start_private(USER + n, f"P{n}", ONE_COMPUTER,
                                                     message=(USER + n, 40 + n)))
    await store.meta.set(HEARTBEAT_KEY, START + 5)
    return ids


async def test_many_tables_cost_a_few_statements_and_one_transaction(store: Store) -> None:
    ids = await started_tables(store)
    after = service(store, FakeClock(START + 65))   # 60 s of downtime
    sent = statements_sent(store)
    assert await after.tables.restart.resume() == TABLES
    await after.tables.restart.postponed()
    assert len(sent) < 15, "not a statement (or a transaction) per table"
    assert sent.count("BEGIN IMMEDIATE") == 1
    for table_id in ids:
        row = await store.tables.get(table_id)
        assert row.version == 1, "the postponement is in each log"
        assert after.timer.armed[table_id] > START + 65
    assert len(after.timer.armed) == TABLES


async def test_every_timer_is_armed_before_a_screen_is_drawn(
        store: Store, monkeypatch) -> None:
    ids = await started_tables(store)
    after = service(store, FakeClock(START + 65))
    armed_when_drawn = []
    draw = screens.game_screen

    def drawing(inp, t):
        armed_when_drawn.append(len(after.timer.armed))
        return draw(inp, t)

    monkeypatch.setattr(screens, "game_screen", drawing)
    monkeypatch.setattr(restart, "REFRESH_SLICE_SECONDS", 0)   # a slice per table
    await after.tables.restart.resume()
    await screens_out(after, TABLES)
    assert armed_when_drawn == [TABLES] * TABLES
    shown = {s.key: s for s in after.publisher.shown}
    assert set(shown) == {(table_id, USER + n) for n, table_id in enumerate(ids)}
    assert all(s.message_id == 40 + n for n, s in enumerate(shown.values()))
    assert all("Atut" in s.screen.text for s in shown.values()), "each in his saved language"


async def test_a_table_whose_log_disagrees_is_left_untouched(store: Store) -> None:
    ids = await started_tables(store)
    first = service(store, FakeClock(START + 65))
    await first.tables.restart.resume()   # each table: a postponement
    await first.tables.restart.postponed()
    assert (await store.tables.get(ids[0])).version == 1
    await store.connection._db.execute("DROP TRIGGER actions_no_delete")
    await store.connection._db.execute("DELETE FROM actions WHERE table_id = ?", (ids[0],))
    after = service(store, FakeClock(START + 125))
    assert await after.tables.restart.resume() == TABLES - 1
    assert ids[0] not in after.timer.armed
    assert (await store.tables.get(ids[0])).version == 1, "left as it was"


def a_lead(world: World, ids: list[int]) -> tuple[int, int, PlayCard]:
    """A table whose person may lead now: (table, his user id, a card tap)."""
    for n, table_id in enumerate(ids):
        legal = world.tables.core.tables[table_id].game.legal_actions(0)
        if legal:
            return table_id, USER + n, PlayCard(legal[0].card.index)
    raise AssertionError("no person leads anywhere")


async def test_the_timers_run_before_the_postponement_is_stored_and_its_tables_wait_for_it(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = await started_tables(store)
    due = {table_id: (await store.tables.get(table_id)).snapshot["state"]["turn_due"]
           for table_id in ids}
    after = service(store, FakeClock(START + 65))   # 60 s of downtime
    stored, record_many = asyncio.Event(), store.tables.record_many

    async def slow(changes: list) -> None:
        await stored.wait()
        await record_many(changes)

    monkeypatch.setattr(store.tables, "record_many", slow)
    await after.tables.restart.resume()
    for table_id in ids:
        game = after.tables.core.tables[table_id].game
        assert game.turn_due == due[table_id] + 60, "postponed by the downtime (R10.4)"
        assert after.timer.armed[table_id] <= game.turn_due
    table_id, user, lead = a_lead(after, ids)
    tap = asyncio.create_task(after.tables.moves.tap(user, table_id, 1, lead))
    beat = asyncio.create_task(after.tables.restart.heartbeat())
    for _ in range(20):
        await asyncio.sleep(0)
    assert not tap.done() and not beat.done()
    assert (await store.tables.get(table_id)).version == 0
    assert await store.meta.get(HEARTBEAT_KEY) == START + 5, "a crash now gives it all back"
    stored.set()
    assert await tap == Answer(), "played on top of the postponement"
    await beat
    assert (await store.tables.get(table_id)).version == 2
    assert await store.meta.get(HEARTBEAT_KEY) == START + 65
    assert {(await store.tables.get(i)).version for i in ids if i != table_id} == {1}


async def test_postponements_refused_at_once_are_stored_one_table_at_a_time(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = await started_tables(store)
    after = service(store, FakeClock(START + 65))

    async def refused(changes: list) -> None:
        raise StoreUnavailable("the disk is full")

    monkeypatch.setattr(store.tables, "record_many", refused)
    await after.tables.restart.resume()
    await after.tables.restart.postponed()
    assert {(await store.tables.get(i)).version for i in ids} == {1}
    table_id, user, lead = a_lead(after, ids)
    assert await after.tables.moves.tap(user, table_id, 1, lead) == Answer(), "its lock let go"
