"""How the bot's requests ride out Telegram's failures (a middleware of the bot's HTTP session).

- A request nobody else will redo (a tap's answer, a member lookup, the command menus, start-up's
  getMe and deleteWebhook) is retried a few times: after a 429 once its ``retry_after`` has
  passed, after a 5xx, a timeout or a network error with exponential back-off and full jitter
  (many requests failing together do not come back together); then the error is the caller's.
- The publisher's sends and edits pass straight through: the publisher retries them itself,
  with the latest screen (retrying an old one here would only hold the newer one back), and a
  send that timed out may have arrived, so only the publisher may decide to send it again.
- getUpdates is aiogram's polling loop's to retry (for ever), except after an answer no retry
  can mend: a 409 Conflict (another instance of the bot is polling with the same token) or a 401
  (the token was revoked). That is reported once through ``on_refused`` and no getUpdates goes
  out any more, so this instance stops instead of fighting the other or polling in vain.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from typing import Any

from aiogram import Bot
from aiogram.client.session.middlewares.base import (
    BaseRequestMiddleware,
    NextRequestMiddlewareType,
)
from aiogram.exceptions import (
    TelegramAPIError,
    TelegramConflictError,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
    TelegramUnauthorizedError,
)
from aiogram.methods import (
    CopyMessage,
    EditMessageText,
    ForwardMessage,
    GetUpdates,
    SendMessage,
    TelegramMethod,
)

log = logging.getLogger(__name__)

ATTEMPTS = 4
BACKOFF = 0.5    # seconds: the first retry waits up to this, each next one up to twice as long
MAX_BACKOFF = 8.0
MAX_RETRY_AFTER = 30.0  # a longer flood wait is the caller's to sit out, not a request's
# Sent by the publisher (which retries them itself) or not safe to send twice.
NOT_RETRIED = (SendMessage, EditMessageText, CopyMessage, ForwardMessage)
POLLING_ENDS = (TelegramConflictError, TelegramUnauthorizedError)


def backoff(attempt: int, rng: random.Random) -> float:
    """Seconds before retry number `attempt` (0 first): full jitter over a doubling cap."""
    return rng.uniform(0, min(MAX_BACKOFF, BACKOFF * 2 ** attempt))


class TelegramRetry(BaseRequestMiddleware):
    """See the module docstring. `on_refused(error)` is called at the first 409 or 401 on
    getUpdates."""

    def __init__(self, on_refused: Callable[[TelegramAPIError], None],
                 rng: random.Random | None = None) -> None:
        self._on_refused = on_refused
        self._rng = rng or random.Random()
        self.refused: TelegramAPIError | None = None

    async def __call__(self, make_request: NextRequestMiddlewareType[Any], bot: Bot,
                       method: TelegramMethod[Any]) -> Any:
        if isinstance(method, GetUpdates):
            return await self._poll(make_request, bot, method)
        if isinstance(method, NOT_RETRIED):
            return await make_request(bot, method)
        for attempt in range(ATTEMPTS):
            try:
                return await make_request(bot, method)
            except TelegramRetryAfter as exc:
                if attempt == ATTEMPTS - 1 or exc.retry_after > MAX_RETRY_AFTER:
                    raise
                delay = float(exc.retry_after)
                error: Exception = exc
            except (TelegramServerError, TelegramNetworkError) as exc:
                if attempt == ATTEMPTS - 1:
                    raise
                delay, error = backoff(attempt, self._rng), exc
            log.warning("telegram: %s failed (%s); retry %d in %.1fs", method.__api_method__,
                        error, attempt + 1, delay)
            await asyncio.sleep(delay)
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def _poll(self, make_request: NextRequestMiddlewareType[Any], bot: Bot,
                    method: GetUpdates) -> Any:
        if self.refused is not None:
            raise self.refused   # never poll again: the other instance keeps the updates
        try:
            return await make_request(bot, method)
        except POLLING_ENDS as exc:
            self.refused = exc
            self._on_refused(exc)
            raise
