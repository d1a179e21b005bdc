"""Every message send and edit: coalescing, deduplicated, within Telegram's rate limits.

Callers describe what a message should show (a :class:`Screen`) under a key of their choosing
(say ``(table_id, user_id)``) and move on; a background worker brings Telegram up to date. Which
screen goes when is the :class:`~tg_durak.outbox.queue.Outbox`'s business (latest screen wins,
budgets per chat and for the bot, priorities, timer bars dropped first); this module talks to
Telegram:

- a command's reply is a one-off message (:meth:`Publisher.send`) in the same budgets; nothing
  the bot sends bypasses them, and a 429 makes it wait, never fail;
- a 429 pauses the chat (and the whole bot when two chats are flooded at once) for its
  ``retry_after``, then the latest screen goes;
- a message that cannot be edited any more is replaced by a fresh one, reported
  (`outbox.reports.MessageSent`) so that the tables store its id;
- a chat that refuses the bot (403: a person blocked it, or the bot left a group) is reported
  as `ChatRefused`; a group that became a supergroup (a 400 with its new id) as
  `ChatMigrated`, and the screen goes out afresh in the new chat;
- a screen for a forum topic is sent into that topic (``thread_id``).

A key names one message. Once the publisher has sent a message for a key it trusts its own
message id over the caller's (which may be a stale copy from the store).

Several processes on one bot token share a ``gate`` (outbox.gate; Redis: outbox.redis_gate):
before each request it takes a place in the shared budgets and the message's lease, and drops
a screen older than one another process sent. Without one, this process's budgets are all.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Hashable

from aiogram import Bot
from aiogram.exceptions import (
    TelegramBadRequest,
    TelegramForbiddenError,
    TelegramMigrateToChat,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup, ReplyParameters, WebAppInfo

from tg_durak.outbox.gate import SharedGate
from tg_durak.outbox.queue import Outbox, Priority, Request
from tg_durak.outbox.reports import (
    ChatMigrated,
    ChatRefused,
    MessageSent,
    OutboxReport,
    OutboxReports,
)
from tg_durak.render.screen import Screen

log = logging.getLogger(__name__)



_NOT_MODIFIED = "message is not modified"
# Telegram's words for "this message cannot be edited any more": send a fresh one instead.
_GONE = ("message to edit not found", "message can't be edited")
_INLINE_GONE = "message_id_invalid"   # an inline message deleted (or never known)
# Seconds the worker waits after an unexpected error in its own bookkeeping.
_DISPATCH_ERROR_PAUSE = 1.0

def inline_markup(screen: Screen) -> InlineKeyboardMarkup | None:
    """aiogram's keyboard of a screen, built only when it is sent."""
    if screen.keyboard is None:
        return None
    return InlineKeyboardMarkup(inline_keyboard=[
        [InlineKeyboardButton(text=b.text, callback_data=b.callback_data, url=b.url,
                              web_app=None if b.web_app is None else WebAppInfo(url=b.web_app))
         for b in row] for row in screen.keyboard])


