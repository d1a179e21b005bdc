"""The store refuses a change (a full disk, a lock held too long): the table goes back to what
is stored, the tap is refused politely, and the table's timer tries again a moment later rather
than at once (which, with the store still refusing, would spin)."""

from __future__ import annotations

import sqlite3

import pytest

from tests.app.test_table_service import (
    ONE_COMPUTER,
    START,
    USER,
    FakeClock,
    World,
    computer_leads,
    deal_where,
    person_leads,
    service,
    stored,
)
from tg_durak.store import Store, StoreUnavailable
from tg_durak.tables import SAVE_RETRY_SECONDS, Reply
from tg_durak.taps import PlayCard


@pytest.fixture
def world(store: Store) -> World:
    return service(store, FakeClock(START))


def refuse_writes(world: World, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every `record` fails as a full disk makes it fail; returns the list of tries."""
    tries: list[int] = []

    async def full(table_id: int, *args: object, **kwargs: object) -> int:
        tries.append(table_id)
        raise StoreUnavailable("the database refused a write") from sqlite3.OperationalError(
            "database or disk is full")

    monkeypatch.setattr(world.store, "record", full)
    return tries


async def test_a_refused_tap_leaves_the_table_as_stored(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    deal_where(monkeypatch, person_leads)
    table_id = await world.tables.start_private(USER, "Ann", ONE_COMPUTER)
    row, game = await stored(world.store, table_id)
    card = game.legal_actions(0)[0].card
    with monkeypatch.context() as patch:
        tries = refuse_writes(world, patch)
        reply = await world.tables.tap(USER, table_id, 0, PlayCard(card.index))
    assert reply == Reply("error.not_saved", alert=True)
    assert tries == [table_id]
    live = world.tables._tables[table_id]
    assert live.game.to_dict(log=False) == row.snapshot, "memory is what the store holds"
    assert world.timer.armed[table_id] == START + SAVE_RETRY_SECONDS
    assert await world.tables.tap(USER, table_id, 0, PlayCard(card.index)) == Reply()
    row, game = await stored(world.store, table_id)
    assert row.version == 1 and game.table[0][0] == card


async def test_a_refused_computer_move_is_tried_again_a_moment_later(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    deal_where(monkeypatch, computer_leads)
    table_id = await world.tables.start_private(USER, "Ann", ONE_COMPUTER)
    due = world.timer.armed[table_id]
    with monkeypatch.context() as patch:
        tries = refuse_writes(world, patch)
        await world.timer.ring(table_id, due)
        assert tries == [table_id]
        again = world.timer.armed[table_id]
        assert again == due + SAVE_RETRY_SECONDS, "not at once: the store is still refusing"
        await world.timer.ring(table_id, again)
        assert tries == [table_id] * 2
    row, _ = await stored(world.store, table_id)
    assert row.version == 0
    await world.timer.ring(table_id, world.timer.armed[table_id])
    row, game = await stored(world.store, table_id)
    assert row.version == 1 and len(game.table) == 1, "the computer's lead is stored"
