"""Lobbies (migration 0003): a group table before its start, its seats and its chat."""

from __future__ import annotations

import pytest

from tests.store.helpers import integrity_error
from tg_durak.play.rows import SeatRow
from tg_durak.storage import AlreadySeated, LobbyClosed, LobbyFull, Store

GROUP, OTHER = -1001, -1002
ANN, BOB, CAT = 1, 2, 3


async def lobby(store: Store, chat_id: int = GROUP, invite: str = "inv1"):
    return await store.lobbies.create(chat_id, ANN, {"deck": 36, "seats": 3}, invite=invite,
                                      expires_at=1000.0, language="ru", thread_id=7)


async def test_a_lobby_is_a_group_table_with_its_host_invite_and_expiry(store: Store) -> None:
    row = await lobby(store)
    assert (row.kind, row.status, row.chat_id, row.seats) == ("group", "lobby", GROUP, ())
    assert (row.host_id, row.thread_id, row.invite, row.expires_at, row.language) == (
        ANN, 7, "inv1", 1000.0, "ru")
    assert (await store.lobbies.by_invite("inv1")).id == row.id
    assert await store.lobbies.by_invite("nope") is None
    assert (await store.lobbies.open_in_chat(GROUP)).id == row.id
    assert await store.lobbies.open_in_chat(OTHER) is None
    assert [t.id for t in await store.lobbies.unstarted()] == [row.id]


async def test_invites_are_unique(store: Store, db_path: str) -> None:
    await lobby(store)
    with pytest.raises(integrity_error(db_path)):
        await lobby(store, OTHER)


async def test_seats_follow_join_order_up_to_the_limit(store: Store) -> None:
    row = await lobby(store)
    await store.lobbies.add_seat(row.id, ANN, "Ann", None, 3)
    await store.lobbies.add_seat(row.id, None, "", "hard", 3)
    row = await store.lobbies.add_seat(row.id, BOB, "Bob", None, 3)
    assert [(s.seat, s.user_id, s.level, s.status) for s in row.seats] == [
        (0, ANN, None, "playing"), (1, None, "hard", "playing"), (2, BOB, None, "playing")]
    with pytest.raises(LobbyFull):
        await store.lobbies.add_seat(row.id, CAT, "Cat", None, 3)
    row = await store.lobbies.remove_seat(row.id, 1)
    row = await store.lobbies.add_seat(row.id, CAT, "Cat", None, 3)
    assert [s.user_id for s in row.seats] == [ANN, BOB, CAT]   # Cat after Bob: join order


async def test_one_open_table_per_person(store: Store) -> None:
    first = await lobby(store)
    await store.lobbies.add_seat(first.id, BOB, "Bob", None, 3)
    second = await lobby(store, OTHER, "inv2")
    with pytest.raises(AlreadySeated) as caught:
        await store.lobbies.add_seat(second.id, BOB, "Bob", None, 3)
    assert caught.value.table_id == first.id
    with pytest.raises(AlreadySeated):
        await store.lobbies.add_seat(first.id, BOB, "Bob", None, 3)
    assert await store.lobbies.close(first.id)
    await store.lobbies.add_seat(second.id, BOB, "Bob", None, 3)   # free again


async def test_start_writes_final_seats_and_the_first_snapshot_at_once(store: Store) -> None:
    row = await lobby(store)
    await store.lobbies.add_seat(row.id, ANN, "Ann", None, 3)
    await store.lobbies.add_seat(row.id, BOB, "Bob", None, 3)
    await store.lobbies.remove_seat(row.id, 0)
    row = await store.lobbies.set_options(row.id, {"deck": 24, "seats": 2})
    assert row.options == {"deck": 24, "seats": 2}
    seats = [SeatRow(0, BOB, "Bob"), SeatRow(1, None, "", "easy")]
    started = await store.lobbies.start(row.id, seats, {"snap": 1})
    assert (started.status, started.snapshot, started.expires_at) == ("running", {"snap": 1}, None)
    assert [(s.seat, s.user_id) for s in started.seats] == [(0, BOB), (1, None)]
    assert await store.lobbies.unstarted() == []
    assert (await store.lobbies.open_in_chat(GROUP)).id == row.id
    for change in (store.lobbies.add_seat(row.id, CAT, "Cat", None, 3),
                   store.lobbies.remove_seat(row.id, 0),
                   store.lobbies.set_options(row.id, {}),
                   store.lobbies.start(row.id, seats, {})):
        with pytest.raises(LobbyClosed):
            await change
    assert not await store.lobbies.close(row.id)


async def test_a_closed_lobby_is_aborted_and_no_longer_open(store: Store) -> None:
    row = await lobby(store)
    assert await store.lobbies.close(row.id)
    closed = await store.tables.get(row.id)
    assert closed.status == "aborted"
    assert await store.lobbies.open_in_chat(GROUP) is None
    assert (await store.lobbies.by_invite("inv1")).status == "aborted"   # a stale invite is told


async def test_migrating_a_chat_moves_its_tables_and_messages(store: Store) -> None:
    row = await lobby(store, -42)
    await store.messages.set(row.id, None, -42, 5)
    await store.tables.migrate_chat(-42, -10042)
    assert (await store.tables.get(row.id)).chat_id == -10042
    assert [(m.chat_id, m.message_id)
            for m in await store.messages.of_table(row.id)] == [(-10042, 5)]
