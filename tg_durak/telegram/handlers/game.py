"""Taps on a game message, one handler per verb; the answer to a button that parses to nothing.

Each handler reads its button's fields into a `Tap`; the table service does the rest.
"""

from __future__ import annotations

from aiogram import F, Router
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
from tg_durak.render.callbacks import Verb
from tg_durak.tables.service import TableService
from tg_durak.telegram.callbacks import Move


async def _tap(query: CallbackQuery, move: Move, pressed: Tap, t: Translator,
               tables: TableService) -> None:
    reply = await tables.tap(query.from_user.id, move.table, move.v, pressed)
    await query.answer(t(reply.key) if reply.key else None, show_alert=reply.alert)


async def play_card(query: CallbackQuery, callback_data: Move, t: Translator,
                    tables: TableService) -> None:
    await _tap(query, callback_data, PlayCard(callback_data.card), t, tables)


async def beat(query: CallbackQuery, callback_data: Move, t: Translator,
               tables: TableService) -> None:
    await _tap(query, callback_data, Beat(callback_data.card, callback_data.target), t, tables)


async def transfer_mode(query: CallbackQuery, callback_data: Move, t: Translator,
                        tables: TableService) -> None:
    await _tap(query, callback_data, TransferMode(), t, tables)


async def transfer(query: CallbackQuery, callback_data: Move, t: Translator,
                   tables: TableService) -> None:
    await _tap(query, callback_data, TransferWith(callback_data.card), t, tables)


async def take(query: CallbackQuery, callback_data: Move, t: Translator,
               tables: TableService) -> None:
    await _tap(query, callback_data, Take(), t, tables)


async def pass_(query: CallbackQuery, callback_data: Move, t: Translator,
                tables: TableService) -> None:
    await _tap(query, callback_data, Pass(), t, tables)


async def show_trump(query: CallbackQuery, callback_data: Move, t: Translator,
                     tables: TableService) -> None:
    await _tap(query, callback_data, ShowTrump(callback_data.card), t, tables)


async def cancel(query: CallbackQuery, callback_data: Move, t: Translator,
                 tables: TableService) -> None:
    await _tap(query, callback_data, Cancel(), t, tables)


async def unknown(query: CallbackQuery, t: Translator) -> None:
    """Bytes that parse to no button, or to values no handler takes: forged or from old code."""
    await query.answer(t("tap.unknown"), show_alert=True)


def router() -> Router:
    r = Router(name="game")
    on = r.callback_query.register
    on(play_card, Move.filter(F.verb == Verb.CARD))
    on(beat, Move.filter(F.verb == Verb.TARGET))
    on(transfer_mode, Move.filter(F.verb == Verb.TRANSFER_MODE))
    on(transfer, Move.filter(F.verb == Verb.TRANSFER))
    on(take, Move.filter(F.verb == Verb.TAKE))
    on(pass_, Move.filter(F.verb == Verb.PASS))
    on(show_trump, Move.filter(F.verb == Verb.SHOW_TRUMP))
    on(cancel, Move.filter(F.verb == Verb.CANCEL))
    on(unknown)  # last, in the last router: what nothing else took
    return r
