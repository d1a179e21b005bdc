"""Cheap refusals before any work: a person tapping or writing faster than anyone plays.

A token bucket per person: BURST updates at once (a double tap, a quick correction), then
TAPS_PER_SECOND, faster as the table's clock runs faster (DURAK_TIME_SCALE: tests and demos play
at ten times a person's pace). An update over the budget reaches no store, table or screen. A
tap is answered politely (the client shows a spinner until it is answered); a message is dropped
unanswered, as an answer would spend the very sending budget the flood is eating.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.types import CallbackQuery, TelegramObject, User

from tg_durak.i18n.translate import translator
from tg_durak.outbox.budgets import TokenBucket

TAPS_PER_SECOND = 5.0
BURST = 10
KEPT = 10_000   # buckets kept before those that have filled up again are dropped


class TokenBuckets:
    """Per key: a bucket of `burst` tokens, refilled at `rate` a second; each update takes one."""

    def __init__(self, rate: float = TAPS_PER_SECOND, burst: float = BURST,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self._buckets: dict[int, TokenBucket] = {}
        self._limit = KEPT

    def __len__(self) -> int:
        """How many keys have a bucket (a full one may have been forgotten)."""
        return len(self._buckets)

    def take(self, key: int) -> bool:
        """Whether the key may go on now (and one token is spent), or must wait."""
        now = self.clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket(self.rate, self.burst)
        allowed = bucket.take_if_free(now)
        if len(self._buckets) > self._limit:
            self._forget_full(now)
        return allowed

    def _forget_full(self, now: float) -> None:
        """A full bucket says nothing a new one would not. If a crowd keeps them all busy, the
        next sweep waits until the crowd doubles (a sweep per update would cost more)."""
        self._buckets = {key: bucket for key, bucket in self._buckets.items()
                         if not bucket.full(now)}
        self._limit = max(KEPT, 2 * len(self._buckets))


class Throttle(BaseMiddleware):
    """Lets through a person's messages and taps while his bucket holds; answers the taps over
    it with `tap.slow` in his language (`language_of`: remembered, no store read)."""

    def __init__(self, language_of: Callable[[int], str], time_scale: float = 1.0) -> None:
        self.language_of = language_of
        self.buckets = TokenBuckets(rate=TAPS_PER_SECOND / time_scale)

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        user: User | None = data.get("event_from_user")
        if user is None or self.buckets.take(user.id):
            return await handler(event, data)
        if isinstance(event, CallbackQuery):
            await event.answer(translator(self.language_of(user.id))("tap.slow"))
        return None
