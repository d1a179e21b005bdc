"""Quick games' matching (play/matching.py, pure) over many queue orders, and the store's claim
of a table from the queue (storage/quick_games.py) on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from typing import TypeVar

import psycopg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Game, Rules, Variant
from tests.app.test_table_service import ONE_COMPUTER, START, FakeClock, service
from tg_durak.play.matching import (
    LOOK_AHEAD,
    QUICK_CHAT,
    QueueEntry,
    QuickGame,
    ReportReason,
    blocked_pairs,
    match,
)
from tg_durak.play.ratings import rate
from tg_durak.play.rows import SeatRow, TableKind, TableStatus
from tg_durak.storage import Store

PEOPLE = list(range(1, 11))


@st.composite
def queues(draw: st.DrawFn) -> tuple[list[int], frozenset[frozenset[int]], int]:
    """A queue (some of ten people, in any order), reports among them, a table's size."""
    order = draw(st.permutations(PEOPLE))
    queue = order[:draw(st.integers(0, len(PEOPLE)))]
    reports = draw(st.lists(st.tuples(st.sampled_from(PEOPLE), st.sampled_from(PEOPLE)),
                            max_size=20))
    return list(queue), blocked_pairs(reports), draw(st.integers(2, 6))


def _fine(group: tuple[int, ...], blocked: frozenset[frozenset[int]]) -> bool:
    return all(frozenset(pair) not in blocked for pair in itertools.combinations(group, 2))


@settings(max_examples=400, deadline=None)
@given(queues())
def test_people_who_reported_each_other_are_never_seated_together(case) -> None:
    queue, blocked, seats = case
    group = match(queue, seats, blocked)
    possible = [g for g in itertools.combinations(queue, seats) if _fine(g, blocked)]
    if group is None:
        assert possible == [], "a table was possible and none opened"
        return
    assert len(group) == seats == len(set(group)) and set(group) <= set(queue)
    assert _fine(group, blocked)
    # The earliest joiners first: the first possible group in the queue's order.
    assert group == possible[0]


@settings(max_examples=400, deadline=None)
@given(queues(), st.data())
def test_one_who_starts_now_takes_whoever_may_sit_with_him(case, data) -> None:
    queue, blocked, seats = case
    if not queue:
        assert match(queue, seats, blocked, first=1) is None
        return
    first = data.draw(st.sampled_from(queue))
    group = match(queue, seats, blocked, first=first)
    assert group is not None and group[0] == first
    assert 1 <= len(group) <= seats and set(group) <= set(queue) and _fine(group, blocked)
    # No bigger group with him was possible: computers take only the seats nobody could.
    others = [p for p in queue if p != first]
    for size in range(len(group), seats):
        assert not any(_fine((first, *rest), blocked)
                       for rest in itertools.combinations(others, size))


def test_a_long_queue_is_looked_at_from_its_start() -> None:
    queue = list(range(1, 1000))
    assert match(queue, 6, frozenset()) == (1, 2, 3, 4, 5, 6)
    # The first person blocked with everyone of the first LOOK_AHEAD: the others still meet.
    blocked = blocked_pairs([(1, p) for p in range(2, LOOK_AHEAD + 1)])
    assert match(queue, 3, blocked) == (2, 3, 4)


def test_the_game_and_its_key() -> None:
    game = QuickGame.fitting(Variant.TRANSFER, 5, 24)   # 24 cards seat four: the deck gives way
    assert (game.players, game.deck) == (5, 36)
    assert QuickGame.of_key(game.key) == game
    for bad in ("throw-in/7/36", "throw-in/1/36", "poker/2/36", "throw-in/2/40", "x"):
        with pytest.raises(ValueError):
            QuickGame.of_key(bad)


# ---- the store: the queue, the claim, the reports, /notify ------------------------------------

@pytest.fixture
async def store(db_path: str):
    s = await Store.open(db_path, rate=rate)
    yield s
    await s.close()


def _entry(user_id: int, game: QuickGame, at: float) -> QueueEntry:
    return QueueEntry(user_id, game, f"P{user_id}", user_id, 100 + user_id, at, at + 30)


async def _people(store: Store, *user_ids: int) -> None:
    for user_id in user_ids:
        await store.users.ensure(user_id, f"P{user_id}")
        await store.users.set_reachable(user_id, True)


