"""Several processes on one PostgreSQL database, each a table service with a store of its own:
a table started in one is played from another, taps reaching one table through two processes
at once are each applied once, a dead process's due tables are taken up by another, an
update offered to two processes at once changes the table once, and a change rolls back with the
transaction that holds the table's lock."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable

import pytest

from engine import Card, Game
from tests.app.test_table_service import (
    ANN,
    BOB,
    CID,
    ONE_COMPUTER,
    START,
    USER,
    FakeClock,
    World,
    card,
    computer_leads,
    deal_where,
    person_leads,
    service,
    stored,
    three_people,
)
from tg_durak.play.answers import Answer
from tg_durak.play.history import History
from tg_durak.play.ratings import rate
from tg_durak.play.rows import MessageRow, TableRow
from tg_durak.play.stale_taps import round_start
from tg_durak.play.taps import Pass, PlayCard
from tg_durak.storage import Store
from tg_durak.tables.claims import AlreadyHandled, handling
from tg_durak.tables.wake_claims import LATE_SECONDS


@pytest.fixture
async def two(pg_url: str) -> AsyncIterator[tuple[World, World]]:
    """Two processes on one database, on one clock."""
    clock = FakeClock(START)
    stores = [await Store.open(pg_url, rate=rate) for _ in range(2)]
    yield tuple(service(store, clock) for store in stores)
    for store in stores:
        await store.close()


async def test_a_table_started_in_one_process_is_played_from_another(
        two: tuple[World, World], monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = two
    deal_where(monkeypatch, person_leads)
    table_id = await first.tables.start_private(USER, "Ann", ONE_COMPUTER)
    assert await second.tables.running_table_of(USER) == table_id, "found in the store"
    _, game = await stored(first.store, table_id)
    lead = game.legal_actions(0)[0].card
    assert await second.tables.moves.tap(USER, table_id, 0, PlayCard(lead.index)) == Answer()

    # The first process's timer meets a table the second changed: the second's now.
    await first.timer.ring(table_id, first.timer.armed[table_id])
    assert table_id not in first.timer.armed
    assert (await stored(first.store, table_id))[0].version == 1

    # The second plays the computer's answer by its own timer.
    await second.timer.ring(table_id, second.timer.armed[table_id])
    row, game = await stored(first.store, table_id)
    assert row.version == 2 and game.table[0][1] is not None, "the computer beat the card"
    # The first process's copy is brought up to the store before its next tap counts.
    taken = await first.tables.moves.tap(USER, table_id, 2, PlayCard(lead.index))
    assert taken != Answer() and (await stored(first.store, table_id))[0].version == 2
    assert first.tables.core.live(table_id).game.version == 2


async def test_taps_through_two_processes_at_once_are_each_applied_once(
        two: tuple[World, World]) -> None:
    first, second = two
    table_id = await three_people(first)
    assert await second.tables.moves.tap(ANN, table_id, 0, PlayCard(card("6s"))) == Answer()
    taps = [(first, BOB, PlayCard(card("7s"))), (second, ANN, PlayCard(card("6c"))),
            (first, CID, PlayCard(card("6d")))]
    replies = await asyncio.gather(*(w.tables.moves.tap(u, table_id, 1, t) for w, u, t in taps))
    assert replies == [Answer()] * 3
    row, game = await stored(first.store, table_id)
    assert row.version == 4
    assert sorted(a for a, _ in game.table) == sorted(map(Card.parse, ("6s", "6c", "6d")))
    again = await asyncio.gather(*(w.tables.moves.tap(u, table_id, 1, t) for w, u, t in taps))
    assert again == [Answer("tap.stale")] * 3, "each tap moves once"
    assert (await first.store.tables.get(table_id)).version == 4


async def test_a_dead_process_s_due_table_is_taken_up_by_another(
        two: tuple[World, World], monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = two
    deal_where(monkeypatch, computer_leads)
    table_id = await first.tables.start_private(USER, "Ann", ONE_COMPUTER)
    due = first.timer.armed[table_id]   # the computer's lead; then the first process dies
    assert second.tables.wake_claims is not None

    second.clock.now = due + LATE_SECONDS / 2
    assert await second.tables.wake_claims.claim_once() == [], "its own process may be late"
    second.clock.now = due + LATE_SECONDS
    assert await second.tables.wake_claims.claim_once() == [table_id]
    await asyncio.gather(*second.tables.wake_claims._waking)
    # Taken up, the computer's pause has run already (on the dead process): it leads at once.
    row, game = await stored(second.store, table_id)
    assert row.version == 1 and len(game.table) == 1, "the computer led"
    assert await second.tables.wake_claims.claim_once() == [], "its wake is stored anew"


async def test_an_update_offered_to_two_processes_at_once_changes_the_table_once(
        two: tuple[World, World]) -> None:
    first, second = two
    table_id = await three_people(first)

    async def offer(world: World) -> Answer | str:
        with handling(4242), contextlib.suppress(AlreadyHandled):
            return await world.tables.moves.tap(ANN, table_id, 0, PlayCard(card("6s")))
        return "already handled"

    replies = await asyncio.gather(offer(first), offer(second))
    assert sorted(map(str, replies)) == sorted(map(str, [Answer(), "already handled"]))
    assert (await first.store.tables.get(table_id)).version == 1
    assert await first.store.updates.handled(4242)


async def test_a_table_moved_on_elsewhere_is_caught_up_by_replaying_only_the_new_entries(
        two: tuple[World, World], monkeypatch: pytest.MonkeyPatch) -> None:
    """The held game takes the other process's entries in place (not a new game read from the
    deal), and ends exactly as stored, history included; a log that does not continue it is
    read whole instead."""
    first, second = two
    deal_where(monkeypatch, person_leads)
    table_id = await first.tables.start_private(USER, "Ann", ONE_COMPUTER)
    held = first.tables.core.live(table_id)
    assert held is not None
    game = held.game
    _, stored_game = await stored(first.store, table_id)
    lead = stored_game.legal_actions(0)[0].card
    assert await second.tables.moves.tap(USER, table_id, 0, PlayCard(lead.index)) == Answer()
    await second.timer.ring(table_id, second.timer.armed[table_id])   # the computer answers

    async with first.tables.core.lock(table_id):
        pass
    caught = first.tables.core.live(table_id)
    row, stored_game = await stored(first.store, table_id)
    assert caught is held and caught.game is game, "replayed in place"
    assert game.version == row.version == 2
    assert game.to_dict(log=False) == stored_game.to_dict(log=False)
    assert game.history == Game.replay(stored_game.to_dict()).history

    # Entries that do not lead to the stored state (here: none read): read whole instead.
    more = next(a.card for a in stored_game.legal_actions(0) if a.card is not None)
    assert await second.tables.moves.tap(USER, table_id, 2, PlayCard(more.index)) == Answer()
    since = first.store.tables.since

    async def nothing_new(table_id: int, version: int) -> tuple[TableRow, list[list]] | None:
        found = await since(table_id, version)
        return None if found is None else (found[0], [])

    monkeypatch.setattr(first.store.tables, "since", nothing_new)
    async with first.tables.core.lock(table_id):
        pass
    whole = first.tables.core.live(table_id)
    assert whole is held and whole.game is not game, "the game read whole"
    assert whole.game.version == (await stored(first.store, table_id))[0].version


async def play_elsewhere(world: World, table_id: int, until: Callable[[Game], bool]) -> None:
    """The person's first legal card or pass, and the other process's timer, until `until`
    holds for the stored game: moves another process makes while this one looks away."""
    while True:
        row, game = await stored(world.store, table_id)
        if until(game):
            return
        if table_id in world.timer.armed:
            await world.timer.ring(table_id, world.timer.armed[table_id])
        if (await stored(world.store, table_id))[0].version != row.version:
            continue
        move = game.legal_actions(0)[0]
        tap = Pass() if move.card is None else PlayCard(move.card.index)
        assert await world.tables.moves.tap(USER, table_id, row.version, tap) == Answer()


async def test_a_catch_up_by_replay_keeps_the_history_and_the_round_and_reads_no_message(
        two: tuple[World, World], monkeypatch: pytest.MonkeyPatch) -> None:
    """What the screens tell of the last moves is extended by the other process's moves (not
    built anew from the log), where the current round began is followed through them, and
    the messages this process holds are not read again."""
    first, second = two
    deal_where(monkeypatch, person_leads)
    table_id = await first.tables.start_private(USER, "Ann", ONE_COMPUTER, message=(USER, 42))
    held = first.tables.core.live(table_id)
    assert held is not None
    history = held.history
    assert held.round_from == 0, "a new table's round began at the deal"
    await play_elsewhere(second, table_id, lambda game: game.version > 0 and not game.table)

    reads = []
    of_table = first.store.messages.of_table

    async def counted(table_id: int) -> list[MessageRow]:
        reads.append(table_id)
        return await of_table(table_id)

    monkeypatch.setattr(first.store.messages, "of_table", counted)
    async with first.tables.core.lock(table_id):
        pass
    game = held.game
    assert first.tables.core.live(table_id) is held and first.tables.core.stored.reread == 1
    assert held.history is history, "extended, not built anew"
    fresh = History.of(Game.replay(game.to_dict()))
    assert history.recent == fresh.recent and history.recent
    assert history.played_by(game.table) == fresh.played_by(game.table)
    assert held.round_from == round_start(game) > 0, "a round ended elsewhere"
    assert reads == [], "its message is held"


async def test_a_catch_up_keeps_the_computer_s_pause_running_from_the_change_it_reacts_to(
        two: tuple[World, World], monkeypatch: pytest.MonkeyPatch) -> None:
    """R10.3 whatever process holds the table: a computer's pause runs from the change it
    reacts to. A process that catches up later (round robin hands it the person's next tap)
    keeps it there, instead of starting it again as it catches up, so that a move of the
    person's that does not concern the computer leaves it due when it was."""
    first, second = two
    deal_where(monkeypatch, person_leads)
    table_id = await first.tables.start_private(USER, "Ann", ONE_COMPUTER)
    _, game = await stored(first.store, table_id)
    lead = game.legal_actions(0)[0].card
    assert await second.tables.moves.tap(USER, table_id, 0, PlayCard(lead.index)) == Answer()
    ((seat, planned),) = second.tables.core.live(table_id).reactions.items()

    first.clock.now += 0.5   # the next update reaches the first process a little later
    async with first.tables.core.lock(table_id):
        pass
    caught_up = first.tables.core.live(table_id).reactions
    assert first.tables.core.stored.reread == 1
    assert caught_up[seat].at == planned.at, "due when the other process planned it"
    assert caught_up[seat].options == planned.options


async def test_a_timer_another_process_made_stale_takes_no_lock(
        two: tuple[World, World], monkeypatch: pytest.MonkeyPatch) -> None:
    """Once another process has changed a table, a timer of this one that fires after another
    change of it there is let go on one narrow read: the table is not read under its lock (it
    is, as ever, by the next change made here)."""
    first, second = two
    deal_where(monkeypatch, person_leads)
    table_id = await first.tables.start_private(USER, "Ann", ONE_COMPUTER)
    await play_elsewhere(second, table_id, lambda game: game.version >= 2)
    async with first.tables.core.lock(table_id):   # caught up: changed elsewhere
        pass
    held = first.tables.core.live(table_id)
    assert held is not None and held.game.version == 2 and first.tables.core.stored.reread == 1
    assert table_id in first.timer.armed

    await play_elsewhere(second, table_id, lambda game: game.version > 2)
    await first.timer.ring(table_id, first.timer.armed[table_id])
    assert table_id not in first.timer.armed, "the other process's to wake"
    assert first.tables.core.stored.reread == 1 and held.game.version == 2, "nothing read"

    row, game = await stored(first.store, table_id)
    move = game.legal_actions(0)[0]
    tap = Pass() if move.card is None else PlayCard(move.card.index)
    assert await first.tables.moves.tap(USER, table_id, row.version, tap) == Answer()
    assert held.game.version == row.version + 1 == (await stored(first.store, table_id))[0].version


async def test_a_change_is_stored_with_the_locks_transaction_or_not_at_all(
        two: tuple[World, World], monkeypatch: pytest.MonkeyPatch) -> None:
    """On a shared database a change joins the transaction that holds the table's lock, with
    the update's claim and the table's next wake: a fault before that transaction ends leaves
    none of them stored."""
    first, _ = two
    deal_where(monkeypatch, person_leads)
    table_id = await first.tables.start_private(USER, "Ann", ONE_COMPUTER)
    _, game = await stored(first.store, table_id)
    lead = game.legal_actions(0)[0].card

    async def fails(table_id: int, at: float | None) -> None:
        raise RuntimeError("the wake could not be stored")

    monkeypatch.setattr(first.store.wakes, "set", fails)   # the lock's last write
    with pytest.raises(RuntimeError):
        await first.tables.moves.tap(USER, table_id, 0, PlayCard(lead.index))
    assert (await stored(first.store, table_id))[0].version == 0, "the change rolled back too"