class Publisher:
    """Brings Telegram messages up to date with the latest screens; see the module docstring."""

    def __init__(
        self,
        bot: Bot,
        *,
        private_interval: float = 1.0,
        group_per_minute: int = 20,
        global_per_second: int = 30,
        parse_mode: str = "HTML",
        clock: Callable[[], float] = time.monotonic,
        gate: SharedGate | None = None,
        reports: OutboxReports | None = None,
    ) -> None:
        """`reports` hears what Telegram's answers tell of chats and messages."""
        self._bot = bot
        self._gate = gate
        self._reports = reports
        self._parse_mode = parse_mode
        self._clock = clock
        self._outbox = Outbox(private_interval, group_per_minute, global_per_second)
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
        message_id: int | str | None,
        screen: Screen,
        *,
        priority: Priority = Priority.PLAYER,
        thread_id: int | None = None,
        version: int | None = None,
    ) -> None:
        """Make the message ``key`` show ``screen`` soon; returns at once.

        ``message_id`` a str is an inline message's inline_message_id (edited by it alone;
        ``chat_id`` then only names the budget it spends, play/inline.py).
        ``message_id`` None sends a new message (then the listener hears its id), into the
        forum topic ``thread_id`` if one is given. ``priority`` says who waits for it.
        ``version`` (the table's, growing with each change) orders the screens of one key
        across processes; without it they go in the order they are shown.
        """
        stamp = None if self._gate is None else self._gate.stamp(key, version)
        self._outbox.put(key, chat_id, message_id, screen, priority, self._clock(), thread_id,
                         stamp)
        self._queued()

    def send(
        self,
        chat_id: int,
        screen: Screen,
        *,
        reply_to: int | None = None,
        thread_id: int | None = None,
        priority: Priority = Priority.MOVER,
        sent: Callable[[int], None] | None = None,
        settled: Callable[[bool], None] | None = None,
    ) -> None:
        """Send a new message once (a command's reply), in turn with every other; returns at
        once. It answers the message ``reply_to`` if given (and is sent anyway if that is gone);
        ``sent`` hears its message id (a menu that may be redrawn later), ``settled`` whether
        it went at all (False: Telegram refused it) once that is known."""
        self._outbox.put_one_off(chat_id, screen, priority, self._clock(), thread_id, reply_to,
                                 sent, settled)
        self._queued()

    def has_spare_budget(self) -> bool:
        """Whether a timer bar shown now would go out (else it is dropped: drawing it is wasted
        work while the bot's budget is spent)."""
        return self._outbox.spare(self._clock())

    def stats(self) -> dict[str, float]:
        """Counters since the start: requests by kind, screens coalesced (superseded before
        their turn), unchanged (never sent), dropped (timer bars without spare budget), 429s; and
        per priority the requests sent, the longest and the mean a message waited for its
        screen (seconds, since the start: not counters)."""
        outbox = self._outbox
        waits = {}
        for p, longest in outbox.max_wait.items():
            name = p.name.lower()
            sent = outbox.counts[f"sent_{name}"]
            waits[f"max_wait_s_{name}"] = round(longest, 3)
            waits[f"mean_wait_s_{name}"] = round(outbox.total_wait[p] / sent, 3)
            waits[f"sent_{name}"] = sent
        return {
            **{name: outbox.counts[name] for name in _COUNTS},
            "max_wait_s": round(max(outbox.max_wait.values(), default=0.0), 3),
            **waits,
            "queued": outbox.queued,
        }

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
                requests, delay = self._outbox.due(self._clock())
                for request in requests:
                    self._start(request)
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

    def _start(self, request: Request) -> None:
        task = asyncio.create_task(self._admitted(request))
        self._sending.add(task)
        task.add_done_callback(self._delivered)

    def _delivered(self, task: asyncio.Task[None]) -> None:
        self._sending.discard(task)
        self._wake.set()

    async def _admitted(self, request: Request) -> None:
        """Deliver the request if the gate (if any) lets it go now."""
        if self._gate is None:
            await self._deliver(request)
            return
        slot = request.slot
        verdict = await self._gate.admit(slot.key, slot.chat_id,
                                         None if slot.one_off else request.stamp)
        if not verdict.go:
            assert verdict.held_by is not None
            self._outbox.held_back(request, self._clock(), verdict.wait, verdict.held_by)
            return
        try:
            await self._deliver(request)
        finally:
            await asyncio.shield(self._gate.done(verdict))

    async def _deliver(self, request: Request) -> None:
        slot, screen = request.slot, request.screen
        message_id = slot.message_id
        self._outbox.counts["sends" if message_id is None else "edits"] += 1
        try:
            if message_id is None:
                await self._send(request)
            else:
                if isinstance(message_id, str):   # an inline message: its id alone
                    await self._bot.edit_message_text(
                        text=screen.text, inline_message_id=message_id,
                        reply_markup=inline_markup(screen), parse_mode=self._parse_mode)
                else:
                    await self._bot.edit_message_text(
                        text=screen.text,
                        chat_id=slot.chat_id,
                        message_id=message_id,
                        reply_markup=inline_markup(screen),
                        parse_mode=self._parse_mode,
                    )
                slot.shown = screen
            slot.failures = 0
        except TelegramRetryAfter as exc:
            await self._flooded(slot.chat_id, exc.retry_after)
            if request.priority is not Priority.BAR:
                self._outbox.retry(request)
        except TelegramMigrateToChat as exc:
            await self._migrated(request, exc.migrate_to_chat_id)
        except TelegramBadRequest as exc:
            self._refused(request, message_id, exc)
        except TelegramForbiddenError as exc:
            await self._blocked(request, exc)
        except (TelegramNetworkError, TelegramServerError) as exc:
            # Retried until it works: the message must end up showing the latest screen.
            backoff = self._outbox.back_off(slot, self._clock())
            self._outbox.counts["failures"] += 1
            log.warning("publisher: %r failed (%s), retrying in %.1fs", slot.key, exc, backoff)
            if request.priority is not Priority.BAR:
                self._outbox.retry(request)
        except Exception:
            log.exception("publisher: a screen for %r failed", slot.key)
        finally:
            self._outbox.finished(request, self._clock())

    async def _send(self, request: Request) -> None:
        slot, screen = request.slot, request.screen
        reply = None if slot.reply_to is None else ReplyParameters(
            message_id=slot.reply_to, allow_sending_without_reply=True)
        message = await self._bot.send_message(
            chat_id=slot.chat_id,
            text=screen.text,
            reply_markup=inline_markup(screen),
            parse_mode=self._parse_mode,
            message_thread_id=slot.thread_id,
            reply_parameters=reply,
        )
        slot.message_id = message.message_id
        slot.shown = screen
        if slot.one_off:
            if slot.sent is not None:
                slot.sent(message.message_id)
            return
        await self._report(MessageSent(slot.key, slot.chat_id, message.message_id))

    async def _migrated(self, request: Request, new_chat_id: int) -> None:
        """The group is a supergroup now: its old messages cannot be edited under the new id."""
        slot = request.slot
        old_chat_id = slot.chat_id
        log.info("publisher: chat %s moved to %s", old_chat_id, new_chat_id)
        self._outbox.moved(slot, new_chat_id)
        self._outbox.retry(request)
        await self._report(ChatMigrated(old_chat_id, new_chat_id))

    async def _blocked(self, request: Request, exc: TelegramForbiddenError) -> None:
        slot = request.slot
        log.info("publisher: dropping screens for %r, chat %s: %s", slot.key, slot.chat_id,
                 exc.message)
        if self._outbox.is_current(slot):
            self._outbox.unqueue(slot)
        await self._report(ChatRefused(slot.chat_id))

    async def _report(self, report: OutboxReport) -> None:
        if self._reports is not None:
            await self._reports.put(report)

    def _refused(self, request: Request, message_id: int | str | None,
                 exc: TelegramBadRequest) -> None:
        slot = request.slot
        reason = exc.message.lower()
        if _NOT_MODIFIED in reason:
            slot.shown = request.screen
        elif isinstance(message_id, str) and _INLINE_GONE in reason:
            # Deleted by someone in its chat: the bot cannot post there, the table plays on.
            log.info("publisher: inline message of %r is gone", slot.key)
            if self._outbox.is_current(slot):
                self._outbox.unqueue(slot)
        elif message_id is not None and any(words in reason for words in _GONE):
            log.info("publisher: message %s of %r is gone, sending a new one", message_id, slot.key)
            if slot.message_id == message_id:
                slot.message_id, slot.shown = None, None
            slot.owns_id = True
            self._outbox.retry(request)
        else:
            log.error("publisher: Telegram refused a screen for %r: %s", slot.key, exc.message)

    async def _flooded(self, chat_id: int, retry_after: float) -> None:
        everywhere = self._outbox.flooded(chat_id, retry_after, self._clock())
        if everywhere:
            log.warning("publisher: flood control in several chats, pausing %ss", retry_after)
        else:
            log.warning("publisher: flood control in chat %s, pausing %ss", chat_id, retry_after)
        if self._gate is not None:
            await self._gate.flooded(None if everywhere else chat_id, retry_after)

    # -- bookkeeping ------------------------------------------------------------------------

    def _queued(self) -> None:
        self._idle.clear()
        self._wake.set()

    def _is_idle(self) -> bool:
        return self._outbox.empty and not self._sending


_COUNTS = ("sends", "edits", "replies", "coalesced", "unchanged", "dropped", "errors_429",
           "failures", "stale")
