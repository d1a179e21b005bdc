"""Taps on a game message, and the answer to a button that parses to nothing.

One handler reads the button's fields into a `Tap` (what the verb means is `play.taps`); the
table service does the rest.
"""

from __future__ import annotations

from collections.abc import Callable

from aiogram import Bot, Router
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery

from tg_durak.i18n.translate import Translator
from tg_durak.play.taps import (
    Beat,
    Cancel,
    Pass,
    PlayCard,
    ShowTrump,
    Take,
    Tap,
    TransferMode,
    TransferWith,
)
from tg_durak.render.callbacks import Move, Verb
from tg_durak.tables.service import TableService
from tg_durak.telegram.callbacks import MoveCallback, record_of
from tg_durak.telegram.handlers.replies import answer_query

PRESSED: dict[Verb, Callable[[Move], Tap]] = {
    Verb.CARD: lambda d: PlayCard(d.card),
    Verb.TARGET: lambda d: Beat(d.card, d.target),
    Verb.TRANSFER_MODE: lambda d: TransferMode(),
    Verb.TRANSFER: lambda d: TransferWith(d.card),
    Verb.TAKE: lambda d: Take(),
    Verb.PASS: lambda d: Pass(),
    Verb.SHOW_TRUMP: lambda d: ShowTrump(d.card),
    Verb.CANCEL: lambda d: Cancel(),
}


async def tapped(query: CallbackQuery, callback_data: CallbackData, t: Translator, bot: Bot,
                 tables: TableService) -> None:
    move = record_of(callback_data, Move)
    answer = await tables.moves.tap(query.from_user.id, move.table, move.v,
                                    PRESSED[move.verb](move))
    await answer_query(query, answer, t, bot)


async def unknown(query: CallbackQuery, t: Translator) -> None:
    """Bytes that parse to no button, or to values no handler takes: forged or from old code."""
    await query.answer(t("tap.unknown"), show_alert=True)


def router() -> Router:
    r = Router(name="game")
    r.callback_query.register(tapped, MoveCallback.filter())
    r.callback_query.register(unknown)  # last, in the last router: what nothing else took
    return r
