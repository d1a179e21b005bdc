"""An operator's broadcast, from its draft to its last recipient: sent at the outbox's lowest
priority (games never wait for it), paced under the bot's budget, resumed by any process after a
restart, and never twice to anyone.

Sending goes in small batches, each one step of the database (storage/operators.py): the last
batch's outcome stored, the lease renewed, the next recipients marked 'sending', committed
before their messages are handed to Telegram. A process that dies leaves its batch 'sending';
whoever takes the broadcast over marks those 'unknown' and sends on from the next one: at most
`BATCH` people may have missed the message, nobody gets it twice (at most once).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Callable, Hashable
from html import escape
from typing import Protocol

from tg_durak.i18n.translate import translator
from tg_durak.outbox.budgets import TokenBucket
from tg_durak.outbox.queue import Priority
from tg_durak.play.operators import (
    AUDIENCE_DAYS,
    BroadcastRow,
    BroadcastStatus,
    OperatorAction,
    RecipientState,
)
from tg_durak.render.operators import progress_screen
from tg_durak.render.screen import Screen
from tg_durak.storage import DatabaseDown, Store, StoreUnavailable
from tg_durak.tables.languages import PlayerLanguages

log = logging.getLogger(__name__)

BATCH = 10             # recipients in flight at once: the most a crash may leave unknown
RATE = 20.0            # messages a second at most: a third of the bot's budget stays free
LEASE_SECONDS = 6.0    # a dead process's broadcast is taken over this long after its last step
LOOK_SECONDS = 1.0     # how often a process looks for a broadcast nobody sends
DRAW_SECONDS = 2.0     # the operator's progress is redrawn at most this often while sending
DAY = 86400.0


class BulkOutbox(Protocol):
    """outbox.Publisher, as far as a broadcast uses it."""

    def send(self, chat_id: int, screen: Screen, *, reply_to: int | None = None,
             thread_id: int | None = None, priority: Priority = Priority.MOVER,
             settled: Callable[[bool], None] | None = None) -> None: ...

    def show(self, key: Hashable, chat_id: int, message_id: int | str | None, screen: Screen, *,
             priority: Priority = Priority.PLAYER, thread_id: int | None = None) -> None: ...


class Broadcasts:
    def __init__(self, store: Store, outbox: BulkOutbox, languages: PlayerLanguages,
                 process: str, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.outbox = outbox
        self.languages = languages
        self.process = process
        self.clock = clock
        self._pace = TokenBucket(RATE)
        self._drawn_at: dict[int, float] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    # ---- what the operator asks ------------------------------------------------------------

    def audience_since(self) -> float:
        return self.clock() - AUDIENCE_DAYS * DAY

    async def draft(self, operator: int, text: str) -> tuple[BroadcastRow, int]:
        """The draft, and how many it would reach now."""
        row = await self.store.operators.draft(operator, text, self.clock())
        return row, await self.store.operators.audience(self.audience_since())

    async def confirm(self, broadcast_id: int, operator: int, preview: int) -> int | None:
        """It goes out (its recipients taken now), its preview message (`preview`) showing
        its progress from now on; how many it goes to; None: no draft of his."""
        count = await self.store.operators.confirm(broadcast_id, operator,
                                                   self.audience_since(), self.clock(), preview)
        if count is not None:
            await self._draw(broadcast_id)
            self._wake.set()
        return count

    async def cancel(self, broadcast_id: int, operator: int, preview: int) -> bool:
        """The draft is dropped; its preview message says so."""
        cancelled = await self.store.operators.end(
            broadcast_id, operator, BroadcastStatus.CANCELLED, OperatorAction.BROADCAST_CANCEL,
            self.clock())
        if cancelled:
            t = translator(self.languages.of(operator))
            self.outbox.show(_progress_key(broadcast_id), operator, preview,
                             Screen(t("op.broadcast.cancelled")))
        return cancelled

    async def stop(self, operator: int) -> list[int]:
        """Every broadcast under way stops (whoever sends it sees so at its next step)."""
        stopped = []
        for row in await self.store.operators.under_way():
            if await self.store.operators.end(row.id, operator, BroadcastStatus.STOPPED,
                                              OperatorAction.BROADCAST_STOP, self.clock()):
                stopped.append(row.id)
                await self._draw(row.id)
        return stopped

    # ---- sending ---------------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="broadcasts")

    async def close(self, timeout: float) -> None:
        """No new batch; the one in flight is waited for (`timeout` at most) and stored, so
        that the next process sends on from there; the lease is given up."""
        self._stopping = True
        self._wake.set()
        if self._task is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(self._task), timeout)
        except TimeoutError:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        while not self._stopping:
            try:
                for row in await self.store.operators.under_way():
                    if self._stopping:
                        break
                    if await self.store.operators.take_lease(row.id, self.process, self.clock(),
                                                             LEASE_SECONDS):
                        await self._send(row)
            except StoreUnavailable as exc:   # the next look may get through
                if not isinstance(exc, DatabaseDown):   # which the store logs itself
                    log.warning("broadcasts: %s", exc)
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), LOOK_SECONDS)

    async def _send(self, row: BroadcastRow) -> None:
        ops = self.store.operators
        done: dict[int, RecipientState] = {}
        text = Screen(escape(row.text))
        try:
            while True:
                batch = await ops.next_batch(row.id, self.process, self.clock(), LEASE_SECONDS,
                                             done, 0 if self._stopping else BATCH)
                await self._draw(row.id, finished=not batch)
                if not batch:
                    return   # done, stopped, taken over, or this process stops
                done = await self._hand_out(row.id, batch, text)
        finally:
            await ops.release(row.id, self.process)

    async def _hand_out(self, broadcast_id: int, batch: list[int],
                        text: Screen) -> dict[int, RecipientState]:
        """The batch's messages through the outbox, paced; what came of each (the lease kept
        meanwhile: the bot's budget may be all the games' for a while)."""
        loop = asyncio.get_running_loop()
        outcomes: dict[int, asyncio.Future[bool]] = {}
        for user_id in batch:
            wait = self._pace.wait(time.monotonic())
            if wait > 0:
                await asyncio.sleep(wait)
            self._pace.take(time.monotonic())
            outcome = outcomes[user_id] = loop.create_future()
            self.outbox.send(user_id, text, priority=Priority.BULK,
                             settled=functools.partial(_settle, outcome))
        pending = set(outcomes.values())
        while pending:
            _, pending = await asyncio.wait(pending, timeout=LEASE_SECONDS / 3)
            if pending:
                await self.store.operators.take_lease(broadcast_id, self.process, self.clock(),
                                                      LEASE_SECONDS)
        return {user_id: RecipientState.SENT if f.result() else RecipientState.FAILED
                for user_id, f in outcomes.items()}

    async def _draw(self, broadcast_id: int, finished: bool = True) -> None:
        """The operator's progress message, as the database has it: at most every
        DRAW_SECONDS while sending, always at the end."""
        now = time.monotonic()
        if not finished and now - self._drawn_at.get(broadcast_id, -DRAW_SECONDS) < DRAW_SECONDS:
            return
        self._drawn_at[broadcast_id] = now
        progress = await self.store.operators.progress(broadcast_id)
        if progress is None:
            return
        row = progress.broadcast
        if row.message_id is None:
            return   # none to show it in (a confirmation stores its preview's)
        screen = progress_screen(progress, translator(self.languages.of(row.operator)))
        self.outbox.show(_progress_key(row.id), row.operator, row.message_id, screen)


def _progress_key(broadcast_id: int) -> tuple[str, int, str]:
    """The operator's progress message (three parts: the tables' reports take two-part keys
    for their own messages, tables/chats.py)."""
    return ("broadcast", broadcast_id, "progress")


def _settle(outcome: asyncio.Future[bool], went: bool) -> None:
    if not outcome.done():
        outcome.set_result(went)
