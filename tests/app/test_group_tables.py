"""The table service's group side (group_tables.py) with a hand-wound clock: a lobby's seats,
its start into a running table on the same messages, its expiry, and a restart in between."""

from __future__ import annotations

import pytest

from tests.app.test_table_service import START, FakeClock, World, service
from tests.store.helpers import ONE_PROCESS
from tg_durak.i18n.translate import translator
from tg_durak.play.answers import Answer
from tg_durak.play.lobby_rules import LOBBY_SECONDS
from tg_durak.play.rows import UserRow
from tg_durak.storage import Store

GROUP = -1001
ANN, BOB = 11, 12


@pytest.fixture
def world(store: Store) -> World:
    return service(store, FakeClock(START))


async def no_admin() -> bool:
    return False


async def person(store: Store, user_id: int, name: str, reachable: bool) -> UserRow:
    await store.users.ensure(user_id, name)
    await store.users.set_language(user_id, "en")
    await store.users.set_reachable(user_id, reachable)
    return await store.users.get(user_id)


async def lobby_of(world: World) -> int:
    ann = await person(world.store, ANN, "Ann", reachable=True)
    assert await world.tables.lobbies.open(GROUP, ann, "Ann") == Answer()
    table_id = await world.tables.running_table_of(ANN)
    await world.tables.chats.message_sent((table_id, None), GROUP, 5)   # the lobby message
    await world.tables.chats.message_sent((table_id, ANN), ANN, 6)      # Ann's waiting message
    return table_id


async def test_a_lobby_seats_people_and_starts_on_the_same_messages(world: World) -> None:
    table_id = await lobby_of(world)
    bob = await person(world.store, BOB, "Bob", reachable=False)
    row = await world.store.tables.get(table_id)
    assert world.timer.armed[table_id] == row.expires_at == START + LOBBY_SECONDS
    assert await world.tables.lobbies.join(table_id, bob, "Bob") == Answer(start=row.invite)
    assert await world.tables.lobbies.join_by_invite(row.invite, BOB, "Bob") == Answer()
    await world.tables.chats.message_sent((table_id, BOB), BOB, 7)
    assert [s.user_id for s in (await world.store.tables.get(table_id)).seats] == [ANN, BOB]
    assert (await world.tables.lobbies.start(table_id, BOB, no_admin)).key == "lobby.host_only"
    world.publisher.shown.clear()
    assert await world.tables.lobbies.start(table_id, ANN, no_admin) == Answer()

    row = await world.store.tables.get(table_id)
    assert (row.status, row.version) == ("running", 0) and row.snapshot is not None
    shown = {s.key: (s.chat_id, s.message_id) for s in world.publisher.shown}
    assert shown == {(table_id, ANN): (ANN, 6), (table_id, BOB): (BOB, 7),
                     (table_id, None): (GROUP, 5)}   # every message edited, none sent anew
    group = next(s.screen for s in world.publisher.shown if s.key == (table_id, None))
    assert group.text.startswith("Trump")
    assert row.expires_at is None
    assert world.timer.armed[table_id] < START + LOBBY_SECONDS   # the game's timers, not expiry


async def test_a_lobby_expires_when_its_time_comes(world: World) -> None:
    table_id = await lobby_of(world)
    due = world.timer.armed[table_id]
    await world.timer.ring(table_id, due - 1)   # woken early: it waits on
    assert await world.tables.running_table_of(ANN) == table_id
    assert world.timer.armed[table_id] == due
    await world.timer.ring(table_id, due)
    assert await world.tables.running_table_of(ANN) is None
    assert (await world.store.tables.get(table_id)).status == "aborted"
    t = translator("en")
    last = {s.key: s.screen.text for s in world.publisher.shown}
    assert last[(table_id, None)] == t("lobby.expired")
    assert last[(table_id, ANN)] == t("lobby.expired.private")


@ONE_PROCESS
async def test_a_lobby_lives_on_after_a_restart(store: Store) -> None:
    before = service(store, FakeClock(START))
    table_id = await lobby_of(before)
    after = service(store, FakeClock(START + 60))   # a new process
    await after.tables.restart.resume()
    assert after.timer.armed[table_id] == START + LOBBY_SECONDS
    assert await after.tables.running_table_of(ANN) == table_id
    bob = await person(store, BOB, "Bob", reachable=True)
    assert (await after.tables.lobbies.join(table_id, bob, "Bob")).key == "lobby.joined"
    group = [s for s in after.publisher.shown if s.key == (table_id, None)]
    assert group[-1].message_id == 5 and "2. Bob" in group[-1].screen.text
