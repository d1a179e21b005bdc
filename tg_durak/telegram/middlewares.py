"""Per-update injection: who the user is and which language he reads; aiogram's I18n."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any
from weakref import WeakValueDictionary

from aiogram.enums import ChatType
from aiogram.types import Chat, TelegramObject, User
from aiogram.utils.i18n import I18n, I18nMiddleware

from tg_durak.i18n.translate import (
    DEFAULT_LOCALE,
    DOMAIN,
    LOCALES_DIR,
    chain_fallbacks,
    pick_locale,
    translator,
)
from tg_durak.storage import Store


def make_i18n() -> I18n:
    """A fresh aiogram I18n over the catalogs, whose ``_()`` raises on an unknown key too.

    The chain is added to the catalogs aiogram loaded rather than by subclassing I18n: aiogram's
    ``gettext`` finds the active instance through a context variable of the I18n class itself.
    (``I18n.reload()`` would load plain catalogs again; the bot never reloads.)
    """
    i18n = I18n(path=LOCALES_DIR, default_locale=DEFAULT_LOCALE, domain=DOMAIN)
    chain_fallbacks(i18n.locales)
    return i18n


class PlayerLocaleMiddleware(I18nMiddleware):
    """The language saved for the user, else his Telegram language (saved the first time).

    Handlers get `t` (a Translator) and `user` (his stored row). A group chat's own language
    can later be added here as one more lookup keyed by chat, without touching the handlers:
    game messages are rendered per player by the table service.
    """

    def __init__(self, i18n: I18n, store: Store,
                 reachable: Callable[[int], Awaitable[None]]) -> None:
        """`reachable(user_id)`: he wrote to the bot privately, so it may write to him: stored,
        and a table a computer played for him meanwhile is his again, with his screen."""
        super().__init__(i18n)
        self.store = store
        self.reachable = reachable
        # One person's updates may be handled at once (his /start, then /new a moment later):
        # what the first learns of him (he opened the bot) is stored before the next reads it.
        self._person_locks: WeakValueDictionary[int, asyncio.Lock] = WeakValueDictionary()

    async def get_locale(self, event: TelegramObject, data: dict[str, Any]) -> str:
        user: User | None = data.get("event_from_user")
        if user is None:
            return self.i18n.default_locale
        lock = self._person_locks.get(user.id)
        if lock is None:
            lock = self._person_locks[user.id] = asyncio.Lock()
        async with lock:
            row = await self.store.users.ensure(user.id, user.full_name,
                                                pick_locale(user.language_code))
            chat: Chat | None = data.get("event_chat")
            if chat is not None and chat.type == ChatType.PRIVATE and not row.reachable:
                # He writes to the bot privately: from now on it may write to him.
                await self.reachable(user.id)
                row = await self.store.users.get(user.id) or row
        data["user"] = row
        return row.language or DEFAULT_LOCALE

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        locale = await self.get_locale(event, data)
        data["t"] = translator(locale)
        data["locale"] = locale
        if self.i18n_key:   # as aiogram's own I18nMiddleware: the key may be switched off
            data[self.i18n_key] = self.i18n
        with self.i18n.use_locale(locale):
            return await handler(event, data)
