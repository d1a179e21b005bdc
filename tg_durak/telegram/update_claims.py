"""Each Telegram update handled at most once, and a stop that lets the updates under way finish.

Telegram offers an update until a later getUpdates confirms it, and aiogram confirms a batch only
with its next request, so a bot killed meanwhile is offered that batch again after its restart.
The store records every update as it is taken on (`store.updates.claim`); one offered again is
skipped, so a tap is never applied twice. An update that was under way when the bot was killed
is lost rather than doubled: its player sees no answer and taps again.

By webhook (`offered_again`), Telegram posts an update again after any answer but a 2xx, so a
handler that could not finish — the store refused (StoreUnavailable), or an unexpected error —
raises NotHandled, which the webhook answers with a 503, and its claim is released so that the
next offer is taken. Nobody is told "not saved": the offer that succeeds answers him. An update
whose claim cannot even be written is not handled at all (503, nothing recorded).

A tap (a callback query) the store refused is the exception: it is answered at once, "not
saved, tap again" (handlers.failures), and done with (200), never applied later. A move belongs
to the position it was made in; Telegram's next offer may come after the tap's 15 s (its answer
refused), and a database down for a while would have the taps made meanwhile land together on
its return, in positions their players no longer see.

On SQLite (one process) the claim is its own transaction, before the handler's, not part of
them: the windows that leaves are (1) a handler that committed one change and then failed on a
later one has the first applied again by the next offer (taps carry the table's version, so a
move is not doubled); (2) a release that the store refuses too is remembered in this process
only. A handler cancelled by a stop keeps its claim: lost rather than doubled.

On a shared database (several webhook processes, any of which may die) the claim is written in
the transaction of the first table change the update makes (tables.claims): a process killed
before that commits leaves neither, and Telegram's next offer, on another process, applies it;
two offers handled at once meet under the table's lock, and the second changes nothing. An
update that changes no table is claimed once its handler is done; one already claimed is
skipped before its handler runs.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.dispatcher.event.bases import UNHANDLED
from aiogram.exceptions import TelegramAPIError
from aiogram.types import TelegramObject, Update

from tg_durak.storage import DatabaseDown, Store, StoreUnavailable
from tg_durak.tables.claims import AlreadyHandled, handling

log = logging.getLogger(__name__)

CANCELLED_SECONDS = 0.25   # for a cancelled update to leave (roll back its transaction)

UpdateHandler = Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]


class NotHandled(Exception):
    """By webhook: the update was not handled and is not recorded as handled; Telegram is to
    offer it again (the webhook answers 503)."""


class Delivery(BaseMiddleware):
    """The dispatcher's outer middleware for updates: see the module docstring.

    `offered_again`: Telegram offers an update again when it was not handled (a webhook's
    non-2xx answer); with polling it is confirmed whatever happened.
    """

    def __init__(self, store: Store, *, offered_again: bool = False) -> None:
        self._store = store
        self._offered_again = offered_again
        self._with_change = offered_again and store.shared
        # Claims of failed updates the store refused to release: still ours to take again.
        self._unreleased: set[int] = set()
        self._under_way: set[asyncio.Task] = set()   # each update is handled in its own task
        self._idle = asyncio.Event()
        self._idle.set()

    async def __call__(self, handler: UpdateHandler, event: TelegramObject,
                       data: dict[str, Any]) -> Any:
        assert isinstance(event, Update)   # an outer middleware of the updates (app.py)
        task = asyncio.current_task()
        assert task is not None
        self._under_way.add(task)
        self._idle.clear()
        try:
            if self._with_change:
                return await self._claim_with_change(handler, event, data)
            if not await self._first_time(event):
                log.info("update %s was taken on before; skipped", event.update_id)
                return UNHANDLED
            if not self._offered_again:
                return await handler(event, data)
            return await self._handle_or_release(handler, event, data)
        finally:
            self._under_way.discard(task)
            if not self._under_way:
                self._idle.set()

    async def _claim_with_change(self, handler: UpdateHandler, event: Update,
                                 data: dict[str, Any]) -> Any:
        update_id = event.update_id
        try:
            if await self._store.updates.handled(update_id):
                log.info("update %s was taken on before; skipped", update_id)
                return UNHANDLED
        except StoreUnavailable as exc:
            if event.callback_query is not None:
                raise   # answered "not saved" (see the module docstring)
            raise NotHandled(f"update {update_id}: cannot tell whether it was handled") from exc
        with handling(update_id) as pending:
            try:
                result = await handler(event, data)
            except AlreadyHandled:
                log.info("update %s was applied by another offer meanwhile", update_id)
                return UNHANDLED
            except TelegramAPIError:
                await self._claim_after(update_id, pending.claimed)
                raise   # Telegram refused the handler's own request: what it did stands
            except Exception as exc:   # nothing of it was committed with its claim
                if not isinstance(exc, StoreUnavailable):
                    log.exception("update %s failed; Telegram is to offer it again", update_id)
                elif event.callback_query is not None and not pending.claimed:
                    raise   # answered "not saved" (see the module docstring)
                raise NotHandled(f"update {update_id}: {exc}") from exc
            await self._claim_after(update_id, pending.claimed)
        return result

    async def _claim_after(self, update_id: int, claimed: bool) -> None:
        """An update handled without a table change (or before its claim): claimed now."""
        if claimed:
            return
        try:
            await self._store.updates.claim(update_id)
        except DatabaseDown:   # the store said so once; as below
            pass
        except StoreUnavailable:   # handled all the same; only a rare second offer repeats it
            log.warning("update %s: handled, but its claim was not stored", update_id)

    async def _first_time(self, event: Update) -> bool:
        update_id = event.update_id
        if update_id in self._unreleased:
            self._unreleased.discard(update_id)
            return True
        try:
            return await self._store.updates.claim(update_id)
        except StoreUnavailable as exc:
            if self._offered_again and event.callback_query is None:
                # Telegram offers it again: the store may be back then.
                raise NotHandled(f"update {update_id}: cannot record it as handled") from exc
            if self._offered_again:
                raise   # a tap: answered "not saved" (see the module docstring)
            # Unknown; handling it is better than losing it, and whatever it changes meets the
            # same refusal, which its handler answers.
            log.warning("update %s: cannot record it as handled", update_id)
            return True

    async def _handle_or_release(self, handler: UpdateHandler, event: Update,
                                 data: dict[str, Any]) -> Any:
        try:
            return await handler(event, data)
        except TelegramAPIError:
            raise   # Telegram refused the handler's own request: what it did stands
        except Exception as exc:
            if not isinstance(exc, StoreUnavailable):
                log.exception("update %s failed; Telegram is to offer it again", event.update_id)
            elif event.callback_query is not None:
                raise   # answered "not saved" (see the module docstring); its claim stays
            await self._release(event.update_id)
            raise NotHandled(f"update {event.update_id}: {exc}") from exc

    async def _release(self, update_id: int) -> None:
        try:
            await self._store.updates.release(update_id)
        except StoreUnavailable:
            log.warning("update %s: its claim could not be released", update_id)
            self._unreleased.add(update_id)

    async def drain(self, timeout: float) -> int:
        """Wait until no update is under way, at most `timeout` seconds; then the ones left
        (stuck on Telegram or the database) are cancelled. Returns how many were."""
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
            return 0
        except TimeoutError:
            stuck = list(self._under_way)
        log.warning("stopping: %d update(s) still under way are abandoned", len(stuck))
        for task in stuck:
            task.cancel()
        await asyncio.wait(stuck, timeout=CANCELLED_SECONDS)
        return len(stuck)
