"""The bot session's retries, without a network: which requests are retried, how long each
waits, and a second instance's 409 or a revoked token's 401 stopping the polling for good. The
publisher's back-off after failures is jittered."""

from __future__ import annotations

import random

import pytest
from aiogram.exceptions import (
    TelegramAPIError,
    TelegramBadRequest,
    TelegramConflictError,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
    TelegramUnauthorizedError,
)
from aiogram.methods import AnswerCallbackQuery, EditMessageText, GetUpdates, SendMessage

from tg_durak.outbox.queue import MAX_BACKOFF, Outbox, Slot
from tg_durak.telegram import retry as telegram_retry
from tg_durak.telegram.retry import ATTEMPTS, TelegramRetry, backoff

ANSWER = AnswerCallbackQuery(callback_query_id="1")
POLL = GetUpdates(timeout=10)


class Telegram:
    """make_request's stand-in: raises the queued errors in turn, then answers True."""

    def __init__(self, *errors: Exception) -> None:
        self.errors = list(errors)
        self.sent: list[object] = []

    async def __call__(self, bot: object, method: object) -> bool:
        self.sent.append(method)
        if self.errors:
            raise self.errors.pop(0)
        return True


@pytest.fixture
def slept(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(telegram_retry.asyncio, "sleep", sleep)
    return waits


def server_error(method: object = ANSWER) -> TelegramServerError:
    return TelegramServerError(method=method, message="Bad Gateway")


def network_error(method: object = ANSWER) -> TelegramNetworkError:
    return TelegramNetworkError(method=method, message="Request timeout error")


async def test_5xx_and_network_errors_are_retried_with_growing_jittered_waits(
        slept: list[float]) -> None:
    retry = TelegramRetry(on_refused=print, rng=random.Random(1))
    telegram = Telegram(server_error(), network_error(), server_error())
    assert await retry(telegram, None, ANSWER) is True
    assert len(telegram.sent) == 4
    assert len(slept) == 3
    for attempt, wait in enumerate(slept):
        assert 0 <= wait <= telegram_retry.BACKOFF * 2 ** attempt


async def test_a_429_waits_its_retry_after(slept: list[float]) -> None:
    retry = TelegramRetry(on_refused=print)
    flood = TelegramRetryAfter(method=ANSWER, message="Too Many Requests", retry_after=3)
    assert await retry(Telegram(flood), None, ANSWER) is True
    assert slept == [3.0]


async def test_retries_end_and_the_error_is_the_callers(slept: list[float]) -> None:
    retry = TelegramRetry(on_refused=print)
    telegram = Telegram(*(server_error() for _ in range(ATTEMPTS)))
    with pytest.raises(TelegramServerError):
        await retry(telegram, None, ANSWER)
    assert len(telegram.sent) == ATTEMPTS
    telegram = Telegram(TelegramBadRequest(method=ANSWER, message="query is too old"))
    with pytest.raises(TelegramBadRequest):
        await retry(telegram, None, ANSWER)
    assert len(telegram.sent) == 1, "a 400 is an answer, not a failure"


@pytest.mark.parametrize("method", [SendMessage(chat_id=1, text="x"),
                                    EditMessageText(chat_id=1, message_id=1, text="x")])
async def test_the_publishers_sends_and_edits_are_not_retried_here(
        slept: list[float], method: object) -> None:
    telegram = Telegram(server_error(method))
    with pytest.raises(TelegramServerError):
        await TelegramRetry(on_refused=print)(telegram, None, method)
    assert len(telegram.sent) == 1 and slept == []


@pytest.mark.parametrize("refusal", [
    TelegramConflictError(method=POLL, message="Conflict: terminated by other getUpdates "
                                               "request"),
    TelegramUnauthorizedError(method=POLL, message="Unauthorized")], ids=["409", "401"])
async def test_a_409_or_401_is_reported_once_and_no_getupdates_goes_out_after_it(
        slept: list[float], refusal: TelegramAPIError) -> None:
    reported: list[TelegramAPIError] = []
    retry = TelegramRetry(on_refused=reported.append)
    telegram = Telegram(network_error(POLL), refusal)
    with pytest.raises(TelegramNetworkError):
        await retry(telegram, None, POLL)   # polling's own loop retries these
    with pytest.raises(type(refusal)):
        await retry(telegram, None, POLL)
    with pytest.raises(type(refusal)):
        await retry(telegram, None, POLL)
    assert len(telegram.sent) == 2, "after the refusal no getUpdates goes out"
    assert reported == [refusal]
    assert slept == []


def test_full_jitter_stays_under_a_doubling_cap() -> None:
    rng = random.Random(2)
    for attempt in range(10):
        waits = [backoff(attempt, rng) for _ in range(200)]
        cap = min(telegram_retry.MAX_BACKOFF, telegram_retry.BACKOFF * 2 ** attempt)
        assert all(0 <= w <= cap for w in waits)
        assert max(waits) - min(waits) > cap / 2, "spread out, not in lockstep"


def test_the_publishers_back_off_is_jittered_and_capped() -> None:
    outbox = Outbox(private_interval=1.0, group_per_minute=20, global_per_second=30)
    slots = [Slot(("t", chat_id), chat_id, 5) for chat_id in range(1, 51)]
    # Fifty screens failing together, as in an outage, do not come back together.
    waits = [outbox.back_off(slot, 0.0) for slot in slots]
    assert all(0.5 <= w <= 1.0 for w in waits) and len(set(waits)) > 25
    for _ in range(20):
        last = outbox.back_off(slots[0], 0.0)
    assert MAX_BACKOFF / 2 <= last <= MAX_BACKOFF
