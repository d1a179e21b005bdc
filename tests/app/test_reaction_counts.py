"""The table service counts how long each computer move took after the change it reacts to,
and those later than the reaction window (R10.3: 1.5-3 s): what the load run reports."""

from __future__ import annotations

import pytest

from tests.app.test_table_service import (
    ONE_COMPUTER,
    START,
    USER,
    FakeClock,
    World,
    computer_leads,
    deal_where,
    service,
)
from tg_durak.storage import Store


@pytest.fixture
def world(store: Store) -> World:
    return service(store, FakeClock(START))


async def test_a_move_on_time_is_counted_with_its_delay(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    deal_where(monkeypatch, computer_leads)
    table_id = await world.tables.start_private(USER, "Ann", ONE_COMPUTER)
    due = world.timer.armed[table_id]
    await world.timer.ring(table_id, due)
    stats = world.tables.stats()
    assert (stats["computer_moves"], stats["computer_late"]) == (1, 0)
    assert stats["computer_slowest_s"] == pytest.approx(due - START)
    assert 1.5 <= stats["computer_slowest_s"] <= 3.0


async def test_a_move_past_the_window_is_late(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    deal_where(monkeypatch, computer_leads)
    table_id = await world.tables.start_private(USER, "Ann", ONE_COMPUTER)
    await world.timer.ring(table_id, START + 4.5)   # the loop was busy: woken late
    stats = world.tables.stats()
    assert (stats["computer_moves"], stats["computer_late"]) == (1, 1)
    assert stats["computer_slowest_s"] == pytest.approx(4.5)
