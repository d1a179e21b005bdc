"""The publisher's gate in Redis (``DURAK_REDIS``): the shared budgets (outbox.redis_budgets) and
each message's lease and stamp (outbox.redis_screens), as outbox.gate.SharedGate.

When Redis does not answer nothing is sent: every request waits and is tried again each
``RETRY`` seconds (one line in the log when Redis goes, one when it is back), so that no process
sends over a budget it cannot see.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Hashable
from typing import NamedTuple

from redis.asyncio import Redis
from redis.exceptions import RedisError

from tg_durak.outbox.gate import HeldBy, Verdict
from tg_durak.outbox.redis_budgets import RedisBudgets, Reservation
from tg_durak.outbox.redis_screens import Claim, MessageLeases

log = logging.getLogger(__name__)

# Seconds between tries while Redis does not answer.
RETRY = 1.0
# A place held by another request, or a lease, frees when that request's answer comes, which
# this process does not hear of: it looks again at least this often.
RECHECK = 1.0
# What a request under way holds (its budgets' places, its message's lease) is held this long
# and renewed every RENEW seconds until its answer: a process that dies holding them (killed
# mid-request) lets go this soon, not after a whole request timeout.
HOLD = 5.0
RENEW = 1.0


class _Ticket(NamedTuple):
    reservation: Reservation
    key: Hashable | None  # the message whose lease is held (None: a one-off)
    token: str
    renewing: asyncio.Task   # holds the places and the lease while the request is under way


class RedisGate:
    """See the module docstring; ``prefix`` names the bot (several bots may share a Redis)."""

    def __init__(self, redis: Redis, prefix: str, *, private_interval: float = 1.0,
                 group_per_minute: int = 20, global_per_second: int = 30,
                 hold: float = HOLD, renew: float = RENEW) -> None:
        self.redis = redis
        self.budgets = RedisBudgets(redis, prefix, private=(1, private_interval),
                                    group=(group_per_minute, 60.0),
                                    bot=(global_per_second, 1.0), hold=hold)
        self.leases = MessageLeases(redis, prefix, lease=hold)
        self._renew_every = renew
        self._down = False

    def stamp(self, key: Hashable, version: int | None) -> object:
        if version is not None:
            return version
        # Taken now, while the screen is queued: its place among every process's screens.
        stamp = asyncio.ensure_future(self.leases.next_stamp(key))
        # A screen coalesced away never awaits its stamp: its failure is nobody's to report.
        stamp.add_done_callback(lambda task: task.cancelled() or task.exception())
        return stamp

    async def admit(self, key: Hashable, chat_id: int, stamp: object) -> Verdict:
        try:
            verdict = await self._admit(key, chat_id, stamp)
        except (RedisError, OSError) as exc:
            if not self._down:
                log.error("publisher: Redis does not answer (%s): nothing is sent until it "
                          "does, trying again every %.0fs", exc, RETRY)
            self._down = True
            return Verdict(False, RETRY, HeldBy.BOT)
        if self._down:
            log.warning("publisher: Redis answers again, sending")
            self._down = False
        return verdict

    async def _admit(self, key: Hashable, chat_id: int, stamp: object) -> Verdict:
        token = ""
        leased = stamp is not None
        if leased:
            claim, left, token = await self.leases.claim(key, await self._resolve(key, stamp))
            if claim is Claim.STALE:
                return Verdict(False, 0.0, HeldBy.STALE)
            if claim is Claim.HELD:
                return Verdict(False, min(left, RECHECK), HeldBy.MESSAGE)
        try:
            reservation = await self.budgets.reserve(chat_id)
        except BaseException:
            if leased:
                await asyncio.shield(self.leases.let_go(key, token))
            raise
        if reservation.wait:
            if leased:
                await self.leases.let_go(key, token)
            return Verdict(False, min(reservation.wait, RECHECK),
                           HeldBy.BOT if reservation.bot_wide else HeldBy.CHAT)
        held = key if leased else None
        renewing = asyncio.create_task(self._hold(reservation, held, token))
        return Verdict(True, ticket=_Ticket(reservation, held, token, renewing))

    async def _hold(self, reservation: Reservation, key: Hashable | None, token: str) -> None:
        while True:
            await asyncio.sleep(self._renew_every)
            try:
                await self.budgets.renew(reservation)
                if key is not None:
                    await self.leases.renew(key, token)
            except (RedisError, OSError) as exc:   # the next renewal may get through
                log.warning("publisher: Redis did not hear a request is still under way (%s)",
                            exc)

    async def _resolve(self, key: Hashable, stamp: object) -> int:
        if isinstance(stamp, int):
            return stamp
        assert isinstance(stamp, asyncio.Future)
        try:
            return int(await stamp)
        except (RedisError, OSError):
            # Redis was away when the screen was queued: the stamp is taken now instead.
            return await self.leases.next_stamp(key)

    async def done(self, verdict: Verdict) -> None:
        ticket = verdict.ticket
        assert isinstance(ticket, _Ticket)
        ticket.renewing.cancel()
        try:
            await self.budgets.release(ticket.reservation)
            if ticket.key is not None:
                await self.leases.let_go(ticket.key, ticket.token)
        except (RedisError, OSError) as exc:
            # The places and the lease end on their own (a hold after their last renewal).
            log.warning("publisher: Redis did not hear a request's end (%s)", exc)

    async def flooded(self, chat_id: int | None, retry_after: float) -> None:
        try:
            await self.budgets.pause(chat_id, retry_after)
        except (RedisError, OSError) as exc:
            log.warning("publisher: Redis did not hear of a 429 (%s)", exc)

    async def close(self) -> None:
        await self.redis.aclose()


def connect(url: str, prefix: str, *, private_interval: float = 1.0) -> RedisGate:
    """The gate on the Redis at ``url`` (redis://, rediss://, unix://); connects lazily."""
    # A bounded socket timeout: a Redis that hangs is a Redis that does not answer.
    return RedisGate(Redis.from_url(url, socket_timeout=5.0, socket_connect_timeout=5.0),
                     prefix, private_interval=private_interval)
