"""Per-update injection: who the user is and which language he reads."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiogram.types import Chat, TelegramObject, User
from aiogram.utils.i18n import I18n, I18nMiddleware

from tg_durak.i18n.translate import pick_locale, translator
from tg_durak.storage import Store
from tg_durak.tables.service import TableService


class PlayerLocaleMiddleware(I18nMiddleware):
    """The language saved for the user, else his Telegram language (saved the first time).

    Handlers get `t` (a Translator) and `user` (his stored row). A group chat's own language
    can later be added here as one more lookup keyed by chat, without touching the handlers:
    game messages are rendered per player by the table service.
    """

    def __init__(self, i18n: I18n, store: Store, tables: TableService) -> None:
        super().__init__(i18n)
        self.store = store
        self.tables = tables

    async def get_locale(self, event: TelegramObject, data: dict[str, Any]) -> str:
        user: User | None = data.get("event_from_user")
        if user is None:
            return self.i18n.default_locale
        row = await self.store.users.ensure(user.id, user.full_name)
        chat: Chat | None = data.get("event_chat")
        opened = chat is not None and chat.type == "private" and not row.reachable
        if opened:   # he writes to the bot privately: from now on it may write to him
            await self.store.users.set_reachable(user.id, True)
        if row.language is None:
            await self.store.users.set_language(user.id, pick_locale(user.language_code))
        if opened or row.language is None:
            row = await self.store.users.get(user.id)
        data["user"] = row
        self.tables.remember_locale(user.id, row.language)
        return row.language

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        locale = await self.get_locale(event, data)
        data["t"] = translator(locale)
        data["locale"] = locale
        data[self.i18n_key] = self.i18n
        with self.i18n.use_locale(locale):
            return await handler(event, data)
