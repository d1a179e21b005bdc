"""Who comes to the bot: a banned person's updates are answered with one line (an inline query
with nothing) and go no further (no store, table or screen sees them); everyone else's visit is
noted (when he was last seen, his @username), at most once an hour, for /ban @username and a
broadcast's audience."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.enums import ChatType
from aiogram.types import CallbackQuery, InlineQuery, Message, TelegramObject, User

from tg_durak.i18n.translate import translator
from tg_durak.outbox.publisher import Publisher
from tg_durak.storage import Store, StoreUnavailable
from tg_durak.tables.moderation import Moderation
from tg_durak.telegram.handlers.replies import respond

VISIT_SECONDS = 3600.0     # a visit is written again after this long (or a new @username)
ANSWER_SECONDS = 60.0      # a banned person's messages are answered once in this long
KEPT = 10_000              # people remembered, the least recently seen forgotten first


class BanGate(BaseMiddleware):
    def __init__(self, moderation: Moderation, store: Store, publisher: Publisher,
                 language_of: Callable[[int], str],
                 clock: Callable[[], float] = time.time) -> None:
        self.moderation = moderation
        self.store = store
        self.publisher = publisher
        self.language_of = language_of
        self.clock = clock
        self._visits: OrderedDict[int, tuple[float, str | None]] = OrderedDict()
        self._answered: OrderedDict[int, float] = OrderedDict()

    async def __call__(self, handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
                       event: TelegramObject, data: dict[str, Any]) -> Any:
        user: User | None = data.get("event_from_user")
        if user is None:
            return await handler(event, data)
        if await self.moderation.is_banned(user.id):
            await self._refuse(event, user)
            return None
        await self._visited(user)
        return await handler(event, data)

    async def _refuse(self, event: TelegramObject, user: User) -> None:
        line = translator(self.language_of(user.id))("banned.line")
        if isinstance(event, CallbackQuery):
            await event.answer(line, show_alert=True)
        elif isinstance(event, InlineQuery):   # no game of his to send anywhere
            await event.answer([], cache_time=0, is_personal=True)
        elif isinstance(event, Message) and event.chat.type == ChatType.PRIVATE:
            now = self.clock()
            if now - self._answered.get(user.id, -ANSWER_SECONDS) >= ANSWER_SECONDS:
                _remember(self._answered, user.id, now)
                respond(self.publisher, event, line)
        # In a group he is not answered: the group would read it for every message of his.

    async def _visited(self, user: User) -> None:
        now = self.clock()
        last = self._visits.get(user.id)
        if last is not None and now - last[0] < VISIT_SECONDS and last[1] == user.username:
            return
        try:
            await self.store.operators.seen(user.id, user.username, now)
        except StoreUnavailable:   # noted at his next update; his update goes on meanwhile
            return
        _remember(self._visits, user.id, (now, user.username))


def _remember(kept: OrderedDict, key: int, value: Any) -> None:
    kept[key] = value
    kept.move_to_end(key)
    if len(kept) > KEPT:
        kept.popitem(last=False)
