"""Telegram's budgets shared in Redis: they belong to the bot token, not to a process, so several
processes on one token together stay within the bot's ~30 a second, a group's 20 a minute and a
private chat's one a second.

Each budget is a sorted set of the requests in its window, scored by when each leaves it. A
reservation checks every budget it touches (the bot's and the chat's) and takes a place in all of
them or in none, in one Lua script: Redis runs a script alone, so no two processes see the same
free place. Time is Redis's own (``TIME``): the processes' clocks need not agree.

A request counts from its reservation until ``seconds`` after its answer, as in one process
(outbox.budgets.Budget): reserved, its place is scored "now + hold", and the process renews it
while the request is under way (`renew`), so that a process that dies holding it frees it a hold
later; its answer moves it to the answer's time.
Pacing evenly is left to each process's own budgets; the shared windows guard the sum.
Every key expires on its own (a window plus the timeout after its last use).
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass

from redis.asyncio import Redis

# KEYS: per budget its window and its pause (after a 429); ARGV: the member, the timeout (ms),
# then per budget its limit and its window (ms). Returns {wait ms, the budget that binds
# (1-based, 0: none), Redis's time ms}: wait 0 means a place was taken in every budget.
_RESERVE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local member, timeout = ARGV[1], tonumber(ARGV[2])
local wait, binds = 0, 0
for i = 1, #KEYS / 2 do
  local window, pause = KEYS[2 * i - 1], KEYS[2 * i]
  local limit, span = tonumber(ARGV[1 + 2 * i]), tonumber(ARGV[2 + 2 * i])
  local w = math.max(redis.call('PTTL', pause), 0)
  redis.call('ZREMRANGEBYSCORE', window, '-inf', now - span)
  local count = redis.call('ZCARD', window)
  if count >= limit then
    local nth = redis.call('ZRANGE', window, count - limit, count - limit, 'WITHSCORES')
    w = math.max(w, tonumber(nth[2]) + span - now, 1)
  end
  if w > wait then wait, binds = w, i end
end
if wait == 0 then
  for i = 1, #KEYS / 2 do
    local window, span = KEYS[2 * i - 1], tonumber(ARGV[2 + 2 * i])
    redis.call('ZADD', window, now + timeout, member)
    redis.call('PEXPIRE', window, span + timeout)
  end
end
return {wait, binds, now}
"""

# KEYS: the windows a reservation took; ARGV: its member, then per window its expiry (ms).
# Returns Redis's time ms.
_RELEASE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i, window in ipairs(KEYS) do
  if redis.call('ZADD', window, 'XX', 'CH', now, ARGV[1]) == 1 then
    redis.call('PEXPIRE', window, tonumber(ARGV[1 + i]))
  end
end
return now
"""

# KEYS: the windows a reservation took; ARGV: its member, the hold (ms), then per window its
# expiry (ms). A place still held is pushed to now + hold (GT: never earlier; XX: one that left
# is not taken again).
_RENEW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i, window in ipairs(KEYS) do
  redis.call('ZADD', window, 'XX', 'GT', now + tonumber(ARGV[2]), ARGV[1])
  redis.call('PEXPIRE', window, tonumber(ARGV[2 + i]), 'GT')
end
return now
"""


@dataclass(frozen=True, slots=True)
class Reservation:
    """What :meth:`RedisBudgets.reserve` answered: ``wait`` 0 and a place in every budget, or the
    seconds until one may be free and whether the bot's budget (not the chat's) is what binds."""

    wait: float
    bot_wide: bool
    at_ms: int  # Redis's time of the answer
    member: str
    windows: tuple[str, ...]  # the windows it holds a place in (none when it must wait)
    expiries_ms: tuple[int, ...]  # each window's key lives this long after its last use


class RedisBudgets:
    """The bot's and each chat's budgets in Redis under ``prefix``; see the module docstring."""

    def __init__(self, redis: Redis, prefix: str, *, private: tuple[int, float] = (1, 1.0),
                 group: tuple[int, float] = (20, 60.0), bot: tuple[int, float] = (30, 1.0),
                 hold: float = 5.0) -> None:
        self._redis = redis
        self._prefix = prefix
        self._private, self._group, self._bot = private, group, bot
        self._timeout_ms = round(hold * 1000)
        self._reserve = redis.register_script(_RESERVE)
        self._release = redis.register_script(_RELEASE)
        self._renew = redis.register_script(_RENEW)
        # Unique across processes: the host's and process's ids, then a counter.
        self._members = (f"{os.uname().nodename}:{os.getpid()}:{id(self):x}:{n}"
                         for n in itertools.count())

    async def reserve(self, chat_id: int) -> Reservation:
        """A place for one request in the bot's and the chat's budgets, or how long to wait."""
        limit, seconds = self._private if chat_id > 0 else self._group
        budgets = ((f"{self._prefix}bot", *self._bot), (f"{self._prefix}chat:{chat_id}",
                                                        limit, seconds))
        return await self.reserve_in(budgets)

    async def reserve_in(self, budgets: tuple[tuple[str, int, float], ...]) -> Reservation:
        """A place in every one of ``budgets`` (name, limit, seconds) or in none; the first
        is the bot's."""
        member = next(self._members)
        keys: list[str] = []
        args: list[str | int] = [member, self._timeout_ms]
        spans = [round(seconds * 1000) for _, _, seconds in budgets]
        for (name, limit, _), span in zip(budgets, spans, strict=True):
            keys += [name, f"{name}:pause"]
            args += [limit, span]
        wait_ms, binds, now_ms = await self._reserve(keys=keys, args=args)
        if wait_ms:
            return Reservation(int(wait_ms) / 1000, int(binds) == 1, int(now_ms), member, (), ())
        expiries = tuple(span + self._timeout_ms for span in spans)
        return Reservation(0.0, False, int(now_ms), member, tuple(keys[::2]), expiries)

    async def release(self, reservation: Reservation) -> int:
        """The reserved request's answer came (or it failed): it leaves the windows ``seconds``
        from now. Redis's time of it (ms)."""
        if not reservation.windows:
            return reservation.at_ms
        return int(await self._release(keys=list(reservation.windows),
                                       args=[reservation.member, *reservation.expiries_ms]))

    async def renew(self, reservation: Reservation) -> None:
        """The reserved request is still under way: its places are held a hold longer."""
        if reservation.windows:
            await self._renew(keys=list(reservation.windows),
                              args=[reservation.member, self._timeout_ms,
                                    *reservation.expiries_ms])

    async def pause(self, chat_id: int | None, seconds: float) -> None:
        """A 429: the chat (None: the whole bot) waits ``seconds`` in every process."""
        name = f"{self._prefix}bot" if chat_id is None else f"{self._prefix}chat:{chat_id}"
        ms = max(1, round(seconds * 1000))
        # GT: a shorter pause never cuts a longer one short (the key's own TTL is the pause).
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.set(f"{name}:pause", 1, px=ms, nx=True)
            pipe.pexpire(f"{name}:pause", ms, gt=True)
            await pipe.execute()
