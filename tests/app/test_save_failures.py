"""The store refuses a change (a full disk, a lock held too long): the table goes back to what
is stored, the tap is refused politely, and the table's timer tries again a moment later rather
than at once (which, with the store still refusing, would spin). Changes that are not moves
(resigning, leaving, removing someone, coming back, a lobby's expiry) write first and change
memory only once stored: refused, they leave the table as it was (the handlers answer the
StoreUnavailable politely) and may be tried again."""

from __future__ import annotations

import sqlite3

import pytest

from tests.app.test_group_tables import lobby_of, no_admin
from tests.app.test_table_service import (
    ANN,
    BOB,
    CID,
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
    three_people,
)
from tests.store.helpers import ONE_PROCESS
from tg_durak.play.answers import OK, Answer
from tg_durak.play.rows import TableChange
from tg_durak.play.taps import Pass, PlayCard
from tg_durak.storage import Store, StoreUnavailable
from tg_durak.tables.core import SAVE_RETRY_SECONDS


@pytest.fixture
def world(store: Store) -> World:
    return service(store, FakeClock(START))


def refuse_writes(world: World, monkeypatch: pytest.MonkeyPatch, method: str = "tables.record"
                  ) -> list[object]:
    """Every call of the store's `method` ("repository.method") fails as a full disk makes it
    fail; returns the list of tries (each one's first argument; of a change, its table)."""
    tries: list[object] = []

    async def full(first: object, *args: object, **kwargs: object) -> int:
        tries.append(first.table_id if isinstance(first, TableChange) else first)
        raise StoreUnavailable("the database refused a write") from sqlite3.OperationalError(
            "database or disk is full")

    repository, name = method.split(".")
    monkeypatch.setattr(getattr(world.store, repository), name, full)
    return tries