async def test_a_claim_seats_the_chosen_and_takes_them_out_of_the_queue(store: Store) -> None:
    game = QuickGame(Variant.THROW_IN, 3, 36)
    other = QuickGame(Variant.TRANSFER, 3, 36)
    await _people(store, 1, 2, 3, 4, 5)
    for at, user_id in enumerate((1, 2, 3, 4)):
        await store.quick.join(_entry(user_id, game, at))
    await store.quick.join(_entry(5, other, 9))
    await store.quick.report(2, 1, 77, ReportReason.NAME)   # 1 and 2 never meet
    claimed = await store.quick.claim(game, lambda q, b: match(q, 3, b), snapshot={},
                                      level="normal", language="en")
    assert claimed is not None
    row, entries = claimed
    assert [e.user_id for e in entries] == [1, 3, 4]
    assert (row.chat_id, row.kind, row.status) == (QUICK_CHAT, TableKind.GROUP,
                                                   TableStatus.RUNNING)
    assert [s.user_id for s in row.seats] == [1, 3, 4]
    assert [e.user_id for e in await store.quick.waiting()] == [2, 5]
    # Nobody left to seat: no table, nothing changes.
    assert await store.quick.claim(game, lambda q, b: match(q, 3, b), snapshot={},
                                   level="normal", language="en") is None
    # Alone with computers: his seat and two computers'.
    row, entries = await store.quick.claim(other, lambda q, b: match(q, 3, b, first=5),
                                           snapshot={}, level="easy", language="en")
    assert [(s.user_id, s.level) for s in row.seats] == [(5, None), (None, "easy"),
                                                         (None, "easy")]
    assert await store.quick.reports() == {ReportReason.NAME: 1}
    assert await store.quick.reports(1) == {ReportReason.NAME: 1}
    assert await store.quick.reports(2) == {}


async def test_who_is_unreachable_banned_or_seated_is_not_matched(store: Store) -> None:
    game = QuickGame(Variant.THROW_IN, 2, 36)
    await _people(store, 1, 2, 3, 4)
    await store.users.set_reachable(1, False)
    await store.operators.ban(2, by=99, at=0)
    await store.tables.create(3, TableKind.PRIVATE, TableStatus.RUNNING, {},
                              [_seat(3)], {})
    for at, user_id in enumerate((1, 2, 3, 4)):
        await store.quick.join(_entry(user_id, game, at))
    assert await store.quick.claim(game, lambda q, b: match(q, 2, b), snapshot={},
                                   level="normal", language="en") is None
    # The unreachable and the seated are let go of the queue; the banned one waits in vain.
    assert await store.quick.unplayable() == [1, 3]


def _seat(user_id: int) -> SeatRow:
    return SeatRow(0, user_id, f"P{user_id}")


async def test_each_subscriber_hears_of_a_lobby_once(store: Store) -> None:
    chat = -100123
    await _people(store, 1, 2, 3)
    await store.users.set_reachable(3, False)
    assert await store.quick.subscribe(chat, 1, "Cards")
    assert not await store.quick.subscribe(chat, 1, "Cards!")
    assert await store.quick.subscribe(chat, 2, "Cards")
    assert await store.quick.subscribe(chat, 3, "Cards")
    assert await store.quick.to_tell(chat, 10) == [(1, "Cards!"), (2, "Cards")]
    assert await store.quick.to_tell(chat, 10) == []
    assert await store.quick.unsubscribe(chat, 2)
    assert not await store.quick.unsubscribe(chat, 2)
    assert await store.quick.to_tell(chat, 11) == [(1, "Cards!")]
    assert await store.quick.to_tell(-5, 12) == []


async def test_processes_claiming_at_once_never_seat_one_person_twice(pg_url: str) -> None:
    """Several webhook processes on one PostgreSQL database claim from the same queue at once:
    each person sits at one table at most, and every table is full."""
    game = QuickGame(Variant.TRANSFER, 2, 36)
    stores = [await Store.open(pg_url, rate=rate) for _ in range(4)]
    try:
        await _waiting(stores[0], game, *range(1, 8))
        claims = await asyncio.gather(*(
            s.quick.claim(game, lambda q, b: match(q, 2, b), snapshot={}, level="normal",
                          language="en") for s in stores for _ in range(2)))
        seated = [e.user_id for claim in claims if claim is not None for e in claim[1]]
        assert sorted(seated) == list(range(1, 7))   # three tables of two; one waits on
        assert all(len(claim[0].seats) == 2 for claim in claims if claim is not None)
        assert [e.user_id for e in await stores[0].quick.waiting()] == [7]
    finally:
        for s in stores:
            await s.close()


async def _waits_for_a_lock(watcher: psycopg.AsyncConnection) -> bool:
    """Whether a session of the watcher's database waits for a lock now."""
    cursor = await watcher.execute(
        "SELECT COUNT(*) FROM pg_locks WHERE NOT granted AND database ="
        " (SELECT oid FROM pg_database WHERE datname = current_database())")
    row = await cursor.fetchone()
    return row is not None and row[0] > 0


R = TypeVar("R")
T = TypeVar("T")


