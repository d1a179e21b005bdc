"""A message's latest screen is sent by one process at a time, and an older screen never
overwrites a newer one: leases and stamps in Redis, then two publishers on one message."""

from __future__ import annotations

import asyncio

from tg_durak.outbox.publisher import Publisher
from tg_durak.outbox.redis_gate import RedisGate
from tg_durak.outbox.redis_screens import Claim, MessageLeases
from tg_durak.render.screen import Screen

from ..publisher.test_publisher import FakeBot, until
from .conftest import URL, redis_asyncio

KEY = (7, 42)   # a table's message for one person, as the table service names it
FAST = {"private_interval": 0.01, "group_per_minute": 6000, "global_per_second": 1000}


async def test_one_process_at_a_time_holds_a_messages_lease(redis: object, prefix: str) -> None:
    one, other = MessageLeases(redis, prefix, lease=0.3), MessageLeases(redis, prefix, lease=0.3)
    verdict, _, token = await one.claim(KEY, 1)
    assert verdict is Claim.GRANTED
    verdict, left, _ = await other.claim(KEY, 2)
    assert verdict is Claim.HELD and 0 < left <= 0.3
    await other.let_go(KEY, "not-its-token")   # only the holder lets go
    assert (await other.claim(KEY, 2))[0] is Claim.HELD
    await one.let_go(KEY, token)
    assert (await other.claim(KEY, 2))[0] is Claim.GRANTED


async def test_a_dead_processs_lease_ends_on_its_own(redis: object, prefix: str) -> None:
    one, other = MessageLeases(redis, prefix, lease=0.1), MessageLeases(redis, prefix)
    assert (await one.claim(KEY, 1))[0] is Claim.GRANTED   # and never lets go
    await asyncio.sleep(0.15)
    assert (await other.claim(KEY, 2))[0] is Claim.GRANTED


async def test_an_older_stamp_is_stale_once_a_newer_was_claimed(redis: object,
                                                                  prefix: str) -> None:
    one, other = MessageLeases(redis, prefix), MessageLeases(redis, prefix)
    older, newer = await one.next_stamp(KEY), await other.next_stamp(KEY)
    assert newer > older
    verdict, _, token = await other.claim(KEY, newer)
    assert verdict is Claim.GRANTED
    await other.let_go(KEY, token)
    assert (await one.claim(KEY, older))[0] is Claim.STALE
    assert (await one.claim(KEY, newer))[0] is Claim.GRANTED, "the same screen again may go"


async def test_stamps_start_above_the_last_claimed_after_the_counter_expired(
        redis: object, prefix: str) -> None:
    leases = MessageLeases(redis, prefix)
    await leases.claim(KEY, 50)   # say, a table's version
    await redis.delete(f"{prefix}msg:{KEY!r}:counter")  # type: ignore[attr-defined]
    assert await leases.next_stamp(KEY) == 51


def publisher(bot: FakeBot, prefix: str) -> tuple[Publisher, RedisGate]:
    gate = RedisGate(redis_asyncio.Redis.from_url(URL), prefix, **FAST)  # type: ignore[arg-type]
    return Publisher(bot, gate=gate, **FAST), gate  # type: ignore[arg-type]


async def test_of_two_publishers_the_newer_screen_wins(prefix: str) -> None:
    """Process one queues a screen, process two a newer one for the same message and sends it
    first; process one's older screen is then dropped, not sent over it."""
    telegram = FakeBot()
    telegram.messages[42, 900] = ("start", None)
    (one, one_gate), (two, two_gate) = publisher(telegram, prefix), publisher(telegram, prefix)
    try:
        one.show(KEY, 42, 900, Screen("older"))
        await asyncio.sleep(0.05)   # its stamp is taken as it is queued
        two.show(KEY, 42, 900, Screen("newer"))
        await two.start()
        await two.flush()
        await one.start()
        await one.flush()
        assert telegram.texts() == ["newer"]
        assert telegram.messages[42, 900][0] == "newer"
        assert one.stats()["stale"] == 1
    finally:
        for p, g in ((one, one_gate), (two, two_gate)):
            await p.stop()
            await g.close()