async def test_a_refused_tap_leaves_the_table_as_stored(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    deal_where(monkeypatch, person_leads)
    table_id = await world.tables.start_private(USER, "Ann", ONE_COMPUTER)
    row, game = await stored(world.store, table_id)
    card = game.legal_actions(0)[0].card
    with monkeypatch.context() as patch:
        tries = refuse_writes(world, patch)
        reply = await world.tables.moves.tap(USER, table_id, 0, PlayCard(card.index))
    assert reply == Answer("error.not_saved", alert=True)
    assert tries == [table_id]
    live = world.tables.core.tables[table_id]
    assert live.game.to_dict(log=False) == row.snapshot, "memory is what the store holds"
    assert world.timer.armed[table_id] == START + SAVE_RETRY_SECONDS
    assert await world.tables.moves.tap(USER, table_id, 0, PlayCard(card.index)) == Answer()
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


async def test_a_refused_resignation_leaves_the_game_running(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    deal_where(monkeypatch, person_leads)
    table_id = await world.tables.start_private(USER, "Ann", ONE_COMPUTER)
    due = world.timer.armed[table_id]
    with monkeypatch.context() as patch:
        tries = refuse_writes(world, patch, "tables.finish")
        with pytest.raises(StoreUnavailable):
            await world.tables.absences.resign(USER)
    assert tries == [table_id]
    live = world.tables.core.tables[table_id]
    assert live.resigned is None and not live.finished, "memory is what the store holds"
    assert await world.tables.running_table_of(USER) == table_id
    assert world.timer.armed[table_id] == due, "its clock runs on"
    assert (await world.store.tables.get(table_id)).status == "running"
    card = live.game.legal_actions(0)[0].card
    assert await world.tables.moves.tap(USER, table_id, 0, PlayCard(card.index)) == Answer(), \
        "he plays on"
    assert await world.tables.absences.resign(USER) is True, "and may resign once the store is back"
    assert (await world.store.tables.get(table_id)).status == "aborted"
    assert await world.tables.running_table_of(USER) is None


async def an_admin() -> bool:
    return True


@pytest.mark.parametrize("how", ["leave", "kick"])
async def test_a_refused_leave_or_kick_keeps_the_seat(
        world: World, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    table_id = await three_people(world)
    await world.store.users.ensure(BOB, "Bob")
    await world.tables.absences.mark_unreachable(BOB)   # away: the host may remove him
    live = world.tables.core.tables[table_id]
    shown = len(world.shown_to(BOB))
    with monkeypatch.context() as patch:
        tries = refuse_writes(world, patch, "tables.set_seat_status")
        with pytest.raises(StoreUnavailable):
            if how == "leave":
                await world.tables.absences.leave_game(BOB)
            else:
                await world.tables.absences.kick(-100, BOB, ANN, an_admin)
    assert tries == [table_id]
    assert [s.status for s in live.row.seats] == ["playing"] * 3
    assert [s.status for s in (await world.store.tables.get(table_id)).seats] == ["playing"] * 3
    assert live.away == {1} and await world.tables.running_table_of(BOB) == table_id
    assert len(world.shown_to(BOB)) == shown, "no note that he is out"
    assert (await world.tables.absences.leave_game(BOB)).key == "leave.done", \
        "tried again, it works"


async def test_when_the_end_the_last_leaver_brings_is_refused_the_timer_tries_again(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    table_id = await three_people(world)
    for user in (ANN, BOB):
        assert (await world.tables.absences.leave_game(user)).key == "leave.done"
    with monkeypatch.context() as patch:
        tries = refuse_writes(world, patch)
        # his seat is stored
        assert (await world.tables.absences.leave_game(CID)).key == "leave.done"
        assert tries == [table_id]
        retry = world.timer.armed[table_id]
        assert retry == START + SAVE_RETRY_SECONDS
        await world.timer.ring(table_id, retry)
        assert tries == [table_id] * 2, "the end is tried again, not forgotten"
    assert (await world.store.tables.get(table_id)).status == "running"
    await world.timer.ring(table_id, world.timer.armed[table_id])
    row = await world.store.tables.get(table_id)
    assert row.status == "finished" and table_id not in world.timer.armed
    assert table_id not in world.tables.core.tables
    for user in (ANN, BOB, CID):
        assert (await world.store.results.stats(user)).resigned == 1


@ONE_PROCESS
async def test_an_end_still_refused_at_a_stop_is_stored_after_the_restart(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    table_id = await three_people(world)
    for user in (ANN, BOB):
        assert (await world.tables.absences.leave_game(user)).key == "leave.done"
    with monkeypatch.context() as patch:
        refuse_writes(world, patch)
        assert (await world.tables.absences.leave_game(CID)).key == "leave.done"
    assert (await world.store.tables.get(table_id)).status == "running"   # then the bot stops

    after = service(world.store, FakeClock(world.clock.now + 60))
    assert await after.tables.restart.resume() == 1
    await after.timer.ring(table_id, after.timer.armed[table_id])
    assert (await world.store.tables.get(table_id)).status == "finished"
    assert table_id not in after.timer.armed and table_id not in after.tables.core.tables
    for user in (ANN, BOB, CID):
        assert (await world.store.results.stats(user)).resigned == 1


async def test_a_refused_coming_back_leaves_him_away(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    table_id = await three_people(world)
    await world.store.users.ensure(BOB, "Bob")
    await world.tables.absences.mark_unreachable(BOB)
    live = world.tables.core.tables[table_id]
    with monkeypatch.context() as patch:
        refuse_writes(world, patch, "users.set_reachable")
        with pytest.raises(StoreUnavailable):
            await world.tables.moves.tap(BOB, table_id, 0, Pass())
    assert live.away == {1}, "still away, as stored"
    assert not (await world.store.users.get(BOB)).reachable
    await world.tables.moves.tap(BOB, table_id, 0, Pass())
    assert live.away == frozenset() and (await world.store.users.get(BOB)).reachable


async def test_a_lobby_whose_closing_is_refused_expires_a_moment_later(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    table_id = await lobby_of(world)
    due = world.timer.armed[table_id]
    with monkeypatch.context() as patch:
        tries = refuse_writes(world, patch, "lobbies.close")
        await world.timer.ring(table_id, due)
        assert tries == [table_id]
        assert world.timer.armed[table_id] == due + SAVE_RETRY_SECONDS, "not forgotten"
        assert await world.tables.running_table_of(ANN) == table_id, "open, as stored"
    await world.timer.ring(table_id, world.timer.armed[table_id])
    assert await world.tables.running_table_of(ANN) is None
    assert (await world.store.tables.get(table_id)).status == "aborted"


async def test_a_full_lobby_whose_start_is_refused_stays_open_and_shows_every_seat(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    table_id = await lobby_of(world)
    for _ in range(2):
        assert await world.tables.lobbies.add_computer(table_id, "easy") == OK
    with monkeypatch.context() as patch:
        tries = refuse_writes(world, patch, "lobbies.start")
        world.publisher.shown.clear()
        assert await world.tables.lobbies.add_computer(table_id, "easy") == OK   # the last seat
        assert tries == [table_id]
    row = await world.store.tables.get(table_id)
    assert row.status == "lobby" and len(row.seats) == 4, "the seat is stored, the table not"
    group = [s.screen.text for s in world.publisher.shown if s.key == (table_id, None)]
    assert group and group[-1].count("🤖") == 3, "the full lobby is shown"
    assert await world.tables.lobbies.start(table_id, ANN, no_admin) == OK
    assert (await world.store.tables.get(table_id)).status == "running"

