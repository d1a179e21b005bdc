"""Buttons outside the game: setup, quick play, languages, resigning, full rules.

One handler per button. The filters take only the values a button can carry; anything else falls
through to the game router's "unknown button".
"""

from __future__ import annotations

from dataclasses import replace

from aiogram import F, Router
from aiogram.types import CallbackQuery

from tg_durak.callbacks import Lang, Menu, MenuAction, Setup, SetupField
from tg_durak.i18n import LANGUAGE_NAMES, LOCALES, Translator, translator
from tg_durak.play_settings import LEVELS, MAX_OPPONENTS, VARIANTS, PlaySettings
from tg_durak.publisher import Publisher, Screen
from tg_durak.render.menus import setup_screen
from tg_durak.store import Store, UserRow
from tg_durak.tables import TableService

BOT_COUNTS = tuple(str(n) for n in range(1, MAX_OPPONENTS + 1))


async def _start_game(query: CallbackQuery, t: Translator, user: UserRow, tables: TableService,
                      edit: bool) -> None:
    settings = PlaySettings.from_dict(user.settings)
    message = (query.message.chat.id, query.message.message_id) if edit else None
    started = await tables.start_private(user.id, query.from_user.first_name, settings, message)
    await query.answer(None if started else t("play.already"), show_alert=not started)


def _edit(publisher: Publisher, query: CallbackQuery, screen: Screen) -> None:
    """Menus change in place, through the publisher like every other edit."""
    chat_id, message_id = query.message.chat.id, query.message.message_id
    publisher.show(("menu", chat_id, message_id), chat_id, message_id, screen)


async def _change_settings(query: CallbackQuery, t: Translator, user: UserRow, store: Store,
                           publisher: Publisher, **change: object) -> None:
    before = PlaySettings.from_dict(user.settings)
    settings = replace(before, **change)
    if settings != before:
        await store.set_settings(user.id, settings.to_dict())
        _edit(publisher, query, setup_screen(settings, t))
    await query.answer()


# ---- the /play setup message -----------------------------------------------------------------

async def choose_variant(query: CallbackQuery, callback_data: Setup, t: Translator,
                         user: UserRow, store: Store, publisher: Publisher) -> None:
    await _change_settings(query, t, user, store, publisher, variant=callback_data.value)


async def choose_bots(query: CallbackQuery, callback_data: Setup, t: Translator, user: UserRow,
                      store: Store, publisher: Publisher) -> None:
    await _change_settings(query, t, user, store, publisher, bots=int(callback_data.value))


async def choose_level(query: CallbackQuery, callback_data: Setup, t: Translator, user: UserRow,
                       store: Store, publisher: Publisher) -> None:
    await _change_settings(query, t, user, store, publisher, level=callback_data.value)


async def start_from_setup(query: CallbackQuery, t: Translator, user: UserRow,
                           tables: TableService) -> None:
    await _start_game(query, t, user, tables, edit=True)


# ---- menu buttons ----------------------------------------------------------------------------

async def quick_play(query: CallbackQuery, t: Translator, user: UserRow,
                     tables: TableService) -> None:
    await _start_game(query, t, user, tables, edit=False)


async def open_setup(query: CallbackQuery, t: Translator, user: UserRow) -> None:
    screen = setup_screen(PlaySettings.from_dict(user.settings), t)
    await query.message.answer(screen.text, reply_markup=screen.markup)
    await query.answer()


async def resign(query: CallbackQuery, t: Translator, user: UserRow,
                 tables: TableService) -> None:
    done = await tables.resign(user.id)
    await query.answer(t("quit.done") if done else t("quit.none"))
    await query.message.delete()


async def keep_playing(query: CallbackQuery) -> None:
    await query.answer()
    await query.message.delete()


async def full_rules(query: CallbackQuery, callback_data: Menu, t: Translator) -> None:
    await query.message.answer(t(f"rules.{callback_data.book}.full"))
    await query.answer()


# ---- languages -------------------------------------------------------------------------------

async def choose_language(query: CallbackQuery, callback_data: Lang, store: Store,
                          tables: TableService, publisher: Publisher) -> None:
    code = callback_data.code
    await store.set_language(query.from_user.id, code)
    await tables.change_locale(query.from_user.id, code)
    _edit(publisher, query, Screen(text=translator(code)("lang.set",
                                                      language=LANGUAGE_NAMES[code])))
    await query.answer()


def router() -> Router:
    r = Router(name="menus")
    on = r.callback_query.register
    on(choose_variant, Setup.filter((F.field == SetupField.VARIANT) & F.value.in_(VARIANTS)))
    on(choose_bots, Setup.filter((F.field == SetupField.BOTS) & F.value.in_(BOT_COUNTS)))
    on(choose_level, Setup.filter((F.field == SetupField.LEVEL) & F.value.in_(LEVELS)))
    on(start_from_setup, Setup.filter(F.field == SetupField.START))
    on(quick_play, Menu.filter(F.action.in_({MenuAction.QUICK, MenuAction.AGAIN})))
    on(open_setup, Menu.filter(F.action == MenuAction.SETUP))
    on(resign, Menu.filter(F.action == MenuAction.RESIGN))
    on(keep_playing, Menu.filter(F.action == MenuAction.KEEP))
    on(full_rules, Menu.filter((F.action == MenuAction.RULES) & F.book.is_not(None)))
    on(choose_language, Lang.filter(F.code.in_(LOCALES)))
    return r
