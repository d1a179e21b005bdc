"""Every message send and edit: coalescing, deduplicated, within Telegram's rate limits.

Callers describe what a message should show (a :class:`Screen`) under a key of their choosing
(say ``(table_id, user_id)``) and move on; a background worker brings Telegram up to date:

- the latest screen per key wins: screens that were superseded before their turn are never sent;
- a screen equal to the one Telegram last confirmed for the key is never sent;
- each chat stays within its budget (private chats ~1/s, groups 20/min) and the bot within ~30/s,
  paced by token buckets on the monotonic clock; a 429 pauses the chat (and the whole bot when
  two chats are flooded at once) for its ``retry_after``;
- low-priority screens (timer-bar refreshes) only use spare budget: sent when their chat and
  the bot are free at that moment, dropped otherwise, and never sent ahead of a normal screen;
- a message that cannot be edited any more is replaced by a fresh one, reported through
  ``on_new_message(key, chat_id, message_id)`` so that the caller can store its id;
- a chat that refuses the bot (403: a person blocked it, or the bot left a group) is reported
  through ``on_blocked(chat_id)``; a group that became a supergroup (a 400 with its new id) through
  ``on_migrated(old_chat_id, new_chat_id)``, and the screen goes out afresh in the new chat;
- a screen for a forum topic is sent into that topic (``thread_id``).

A key names one message. Once the publisher has sent a message for a key it trusts its own
message id over the caller's (which may be a stale copy from the store).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass

from aiogram import Bot
from aiogram.exceptions import (
    TelegramBadRequest,
    TelegramForbiddenError,
    TelegramMigrateToChat,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.types import InlineKeyboardMarkup

log = logging.getLogger(__name__)

OnNewMessage = Callable[[Hashable, int, int], Awaitable[None]]
OnBlocked = Callable[[int], Awaitable[None]]
OnMigrated = Callable[[int, int], Awaitable[None]]

_NOT_MODIFIED = "message is not modified"
# Telegram's words for "this message cannot be edited any more": send a fresh one instead.
_GONE = ("message to edit not found", "message can't be edited")
# After network or server failures a key waits its chat's interval, doubling up to this cap.
_MAX_BACKOFF = 30.0
# Forgetting an idle key or an idle chat costs at most one redundant request later.
_MAX_SLOTS = 10_000
_MAX_CHATS = 10_000
# Seconds the worker waits after an unexpected error in its own bookkeeping.
_DISPATCH_ERROR_PAUSE = 1.0


@dataclass(frozen=True)
class Screen:
    """What one message should show."""

    text: str
    markup: InlineKeyboardMarkup | None = None


class TokenBucket:
    """``rate`` tokens per second, at most ``capacity`` saved up; one request costs one token.

    Pure: the caller passes the time, so the arithmetic can be tested without a clock.
    """

    def __init__(self, rate: float, capacity: float = 1.0) -> None:
        if rate <= 0 or capacity < 1:
            raise ValueError("a bucket needs a positive rate and room for one token")
        self.rate = rate
        self.capacity = capacity
        self._tokens = capacity
        self._stamp: float | None = None

    def wait(self, now: float) -> float:
        """Seconds until a token is available (0.0: one is available now)."""
        self._refill(now)
        # The epsilon absorbs float error after sleeping exactly the computed time.
        return 0.0 if self._tokens >= 1 - 1e-9 else (1 - self._tokens) / self.rate

    def take(self, now: float) -> None:
        self._refill(now)
        self._tokens -= 1

    def full(self, now: float) -> bool:
        self._refill(now)
        return self._tokens >= self.capacity

    def _refill(self, now: float) -> None:
        if self._stamp is not None:
            elapsed = max(0.0, now - self._stamp)
            self._tokens = min(self.capacity, self._tokens + elapsed * self.rate)
        self._stamp = now


@dataclass(eq=False)
class _Chat:
    bucket: TokenBucket
    blocked_until: float = 0.0  # after a 429

    def wait(self, now: float) -> float:
        return max(self.blocked_until - now, self.bucket.wait(now), 0.0)


@dataclass(eq=False)
class _Slot:
    """The publisher's knowledge of one key's message."""

    key: Hashable
    chat_id: int
    message_id: int | None
    thread_id: int | None = None  # the forum topic a new message goes to
    # True once the publisher sent (or decided to replace) the message: from then on its own
    # message id is right and the caller's is ignored.
    owns_id: bool = False
    shown: Screen | None = None  # what Telegram last confirmed
    pending: Screen | None = None
    pending_low: bool = False
    busy: bool = False  # a request for this key is in flight
    failures: int = 0  # consecutive network or server failures
    not_before: float = 0.0  # backing off after such failures


class Publisher:
    """Brings Telegram messages up to date with the latest screens; see the module docstring."""

    def __init__(
        self,
        bot: Bot,
        on_new_message: OnNewMessage,
        *,
        on_blocked: OnBlocked | None = None,
        on_migrated: OnMigrated | None = None,
        private_interval: float = 1.0,
        group_per_minute: int = 20,
        global_per_second: int = 30,
        parse_mode: str = "HTML",
    ) -> None:
        self._bot = bot
        self._on_new_message = on_new_message
        self._on_blocked = on_blocked
        self._on_migrated = on_migrated
        self._parse_mode = parse_mode
        self._private_rate = 1.0 / private_interval
        self._group_rate = group_per_minute / 60.0
        self._global = TokenBucket(global_per_second)
        self._global_blocked_until = 0.0
        self._last_flood: tuple[int, float] | None = None  # (chat_id, blocked until)
        self._slots: dict[Hashable, _Slot] = {}  # least recently shown first
        self._queue: dict[Hashable, None] = {}  # keys with a pending screen, oldest first
        self._chats: dict[int, _Chat] = {}
        self._sending: set[asyncio.Task[None]] = set()
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._worker: asyncio.Task[None] | None = None

    # -- public interface -------------------------------------------------------------------

    def show(
        self,
        key: Hashable,
        chat_id: int,
        message_id: int | None,
        screen: Screen,
        *,
        low_priority: bool = False,
        thread_id: int | None = None,
    ) -> None:
        """Make the message ``key`` show ``screen`` soon; returns at once.

        ``message_id`` None sends a new message (then ``on_new_message`` is awaited), into the
        forum topic ``thread_id`` if one is given.
        """
        slot = self._slots.pop(key, None)
        if slot is None or slot.chat_id != chat_id:
            slot = _Slot(key, chat_id, message_id, thread_id)
        elif not slot.owns_id and slot.message_id != message_id:
            slot.message_id = message_id
            slot.shown = None
        self._slots[key] = slot
        # Coalescing keeps the newest text; it stays normal if any screen it replaces was.
        slot.pending_low = low_priority and (slot.pending is None or slot.pending_low)
        slot.pending = screen
        self._enqueue(slot)
        self._evict_slots()

    async def flush(self, timeout: float = 5.0) -> None:
        """Wait until every pending screen is sent or dropped; TimeoutError after ``timeout``."""
        if self._is_idle():
            return
        if self._worker is None or self._worker.done():
            raise RuntimeError("the publisher is not running: call start() first")
        await asyncio.wait_for(self._idle.wait(), timeout)

    async def start(self) -> None:
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._run(), name="publisher")

    async def stop(self) -> None:
        """Stop the worker; requests already in flight are allowed to finish."""
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker
            self._worker = None
        if self._sending:
            await asyncio.gather(*self._sending, return_exceptions=True)

    # -- the worker -------------------------------------------------------------------------

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            try:
                delay = self._dispatch(time.monotonic())
            except Exception:
                log.exception("publisher: dispatch failed")
                delay = _DISPATCH_ERROR_PAUSE
            if self._is_idle():
                self._idle.set()
            if delay is None:
                await self._wake.wait()
            else:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), delay)

    def _dispatch(self, now: float) -> float | None:
        """Start every request the budgets allow now; seconds until the next one may start."""
        delay: float | None = None
        for low in (False, True):  # normal screens take the budget first
            for key in list(self._queue):
                slot = self._slots[key]
                if slot.busy or slot.pending_low != low:
                    continue
                if slot.message_id is not None and slot.pending == slot.shown:
                    self._unqueue(slot)
                    continue
                chat = self._chat(slot.chat_id)
                wait = max(
                    slot.not_before - now,
                    chat.wait(now),
                    self._global_blocked_until - now,
                    self._global.wait(now),
                )
                if wait <= 0:
                    self._start(slot, chat, now)
                elif low:
                    self._unqueue(slot)  # only spare budget is spent on low priority
                else:
                    delay = wait if delay is None else min(delay, wait)
        return delay

    def _start(self, slot: _Slot, chat: _Chat, now: float) -> None:
        chat.bucket.take(now)
        self._global.take(now)
        screen, low = slot.pending, slot.pending_low
        assert screen is not None
        self._unqueue(slot)
        slot.busy = True
        if slot.message_id is None:
            slot.owns_id = True
        task = asyncio.create_task(self._deliver(slot, screen, low))
        self._sending.add(task)
        task.add_done_callback(self._delivered)

    def _delivered(self, task: asyncio.Task[None]) -> None:
        self._sending.discard(task)
        self._wake.set()

    async def _deliver(self, slot: _Slot, screen: Screen, low: bool) -> None:
        message_id = slot.message_id
        try:
            if message_id is None:
                await self._send(slot, screen)
            else:
                await self._bot.edit_message_text(
                    text=screen.text,
                    chat_id=slot.chat_id,
                    message_id=message_id,
                    reply_markup=screen.markup,
                    parse_mode=self._parse_mode,
                )
                slot.shown = screen
            slot.failures = 0
        except TelegramRetryAfter as exc:
            self._flooded(slot.chat_id, exc.retry_after)
            if not low:
                self._retry(slot, screen)
        except TelegramMigrateToChat as exc:
            await self._migrated(slot, screen, exc.migrate_to_chat_id)
        except TelegramBadRequest as exc:
            self._refused(slot, screen, message_id, exc)
        except TelegramForbiddenError as exc:
            await self._blocked(slot, exc)
        except (TelegramNetworkError, TelegramServerError) as exc:
            # Retried until it works: the message must end up showing the latest screen.
            slot.failures += 1
            interval = 1.0 / self._chat(slot.chat_id).bucket.rate
            backoff = min(interval * 2 ** (slot.failures - 1), _MAX_BACKOFF)
            slot.not_before = time.monotonic() + backoff
            log.warning("publisher: %r failed (%s), retrying in %.1fs", slot.key, exc, backoff)
            if not low:
                self._retry(slot, screen)
        except Exception:
            log.exception("publisher: a screen for %r failed", slot.key)
        finally:
            slot.busy = False

    async def _send(self, slot: _Slot, screen: Screen) -> None:
        message = await self._bot.send_message(
            chat_id=slot.chat_id,
            text=screen.text,
            reply_markup=screen.markup,
            parse_mode=self._parse_mode,
            message_thread_id=slot.thread_id,
        )
        slot.message_id = message.message_id
        slot.shown = screen
        try:
            await self._on_new_message(slot.key, slot.chat_id, message.message_id)
        except Exception:
            log.exception("publisher: on_new_message failed for %r", slot.key)

    async def _migrated(self, slot: _Slot, screen: Screen, new_chat_id: int) -> None:
        """The group is a supergroup now: its old messages cannot be edited under the new id."""
        old_chat_id = slot.chat_id
        log.info("publisher: chat %s moved to %s", old_chat_id, new_chat_id)
        slot.chat_id = new_chat_id
        slot.message_id, slot.shown = None, None
        self._retry(slot, screen)
        await self._report(self._on_migrated, old_chat_id, new_chat_id)

    async def _blocked(self, slot: _Slot, exc: TelegramForbiddenError) -> None:
        log.info("publisher: dropping screens for %r, chat %s: %s", slot.key, slot.chat_id,
                 exc.message)
        if self._slots.get(slot.key) is slot:
            self._unqueue(slot)
        await self._report(self._on_blocked, slot.chat_id)

    @staticmethod
    async def _report(callback: Callable[..., Awaitable[None]] | None, *args: int) -> None:
        if callback is None:
            return
        try:
            await callback(*args)
        except Exception:
            log.exception("publisher: reporting %r failed", args)

    def _refused(
        self, slot: _Slot, screen: Screen, message_id: int | None, exc: TelegramBadRequest
    ) -> None:
        reason = exc.message.lower()
        if _NOT_MODIFIED in reason:
            slot.shown = screen
        elif message_id is not None and any(words in reason for words in _GONE):
            log.info("publisher: message %s of %r is gone, sending a new one", message_id, slot.key)
            if slot.message_id == message_id:
                slot.message_id, slot.shown = None, None
            slot.owns_id = True
            self._retry(slot, screen)
        else:
            log.error("publisher: Telegram refused a screen for %r: %s", slot.key, exc.message)

    def _flooded(self, chat_id: int, retry_after: float) -> None:
        now = time.monotonic()
        until = now + retry_after
        chat = self._chat(chat_id)
        chat.blocked_until = max(chat.blocked_until, until)
        # One flooded chat is that chat's limit; two at once means the bot-wide limit.
        if self._last_flood and self._last_flood[0] != chat_id and self._last_flood[1] > now:
            self._global_blocked_until = max(self._global_blocked_until, until)
            log.warning("publisher: flood control in several chats, pausing %ss", retry_after)
        else:
            log.warning("publisher: flood control in chat %s, pausing %ss", chat_id, retry_after)
        self._last_flood = (chat_id, until)

    # -- bookkeeping ------------------------------------------------------------------------

    def _retry(self, slot: _Slot, screen: Screen) -> None:
        """Put a screen back unless a newer one arrived for the key meanwhile."""
        if self._slots.get(slot.key) is slot and slot.pending is None:
            slot.pending, slot.pending_low = screen, False
            self._enqueue(slot)

    def _enqueue(self, slot: _Slot) -> None:
        self._queue.setdefault(slot.key, None)  # an already queued key keeps its turn
        self._idle.clear()
        self._wake.set()

    def _unqueue(self, slot: _Slot) -> None:
        slot.pending, slot.pending_low = None, False
        self._queue.pop(slot.key, None)

    def _is_idle(self) -> bool:
        return not self._queue and not self._sending

    def _chat(self, chat_id: int) -> _Chat:
        chat = self._chats.get(chat_id)
        if chat is None:
            if len(self._chats) >= _MAX_CHATS:
                self._evict_chats()
            rate = self._private_rate if chat_id > 0 else self._group_rate
            chat = self._chats[chat_id] = _Chat(TokenBucket(rate))
        return chat

    def _evict_chats(self) -> None:
        # A rested, unblocked chat is indistinguishable from a new one.
        now = time.monotonic()
        for chat_id, chat in list(self._chats.items()):
            if chat.blocked_until <= now and chat.bucket.full(now):
                del self._chats[chat_id]

    def _evict_slots(self) -> None:
        excess = len(self._slots) - _MAX_SLOTS
        if excess <= 0:
            return
        for key, slot in list(self._slots.items()):
            if excess <= 0:
                break
            if slot.pending is None and not slot.busy:
                del self._slots[key]
                excess -= 1