async def _waiting(store: Store, game: QuickGame, *user_ids: int) -> None:
    """People who have used the bot, waiting in the queue for `game` in this order."""
    await _people(store, *user_ids)
    for at, user_id in enumerate(user_ids):
        await store.quick.join(_entry(user_id, game, at))


async def _while_held(pg_url: str, holder: Store, what: str, hold: Callable[[], Awaitable[R]],
                      other: Callable[[], Awaitable[T]]) -> tuple[R, T]:
    """`hold` written in `holder`'s transaction, kept open until `other` (another process's
    store) waits for a lock behind it; then both results, `other`'s once it got through."""
    async with await psycopg.AsyncConnection.connect(pg_url, autocommit=True) as watcher:
        async with holder.held(what):
            held = await hold()
            task = asyncio.create_task(other())
            while not task.done() and not await _waits_for_a_lock(watcher):
                await asyncio.sleep(0.01)
        return held, await task


async def test_a_claim_seats_nobody_who_sits_down_at_a_lobby_meanwhile(pg_url: str) -> None:
    """One process seats a waiting person at a lobby, its transaction not committed yet, while
    another claims a table for him from the queue: the claim waits for his seat, then seats
    nobody (the queue's next round goes on without him; the tables let him go of it)."""
    game = QuickGame(Variant.THROW_IN, 2, 36)
    lobby_side = await Store.open(pg_url, rate=rate)
    queue_side = await Store.open(pg_url, rate=rate)
    try:
        await _waiting(lobby_side, game, 1, 2)
        lobby = await lobby_side.lobbies.create(-100, 1, {}, invite="i", expires_at=1e12,
                                                language="en")
        _, claimed = await _while_held(
            pg_url, lobby_side, "a lobby's change",
            lambda: lobby_side.lobbies.add_seat(lobby.id, 1, "P1", None, 4),
            lambda: queue_side.quick.claim(game, lambda q, b: match(q, 2, b), snapshot={},
                                           level="normal", language="en"))
        assert claimed is None
        assert [e.user_id for e in await queue_side.quick.waiting()] == [1, 2]
        seated = await queue_side.tables.for_user(1)
        assert seated is not None and seated.id == lobby.id
    finally:
        await lobby_side.close()
        await queue_side.close()


async def test_a_claim_seats_nobody_who_starts_a_private_game_meanwhile(pg_url: str) -> None:
    """One process stores a waiting person's private game (Play), its transaction not
    committed yet, while another claims a table for him from the queue: the claim waits for
    his seat, then seats nobody. He has one table, his private game."""
    game = QuickGame(Variant.THROW_IN, 2, 36)
    private_side = await Store.open(pg_url, rate=rate)
    queue_side = await Store.open(pg_url, rate=rate)
    try:
        await _waiting(private_side, game, 1, 2)
        private, claimed = await _while_held(
            pg_url, private_side, "a private game's start",
            lambda: private_side.tables.create(
                1, TableKind.PRIVATE, TableStatus.RUNNING, {},
                [_seat(1), SeatRow(1, None, "", "normal")], {}, one_table=True),
            lambda: queue_side.quick.claim(game, lambda q, b: match(q, 2, b), snapshot={},
                                           level="normal", language="en"))
        assert claimed is None
        assert await queue_side.tables.seated_at(1) == private.id
        assert await queue_side.tables.for_user(2) is None
    finally:
        await private_side.close()
        await queue_side.close()


async def test_play_seats_nobody_whom_a_claim_seats_meanwhile(pg_url: str) -> None:
    """The other order: one process's claim seats a waiting person at a quick table, its
    transaction not committed yet, while he taps Play in another process. The private game
    waits for his seat and is not started ('already playing'): one table, the quick one."""
    game = QuickGame(Variant.THROW_IN, 2, 36)
    queue_side = await Store.open(pg_url, rate=rate)
    private_side = service(await Store.open(pg_url, rate=rate), FakeClock(START))
    try:
        await _waiting(queue_side, game, 1, 2)
        claimed, played = await _while_held(
            pg_url, queue_side, "a quick game's claim",
            # A real game: the private side reads the table that holds him.
            lambda: queue_side.quick.claim(
                game, lambda q, b: match(q, 2, b),
                snapshot=Game.new(Rules(players=2), 1, START).to_dict(log=False),
                level="normal", language="en"),
            lambda: private_side.tables.start_private(1, "P1", ONE_COMPUTER))
        assert claimed is not None and played is None
        assert await queue_side.tables.seated_at(1) == claimed[0].id
        assert await queue_side.tables.for_user(1, [TableStatus.RUNNING]) == claimed[0]
    finally:
        await private_side.tables.close()
        await private_side.store.close()
        await queue_side.close()
