"""Buttons outside the game: setup, quick play, languages, resigning, full rules.

One handler per button. The filters take only the values a button can carry; anything else falls
through to the game router's "unknown button". So does any of these buttons pressed on a group's
message: they are only ever sent privately, and a forged one must not turn the group's table into
somebody's menu.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from aiogram import F, Router
from aiogram.enums import ChatType
from aiogram.exceptions import TelegramBadRequest
from aiogram.filters import MagicData
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, Message

from tg_durak.i18n.translate import LANGUAGE_NAMES, LOCALES, Translator, translator
from tg_durak.outbox.publisher import Publisher
from tg_durak.play.options import LEVELS, MAX_OPPONENTS, PlaySettings, decode
from tg_durak.play.rows import UserRow
from tg_durak.render.callbacks import Lang, Menu, MenuAction, Setup, SetupField, SetupOption
from tg_durak.render.menus import options_screen, setup_screen
from tg_durak.render.options import MAIN_OPTIONS
from tg_durak.render.screen import Screen
from tg_durak.storage import Store
from tg_durak.tables.service import TableService
from tg_durak.telegram.callbacks import (
    LangCallback,
    MenuCallback,
    SetupCallback,
    SetupOptionCallback,
    record_of,
)
from tg_durak.telegram.handlers.replies import respond, show_menu, tapped_message
from tg_durak.telegram.last_menus import LastMenus, Redraw

BOT_COUNTS = tuple(str(n) for n in range(1, MAX_OPPONENTS + 1))
SettingsScreen = Callable[[PlaySettings, Translator], Screen]


async def _start_game(query: CallbackQuery, t: Translator, user: UserRow, tables: TableService,
                      edit: bool) -> None:
    settings = PlaySettings.from_dict(user.settings)
    tapped = tapped_message(query)
    message = (tapped.chat.id, tapped.message_id) if edit else None
    started = await tables.start_private(user.id, query.from_user.first_name, settings, message)
    await query.answer(None if started else t("play.already"), show_alert=not started)


def _edit(publisher: Publisher, menus: LastMenus, query: CallbackQuery, redraw: Redraw,
          t: Translator) -> None:
    """Menus change in place, through the publisher like every other edit; the person's last
    menu is drawn the new way after a change of language."""
    tapped = tapped_message(query)
    chat_id, message_id = tapped.chat.id, tapped.message_id
    publisher.show(("menu", chat_id, message_id), chat_id, message_id, redraw(t))
    menus.changed(query.from_user.id, chat_id, message_id, redraw)


async def drop_question(query: CallbackQuery) -> None:
    """The question a tap answered leaves the chat; after a double tap it is gone already.
    One too old for the bot to see any more is too old for it to delete."""
    question = tapped_message(query)
    if isinstance(question, Message):
        with contextlib.suppress(TelegramBadRequest):
            await question.delete()


async def _save(query: CallbackQuery, t: Translator, user: UserRow, store: Store,
                publisher: Publisher, menus: LastMenus, settings: PlaySettings,
                screen: SettingsScreen, gave_way: bool) -> None:
    """Remember the new settings and redraw; say so when the deck and the opponents clashed."""
    if settings != PlaySettings.from_dict(user.settings):
        await store.users.set_settings(user.id, settings.to_dict())
        _edit(publisher, menus, query, lambda t: screen(settings, t), t)
    await query.answer(t("setup.small_deck") if gave_way else None)


# ---- the /play setup message -----------------------------------------------------------------

async def choose_option(query: CallbackQuery, callback_data: CallbackData, t: Translator,
                        user: UserRow, store: Store, publisher: Publisher,
                        menus: LastMenus) -> None:
    option = record_of(callback_data, SetupOption)
    before = PlaySettings.from_dict(user.settings)
    after = before.with_option(option.field, option.value)
    if after is None:   # a value the field takes, but not now: show-trump in the throw-in game
        await query.answer(t("tap.unknown"), show_alert=True)
        return
    screen = setup_screen if option.field in MAIN_OPTIONS else options_screen
    await _save(query, t, user, store, publisher, menus, after, screen,
                after.bots != before.bots)


async def choose_bots(query: CallbackQuery, callback_data: CallbackData, t: Translator,
                      user: UserRow,
                      store: Store, publisher: Publisher, menus: LastMenus) -> None:
    before = PlaySettings.from_dict(user.settings)
    after = before.with_bots(int(record_of(callback_data, Setup).value))
    await _save(query, t, user, store, publisher, menus, after, setup_screen,
                after.options != before.options)


async def choose_level(query: CallbackQuery, callback_data: CallbackData, t: Translator,
                       user: UserRow,
                       store: Store, publisher: Publisher, menus: LastMenus) -> None:
    level = record_of(callback_data, Setup).value
    after = PlaySettings.from_dict(user.settings).with_level(level)
    await _save(query, t, user, store, publisher, menus, after, setup_screen, False)


async def more_options(query: CallbackQuery, t: Translator, user: UserRow,
                       publisher: Publisher, menus: LastMenus) -> None:
    settings = PlaySettings.from_dict(user.settings)
    _edit(publisher, menus, query, lambda t: options_screen(settings, t), t)
    await query.answer()


async def back_to_setup(query: CallbackQuery, t: Translator, user: UserRow,
                        publisher: Publisher, menus: LastMenus) -> None:
    settings = PlaySettings.from_dict(user.settings)
    _edit(publisher, menus, query, lambda t: setup_screen(settings, t), t)
    await query.answer()


async def start_from_setup(query: CallbackQuery, t: Translator, user: UserRow,
                           tables: TableService) -> None:
    await _start_game(query, t, user, tables, edit=True)


# ---- menu buttons ----------------------------------------------------------------------------

async def quick_play(query: CallbackQuery, t: Translator, user: UserRow,
                     tables: TableService) -> None:
    await _start_game(query, t, user, tables, edit=False)


async def open_setup(query: CallbackQuery, t: Translator, user: UserRow,
                     publisher: Publisher, menus: LastMenus) -> None:
    """⚙ Settings: the table's options, as a setup message of its own (Back leads to the rest)."""
    settings = PlaySettings.from_dict(user.settings)
    show_menu(publisher, menus, tapped_message(query), user.id,
              lambda t: options_screen(settings, t), t)
    await query.answer()


