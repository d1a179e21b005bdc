"""The operators' rows (issue 38), on SQLite and PostgreSQL: bans and maintenance with their log
entries, the broadcast's audience, its recipients claimed at most once across a lost lease, and
each process's heartbeat."""

from __future__ import annotations

from tg_durak.play.operators import BroadcastStatus, OperatorAction, RecipientState
from tg_durak.storage import Store
from tg_durak.storage.operators import FOREVER

OPERATOR = 1
NOW = 1_000_000.0
DAY = 86400.0


async def people(store: Store, ids: range, seen: float, reachable: bool = True) -> None:
    for user_id in ids:
        await store.users.ensure(user_id, f"P{user_id}")
        await store.users.set_reachable(user_id, reachable)
        await store.operators.seen(user_id, f"Name{user_id}", seen)


async def test_bans_are_kept_and_logged(store: Store) -> None:
    ops = store.operators
    assert await ops.ban(7, OPERATOR, NOW)
    assert not await ops.ban(7, OPERATOR, NOW + 1)   # banned already
    assert await ops.banned() == frozenset({7})
    assert await ops.unban(7, OPERATOR, NOW + 2)
    assert not await ops.unban(7, OPERATOR, NOW + 3)
    assert await ops.banned() == frozenset()
    logged = [(op, action, detail) for op, action, detail, _ in await ops.logged()]
    assert logged == [(OPERATOR, OperatorAction.UNBAN, {"user": 7})] * 2 + [
        (OPERATOR, OperatorAction.BAN, {"user": 7})] * 2


async def test_maintenance_with_and_without_an_end(store: Store) -> None:
    ops = store.operators
    assert await ops.maintenance_until() is None
    await ops.set_maintenance(NOW + 600, OPERATOR, NOW)
    assert await ops.maintenance_until() == NOW + 600
    await ops.set_maintenance(FOREVER, OPERATOR, NOW)
    assert await ops.maintenance_until() == FOREVER
    await ops.set_maintenance(None, OPERATOR, NOW)
    assert await ops.maintenance_until() is None
    actions = [action for _, action, _, _ in await ops.logged()]
    assert actions == [OperatorAction.MAINTENANCE_OFF, OperatorAction.MAINTENANCE_ON,
                       OperatorAction.MAINTENANCE_ON]


async def test_usernames_are_found_whatever_their_case(store: Store) -> None:
    await store.operators.seen(5, "Mallory", NOW)
    assert await store.operators.by_username("mallory") == 5
    assert await store.operators.by_username("MALLORY") == 5
    assert await store.operators.by_username("nobody") is None


async def test_the_audience_is_reachable_recent_and_not_banned(store: Store) -> None:
    await people(store, range(10, 20), NOW)
    await people(store, range(20, 25), NOW - 100 * DAY)        # not seen for too long
    await people(store, range(25, 30), NOW, reachable=False)   # blocked the bot
    await store.operators.ban(11, OPERATOR, NOW)
    since = NOW - 90 * DAY
    assert await store.operators.audience(since) == 9
    draft = await store.operators.draft(OPERATOR, "Hello", NOW)
    assert draft.status == BroadcastStatus.DRAFT
    assert await store.operators.confirm(draft.id, OPERATOR + 1, since, NOW) is None
    assert await store.operators.confirm(draft.id, OPERATOR, since, NOW, 55) == 9
    assert (await store.operators.broadcast(draft.id)).message_id == 55   # shows its progress
    assert await store.operators.confirm(draft.id, OPERATOR, since, NOW) is None   # twice
    assert set(await store.operators.recipients(draft.id)) == set(range(10, 20)) - {11}


async def test_recipients_are_claimed_once_even_when_a_lease_is_lost(store: Store) -> None:
    ops = store.operators
    await people(store, range(100, 110), NOW)
    draft = await ops.draft(OPERATOR, "Hello", NOW)
    await ops.confirm(draft.id, OPERATOR, NOW - 90 * DAY, NOW)
    assert await ops.take_lease(draft.id, "a", NOW, 5)
    assert not await ops.take_lease(draft.id, "b", NOW + 1, 5)   # a holds it
    first = await ops.next_batch(draft.id, "a", NOW, 5, {}, 4)
    assert first == [100, 101, 102, 103]
    second = await ops.next_batch(draft.id, "a", NOW + 1, 5,
                                  {100: RecipientState.SENT, 101: RecipientState.SENT,
                                   102: RecipientState.FAILED, 103: RecipientState.SENT}, 3)
    assert second == [104, 105, 106]
    # "a" dies with three in flight; "b" takes over once the lease has passed.
    assert await ops.take_lease(draft.id, "b", NOW + 10, 5)
    assert await ops.next_batch(draft.id, "a", NOW + 10, 5, {104: RecipientState.SENT},
                                3) is None   # a's lease is gone: nothing of a's counts
    third = await ops.next_batch(draft.id, "b", NOW + 10, 5, {}, 10)
    assert third == [107, 108, 109]
    assert await ops.next_batch(draft.id, "b", NOW + 11, 5,
                                dict.fromkeys(third, RecipientState.SENT), 10) == []
    progress = await ops.progress(draft.id)
    assert progress is not None and progress.broadcast.status == BroadcastStatus.DONE
    assert progress.counts == {RecipientState.SENT: 6, RecipientState.FAILED: 1,
                               RecipientState.UNKNOWN: 3}
    assert await ops.under_way() == []


async def test_a_stopped_broadcast_hands_out_nobody(store: Store) -> None:
    ops = store.operators
    await people(store, range(100, 103), NOW)
    draft = await ops.draft(OPERATOR, "Hello", NOW)
    await ops.confirm(draft.id, OPERATOR, NOW - 90 * DAY, NOW)
    assert [b.id for b in await ops.under_way()] == [draft.id]
    assert await ops.take_lease(draft.id, "a", NOW, 5)
    assert await ops.end(draft.id, OPERATOR, BroadcastStatus.STOPPED,
                         OperatorAction.BROADCAST_STOP, NOW)
    assert await ops.next_batch(draft.id, "a", NOW, 5, {}, 10) is None
    assert not await ops.take_lease(draft.id, "a", NOW, 5)
    assert (await ops.progress(draft.id)).count(RecipientState.WAITING) == 3


async def test_processes_alive_by_their_heartbeat(store: Store) -> None:
    ops = store.operators
    await ops.beat("a", "host", 1, NOW, NOW)
    await ops.beat("b", "host", 2, NOW, NOW - 60)
    assert await ops.alive(NOW - 15) == 1
    await ops.beat("b", "host", 2, NOW, NOW)
    assert await ops.alive(NOW - 15) == 2
    await ops.stopped("a")
    assert await ops.alive(NOW - 15) == 1


async def test_a_look_at_the_figures_is_recorded_too(store: Store) -> None:
    await store.operators.record(OPERATOR, OperatorAction.OPSTATS, NOW)
    assert await store.operators.logged() == [(OPERATOR, OperatorAction.OPSTATS, {}, NOW)]
    assert await store.operators.players_since(NOW) == 0
    assert await store.operators.tables_by_status() == {}
