"""Which screens the table service marks urgent for the publisher (issue 11): the person whose
move it is (his clock runs) first; the others at the table next; the group's public message after
them; timer-bar refreshes last (dropped without spare budget)."""

from __future__ import annotations

import pytest

from tests.app.test_table_service import (
    ANN,
    BOB,
    CID,
    ONE_COMPUTER,
    START,
    FakeClock,
    World,
    card,
    deal_where,
    person_leads,
    service,
    three_people,
)
from tg_durak.outbox.queue import Priority
from tg_durak.play.answers import Answer
from tg_durak.play.taps import PlayCard, Take
from tg_durak.storage import Store


@pytest.fixture
def world(store: Store) -> World:
    return service(store, FakeClock(START))


def latest(world: World) -> dict[object, Priority]:
    return {shown.key[1]: shown.priority for shown in world.publisher.shown}


async def test_the_mover_first_then_the_others_then_the_group(world: World) -> None:
    table_id = await three_people(world)   # Ann leads against Bob
    assert latest(world) == {ANN: Priority.MOVER, BOB: Priority.PLAYER, CID: Priority.PLAYER,
                             None: Priority.WATCHER}

    # Ann leads: now Bob's clock runs; Ann and Cid may throw in, but the game waits for Bob.
    assert await world.tables.moves.tap(ANN, table_id, 0, PlayCard(card("6s"))) == Answer()
    assert latest(world) == {ANN: Priority.PLAYER, BOB: Priority.MOVER, CID: Priority.PLAYER,
                             None: Priority.WATCHER}

    # Taps on a screen the table has left behind redraw it, as urgent as the tapper's part:
    # blind tapping does not make everyone a mover.
    for user, priority in ((CID, Priority.PLAYER), (BOB, Priority.MOVER)):
        world.publisher.shown.clear()
        assert await world.tables.moves.tap(user, table_id, 99, Take()) == Answer("tap.stale")
        assert latest(world) == {user: priority}


async def test_a_timer_bar_is_the_least_urgent(world: World,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    deal_where(monkeypatch, person_leads)
    table_id = await world.tables.start_private(ANN, "Ann", ONE_COMPUTER)
    assert latest(world) == {ANN: Priority.MOVER}
    await world.timer.ring(table_id, world.timer.armed[table_id])
    assert latest(world) == {ANN: Priority.BAR}


async def test_no_bar_is_drawn_while_the_bots_budget_is_spent(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """It would be dropped: drawing it is wasted work when the bot is busiest."""
    deal_where(monkeypatch, person_leads)
    table_id = await world.tables.start_private(ANN, "Ann", ONE_COMPUTER)
    shown = len(world.publisher.shown)
    world.publisher.spare = False
    bar_at = world.timer.armed[table_id]
    await world.timer.ring(table_id, bar_at)
    assert len(world.publisher.shown) == shown
    assert world.timer.armed[table_id] > bar_at, "the next bar is planned as usual"

