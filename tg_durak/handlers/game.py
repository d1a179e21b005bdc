"""Taps on a game message, and the answer to any button that parses to nothing."""

from __future__ import annotations

from aiogram import Router
from aiogram.types import CallbackQuery

from tg_durak.callbacks import Move
from tg_durak.i18n import Translator
from tg_durak.tables import TableService


def router() -> Router:
    r = Router(name="game")

    @r.callback_query(Move.filter())
    async def move(query: CallbackQuery, callback_data: Move, t: Translator,
                   tables: TableService) -> None:
        reply = await tables.tap(query.from_user.id, callback_data)
        text = t(reply.key, **reply.params) if reply.key else None
        await query.answer(text, show_alert=reply.alert)

    @r.callback_query()
    async def unknown(query: CallbackQuery, t: Translator) -> None:
        await query.answer(t("tap.unknown"), show_alert=True)

    return r
