"""Which process may bring a message up to date, shared in Redis: a message's latest screen is
sent by one process at a time, and an older screen never overwrites a newer one.

Each screen carries a stamp that grows across processes: the table's version when the caller
passes one, else a Redis ``INCR`` per message taken when the screen is queued (so the stamps
follow the order in which the ``show`` calls reach Redis; a caller that passes versions does not
depend on that). Before a request a process claims the message: a lease (``SET NX PX``, renewed
while the request is under way, so that a dead process's lease ends a few seconds later on its
own) and, in the same script, the stamp of the screen last claimed; a screen older than that is
dropped, never sent. Keys expire a day after their last use.
"""

from __future__ import annotations

import enum
import itertools
import os
from collections.abc import Hashable

from redis.asyncio import Redis

STAMP_TTL_MS = 24 * 3600 * 1000

# KEYS: the message's lease, its last claimed stamp; ARGV: token, lease ms, stamp, stamp ms.
# Returns -1: the stamp is older than one claimed before; 0: claimed; > 0: the lease's ms left.
_CLAIM = """
local last = tonumber(redis.call('GET', KEYS[2]) or '-1')
local stamp = tonumber(ARGV[3])
if stamp < last then return -1 end
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return math.max(redis.call('PTTL', KEYS[1]), 1) end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])
return 0
"""

# KEYS: the lease; ARGV: token. Only the holder lets go (a lease that expired may be another's).
_LET_GO = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# KEYS: the lease; ARGV: token, lease ms. Only the holder renews it.
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""

# KEYS: the message's counter, its last claimed stamp; ARGV: ms. The next stamp, above any
# claimed (a counter that expired before the stamp starts above it again).
_NEXT = """
local n = redis.call('INCR', KEYS[1])
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
if n <= last then
  n = last + 1
  redis.call('SET', KEYS[1], n)
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return n
"""


class Claim(enum.Enum):
    GRANTED = "granted"
    STALE = "stale"  # a newer screen was claimed: drop this one
    HELD = "held"  # another process is sending this message's screen: wait


class MessageLeases:
    """Leases and stamps per message key under ``prefix``; see the module docstring."""

    def __init__(self, redis: Redis, prefix: str, *, lease: float = 5.0) -> None:
        self._prefix = prefix
        # Renewed while its request is under way (`renew`): a dead process's ends this soon.
        self._lease_ms = round(lease * 1000)
        self._claim = redis.register_script(_CLAIM)
        self._let_go = redis.register_script(_LET_GO)
        self._renew = redis.register_script(_RENEW)
        self._next = redis.register_script(_NEXT)
        self._tokens = (f"{os.uname().nodename}:{os.getpid()}:{id(self):x}:{n}"
                        for n in itertools.count())

    def _names(self, key: Hashable) -> tuple[str, str, str]:
        """The message's lease, the stamp last claimed and its counter."""
        # repr: the keys are tuples of ints, strings and None, alike in every process.
        name = f"{self._prefix}msg:{key!r}"
        return f"{name}:lease", f"{name}:stamp", f"{name}:counter"

    async def next_stamp(self, key: Hashable) -> int:
        """A stamp above every one taken or claimed for ``key`` so far."""
        _, stamp, counter = self._names(key)
        return int(await self._next(keys=[counter, stamp], args=[STAMP_TTL_MS]))

    async def claim(self, key: Hashable, stamp: int) -> tuple[Claim, float, str]:
        """Claim ``key`` for a screen stamped ``stamp``: the verdict, the seconds the lease
        still holds (HELD) and the token that lets go of it (GRANTED)."""
        token = next(self._tokens)
        answer = int(await self._claim(keys=list(self._names(key)[:2]),
                                       args=[token, self._lease_ms, stamp, STAMP_TTL_MS]))
        if answer < 0:
            return Claim.STALE, 0.0, token
        if answer > 0:
            return Claim.HELD, answer / 1000, token
        return Claim.GRANTED, 0.0, token

    async def renew(self, key: Hashable, token: str) -> None:
        """The request under the lease is still under way: the lease holds a lease longer."""
        await self._renew(keys=[self._names(key)[0]], args=[token, self._lease_ms])

    async def let_go(self, key: Hashable, token: str) -> None:
        """The request under the lease ended: another process may send now."""
        await self._let_go(keys=[self._names(key)[0]], args=[token])
