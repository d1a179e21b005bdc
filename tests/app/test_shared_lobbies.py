"""Two processes' table services on one PostgreSQL database: a lobby one process still holds in
memory may have started (or closed) in the other, and the taps that reach the first must meet
the table as it is stored, not the lobby it remembers."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.app.test_group_tables import ANN, BOB, GROUP, lobby_of, no_admin, person
from tests.app.test_table_service import START, FakeClock, World, service
from tg_durak.play.answers import Answer
from tg_durak.play.ratings import rate
from tg_durak.play.taps import PlayCard
from tg_durak.storage import Store


@pytest.fixture
async def two(pg_url: str) -> AsyncIterator[tuple[World, World]]:
    """Two processes' services, each on its own connection to one database."""
    stores = [await Store.open(pg_url, rate=rate) for _ in range(2)]
    worlds = (service(stores[0], FakeClock(START)), service(stores[1], FakeClock(START)))
    yield worlds
    for world in worlds:
        await world.tables.close()
    for store in stores:
        await store.close()


async def test_a_lobby_started_in_another_process_takes_the_taps_of_its_game(
        two: tuple[World, World]) -> None:
    first, second = two
    table_id = await lobby_of(first)
    bob = await person(second.store, BOB, "Bob", reachable=True)
    assert await second.tables.lobbies.join(table_id, bob, "Bob") == Answer("lobby.joined")
    assert await first.tables.lobbies.start(table_id, ANN, no_admin) == Answer()

    assert (await second.store.tables.get(table_id)).status == "running"
    live = await first.tables.core.find(table_id)
    leads = live.game.attacker
    leader = next(s.user_id for s in live.row.seats if s.seat == leads)
    card = live.game.legal_actions(leads)[0].card
    # The tap reaches the process that still remembers the lobby.
    answer = await second.tables.moves.tap(leader, table_id, 0, PlayCard(card.index))
    assert answer == Answer(), "the game's first move, not 'this game is over'"
    assert (await second.store.tables.get(table_id)).version == 1
    assert await second.tables.running_table_of(BOB) == table_id


async def test_a_lobby_closed_in_another_process_is_no_ones_lobby_any_more(
        two: tuple[World, World]) -> None:
    first, second = two
    table_id = await lobby_of(first)
    bob = await person(second.store, BOB, "Bob", reachable=True)
    assert await second.tables.lobbies.join(table_id, bob, "Bob") == Answer("lobby.joined")
    due = first.timer.armed[table_id]
    await first.timer.ring(table_id, due)   # it expires in the first
    assert (await first.store.tables.get(table_id)).status == "aborted"
    assert await second.tables.running_table_of(BOB) is None
    assert await second.tables.core.find_in_chat(GROUP) == []
