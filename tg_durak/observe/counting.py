"""What nothing else counts: each request to Telegram (by method and outcome, with the
`retry_after` of its 429s) and each update (by kind and outcome, with how long it took to
handle: for a tap, the time until its answer)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from enum import StrEnum
from typing import Any

from aiogram import Bot
from aiogram.client.session.middlewares.base import (
    BaseRequestMiddleware,
    NextRequestMiddlewareType,
)
from aiogram.dispatcher.event.bases import UNHANDLED
from aiogram.dispatcher.middlewares.base import BaseMiddleware
from aiogram.exceptions import TelegramAPIError, TelegramRetryAfter
from aiogram.methods import TelegramMethod
from aiogram.types import TelegramObject, Update
from aiogram.types.update import UpdateTypeLookupError
from prometheus_client import CollectorRegistry, Counter, Histogram

# Seconds: a tap answered in tens of milliseconds, an update queued behind a table's lock in
# seconds (the answer p99 alert reads these).
UPDATE_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
RETRY_AFTER_BUCKETS = (1, 2, 5, 10, 30, 60, 300)


class RequestOutcome(StrEnum):
    OK = "ok"
    RETRY_AFTER = "retry_after"   # a 429
    REFUSED = "refused"           # any other answer of Telegram's that is an error
    FAILED = "failed"             # no answer: the network, a timeout


class UpdateOutcome(StrEnum):
    HANDLED = "handled"
    UNHANDLED = "unhandled"   # no handler took it, or it was taken before
    ERROR = "error"


class TelegramRequests(BaseRequestMiddleware):
    """Counts each attempt (inside the retries: app.py registers it after `TelegramRetry`)."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.requests = Counter("durak_telegram_requests_total",
                                "Requests to Telegram's Bot API, each attempt",
                                ["method", "outcome"], registry=registry)
        self.retry_after = Histogram("durak_telegram_retry_after_seconds",
                                     "The retry_after of Telegram's 429 answers",
                                     buckets=RETRY_AFTER_BUCKETS, registry=registry)

    async def __call__(self, make_request: NextRequestMiddlewareType[Any], bot: Bot,
                       method: TelegramMethod[Any]) -> Any:
        name = method.__api_method__
        try:
            result = await make_request(bot, method)
        except TelegramRetryAfter as exc:
            self.retry_after.observe(exc.retry_after)
            self.requests.labels(name, RequestOutcome.RETRY_AFTER).inc()
            raise
        except TelegramAPIError:
            self.requests.labels(name, RequestOutcome.REFUSED).inc()
            raise
        except Exception:
            self.requests.labels(name, RequestOutcome.FAILED).inc()
            raise
        self.requests.labels(name, RequestOutcome.OK).inc()
        return result


UNKNOWN_KIND = "unknown"   # the label of an update of a kind aiogram does not know


class UpdateTimes(BaseMiddleware):
    """The dispatcher's outermost middleware of updates: counts and times each."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.updates = Counter("durak_updates_total", "Updates taken, by kind and outcome",
                               ["kind", "outcome"], registry=registry)
        self.seconds = Histogram("durak_update_seconds",
                                 "Time from taking an update to its end (a tap: its answer)",
                                 ["kind"], buckets=UPDATE_BUCKETS, registry=registry)

    async def __call__(self, handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
                       event: TelegramObject,
                       data: dict[str, Any]) -> Any:
        assert isinstance(event, Update)   # an outer middleware of the updates (app.py)
        try:
            kind = event.event_type
        except UpdateTypeLookupError:   # a kind newer than aiogram: its dispatcher says so
            kind = UNKNOWN_KIND
        started = time.perf_counter()
        outcome = UpdateOutcome.ERROR
        try:
            result = await handler(event, data)
            outcome = UpdateOutcome.UNHANDLED if result is UNHANDLED else UpdateOutcome.HANDLED
            return result
        finally:
            self.seconds.labels(kind).observe(time.perf_counter() - started)
            self.updates.labels(kind, outcome).inc()