async def test_a_table_version_orders_the_screens_whoever_queued_first(prefix: str) -> None:
    telegram = FakeBot()
    telegram.messages[42, 900] = ("start", None)
    (one, one_gate), (two, two_gate) = publisher(telegram, prefix), publisher(telegram, prefix)
    try:
        two.show(KEY, 42, 900, Screen("version 5"), version=5)
        one.show(KEY, 42, 900, Screen("version 4"), version=4)
        await two.start()
        await two.flush()
        await one.start()
        await one.flush()
        assert telegram.texts() == ["version 5"]
    finally:
        for p, g in ((one, one_gate), (two, two_gate)):
            await p.stop()
            await g.close()


async def test_while_one_publisher_edits_a_message_the_other_waits(prefix: str) -> None:
    telegram = FakeBot()
    telegram.messages[42, 900] = ("start", None)
    telegram.gate = asyncio.Event()   # Telegram holds the answers back
    (one, one_gate), (two, two_gate) = publisher(telegram, prefix), publisher(telegram, prefix)
    try:
        await one.start()
        await two.start()
        one.show(KEY, 42, 900, Screen("first"))
        await until(lambda: len(telegram.calls) == 1)
        two.show(KEY, 42, 900, Screen("second"))
        await asyncio.sleep(0.3)
        assert telegram.texts() == ["first"], "the lease is one's until its answer"
        telegram.gate.set()
        await two.flush()
        assert telegram.texts() == ["first", "second"]
    finally:
        for p, g in ((one, one_gate), (two, two_gate)):
            await p.stop()
            await g.close()


async def test_without_redis_nothing_is_sent_and_the_log_says_why(
        prefix: str, caplog: object) -> None:
    telegram = FakeBot()
    gate = RedisGate(redis_asyncio.Redis.from_url("redis://127.0.0.1:1"), prefix, **FAST)  # type: ignore[arg-type]
    pub = Publisher(telegram, gate=gate, **FAST)  # type: ignore[arg-type]
    try:
        await pub.start()
        pub.show(KEY, 42, None, Screen("hello"))
        pub.send(42, Screen("a reply"))
        await asyncio.sleep(0.3)
        assert telegram.calls == [], "never over a budget it cannot see"
        assert caplog.text.count("Redis does not answer") == 1  # type: ignore[attr-defined]
        assert pub.stats()["queued"] == 2, "both wait to be tried again"
    finally:
        await pub.stop()
        await gate.close()


async def test_a_request_under_way_keeps_its_hold_and_a_dead_ones_ends_a_hold_later(
        prefix: str) -> None:
    """A process killed mid-request cannot let go: what it held (the message's lease, the
    chat's place) ends a hold after its last renewal, not a whole request timeout later."""
    def gate() -> RedisGate:
        return RedisGate(redis_asyncio.Redis.from_url(URL), prefix,  # type: ignore[arg-type]
                         private_interval=0.01, hold=0.4, renew=0.1)

    alive, dead, other = gate(), gate(), gate()
    try:
        sending = await alive.admit(KEY, 5, 1)
        assert sending.go
        await asyncio.sleep(1.0)   # longer than a hold: renewed meanwhile
        held = await other.admit(KEY, 5, 2)
        assert not held.go and held.held_by == "message"
        await alive.done(sending)

        killed = await dead.admit((7, 43), 6, 1)
        assert killed.go
        killed.ticket.renewing.cancel()   # the process is gone: no renewal, no let-go
        assert (await other.admit((7, 43), 6, 2)).held_by == "message"
        await asyncio.sleep(0.5)
        taken = await other.admit((7, 43), 6, 2)
        assert taken.go, taken
        await other.done(taken)
    finally:
        for g in (alive, dead, other):
            await g.close()
