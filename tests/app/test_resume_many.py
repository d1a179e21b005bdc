"""A start with many running tables: all read at once, postponed in one transaction, every timer
armed before any screen is drawn, then the screens a chunk at a time (issue 11)."""

from __future__ import annotations

from tests.app.test_table_service import ONE_COMPUTER, START, USER, FakeClock, service
from tg_durak import tables as tables_module
from tg_durak.store import Store
from tg_durak.tables import HEARTBEAT_KEY

TABLES = 30


async def started_tables(store: Store) -> list[int]:
    before = service(store, FakeClock(START))
    ids = []
    for n in range(TABLES):
        await store.ensure_user(USER + n, f"P{n}")
        await store.set_language(USER + n, "pl")
        ids.append(await before.tables.start_private(USER + n, f"P{n}", ONE_COMPUTER,
                                                     message=(USER + n, 40 + n)))
    await store.set_meta(HEARTBEAT_KEY, START + 5)
    return ids


def count_statements(store: Store) -> list[str]:
    sent: list[str] = []
    for name in ("execute", "executemany"):
        method = getattr(store._db, name)

        def counting(sql, *args, _method=method, **kwargs):
            sent.append(sql)
            return _method(sql, *args, **kwargs)

        setattr(store._db, name, counting)
    return sent


async def test_many_tables_cost_a_few_statements_and_one_transaction(store: Store) -> None:
    ids = await started_tables(store)
    after = service(store, FakeClock(START + 65))   # 60 s of downtime
    sent = count_statements(store)
    assert await after.tables.resume() == TABLES
    assert len(sent) < 15, "not a statement (or a transaction) per table"
    assert sent.count("BEGIN IMMEDIATE") == 1
    for table_id in ids:
        row = await store.get_table(table_id)
        assert row.version == 1, "the postponement is in each log"
        assert after.timer.armed[table_id] > START + 65
    assert len(after.timer.armed) == TABLES


async def test_every_timer_is_armed_before_a_screen_is_drawn(
        store: Store, monkeypatch) -> None:
    ids = await started_tables(store)
    after = service(store, FakeClock(START + 65))
    armed_when_drawn = []
    draw = tables_module.game_screen

    def drawing(inp, t):
        armed_when_drawn.append(len(after.timer.armed))
        return draw(inp, t)

    monkeypatch.setattr(tables_module, "game_screen", drawing)
    monkeypatch.setattr(tables_module, "REFRESH_CHUNK", 7)
    await after.tables.resume()
    await after.tables.refreshed()
    assert armed_when_drawn == [TABLES] * TABLES
    shown = {s.key: s for s in after.publisher.shown}
    assert set(shown) == {(table_id, USER + n) for n, table_id in enumerate(ids)}
    assert all(s.message_id == 40 + n for n, s in enumerate(shown.values()))
    assert all("Atut" in s.screen.text for s in shown.values()), "each in his saved language"


async def test_a_table_whose_log_disagrees_is_left_untouched(store: Store) -> None:
    ids = await started_tables(store)
    await service(store, FakeClock(START + 65)).tables.resume()   # each table: a postponement
    assert (await store.get_table(ids[0])).version == 1
    await store._db.execute("DROP TRIGGER actions_no_delete")
    await store._db.execute("DELETE FROM actions WHERE table_id = ?", (ids[0],))
    after = service(store, FakeClock(START + 125))
    assert await after.tables.resume() == TABLES - 1
    assert ids[0] not in after.timer.armed
    assert (await store.get_table(ids[0])).version == 1, "left as it was"