async def resign(query: CallbackQuery, t: Translator, user: UserRow,
                 tables: TableService) -> None:
    done = await tables.absences.resign(user.id)
    await query.answer(t("quit.done") if done else t("quit.none"))
    await drop_question(query)


async def keep_playing(query: CallbackQuery) -> None:
    await query.answer()
    await drop_question(query)


async def full_rules(query: CallbackQuery, callback_data: CallbackData, t: Translator,
                     publisher: Publisher) -> None:
    book = record_of(callback_data, Menu).book
    respond(publisher, tapped_message(query), t(f"rules.{book}.full"))
    await query.answer()


# ---- languages -------------------------------------------------------------------------------

async def choose_language(query: CallbackQuery, callback_data: CallbackData, store: Store,
                          tables: TableService, publisher: Publisher, menus: LastMenus) -> None:
    """His game message and his last menu follow the new language at once."""
    code = record_of(callback_data, Lang).code
    user_id, t = query.from_user.id, translator(code)
    await store.users.set_language(user_id, code)
    await tables.change_locale(user_id)
    tapped = tapped_message(query)
    chat_id, message_id = tapped.chat.id, tapped.message_id
    publisher.show(("menu", chat_id, message_id), chat_id, message_id,
                   Screen(t("lang.set", language=LANGUAGE_NAMES[code])))
    menus.redraw(user_id, t, publisher)
    await query.answer()


def router() -> Router:
    r = Router(name="menus")
    # MagicData, not a bare F: aiogram runs a plain magic filter in a thread, and this one
    # sees every tap on the way to the game's router.
    r.callback_query.filter(MagicData(F.event.message.chat.type == ChatType.PRIVATE))
    on = r.callback_query.register
    on(choose_option,
       SetupOptionCallback.filter(F.func(lambda d: decode(d.field, d.value) is not None)))
    on(choose_bots, SetupCallback.filter((F.field == SetupField.BOTS) & F.value.in_(BOT_COUNTS)))
    on(choose_level, SetupCallback.filter((F.field == SetupField.LEVEL) & F.value.in_(LEVELS)))
    on(more_options, SetupCallback.filter(F.field == SetupField.MORE))
    on(back_to_setup, SetupCallback.filter(F.field == SetupField.BACK))
    on(start_from_setup, SetupCallback.filter(F.field == SetupField.START))
    on(quick_play, MenuCallback.filter(F.action.in_({MenuAction.QUICK, MenuAction.AGAIN})))
    on(open_setup, MenuCallback.filter(F.action == MenuAction.SETUP))
    on(resign, MenuCallback.filter(F.action == MenuAction.RESIGN))
    on(keep_playing, MenuCallback.filter(F.action == MenuAction.KEEP))
    on(full_rules, MenuCallback.filter((F.action == MenuAction.RULES) & F.book.is_not(None)))
    on(choose_language, LangCallback.filter(F.code.in_(LOCALES)))
    return r
