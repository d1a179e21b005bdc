"""Buttons outside the game: setup, quick play, languages, resigning, full rules."""

from __future__ import annotations

from dataclasses import replace

from aiogram import Router
from aiogram.types import CallbackQuery

from tg_durak.callbacks import Lang, Menu, Setup
from tg_durak.i18n import LANGUAGE_NAMES, LOCALES, Translator, translator
from tg_durak.publisher import Publisher, Screen
from tg_durak.render.menus import MAX_BOTS, VARIANTS, setup_screen
from tg_durak.store import Store, UserRow
from tg_durak.tables import LEVELS, PlaySettings, TableService


async def _start_game(query: CallbackQuery, t: Translator, user: UserRow, tables: TableService,
                      settings: PlaySettings, edit: bool) -> None:
    message = (query.message.chat.id, query.message.message_id) if edit else None
    started = await tables.start_private(user.id, query.from_user.first_name, settings, message)
    await query.answer(None if started else t("play.already"), show_alert=not started)


def _edit(publisher: Publisher, query: CallbackQuery, screen: Screen) -> None:
    """Menus change in place, through the publisher like every other edit."""
    chat_id, message_id = query.message.chat.id, query.message.message_id
    publisher.show(("menu", chat_id, message_id), chat_id, message_id, screen)


def router() -> Router:
    r = Router(name="menus")

    @r.callback_query(Setup.filter())
    async def setup(query: CallbackQuery, callback_data: Setup, t: Translator, user: UserRow,
                    store: Store, tables: TableService, publisher: Publisher) -> None:
        before = PlaySettings.from_dict(user.settings)
        field, value = callback_data.field, callback_data.value
        if field == "start":
            await _start_game(query, t, user, tables, before, edit=True)
            return
        if field == "variant" and value in VARIANTS:
            settings = replace(before, variant=value)
        elif field == "bots" and value.isdigit() and 1 <= int(value) <= MAX_BOTS:
            settings = replace(before, bots=int(value))
        elif field == "level" and value in LEVELS:
            settings = replace(before, level=value)
        else:
            await query.answer(t("tap.unknown"), show_alert=True)
            return
        if settings != before:
            await store.set_settings(user.id, settings.to_dict())
            _edit(publisher, query, setup_screen(settings, t))
        await query.answer()

    @r.callback_query(Menu.filter())
    async def menu(query: CallbackQuery, callback_data: Menu, t: Translator, user: UserRow,
                   tables: TableService) -> None:
        action = callback_data.action
        if action in ("quick", "again"):
            await _start_game(query, t, user, tables, PlaySettings.from_dict(user.settings),
                              edit=False)
        elif action == "setup":
            screen = setup_screen(PlaySettings.from_dict(user.settings), t)
            await query.message.answer(screen.text, reply_markup=screen.markup)
            await query.answer()
        elif action == "resign":
            done = await tables.resign(user.id)
            await query.answer(t("quit.done") if done else t("quit.none"))
            await query.message.delete()
        elif action == "keep":
            await query.answer()
            await query.message.delete()
        elif action == "rules" and callback_data.arg in ("throw_in", "transfer"):
            await query.message.answer(t(f"rules.{callback_data.arg}.full"))
            await query.answer()
        else:
            await query.answer(t("tap.unknown"), show_alert=True)

    @r.callback_query(Lang.filter())
    async def lang(query: CallbackQuery, callback_data: Lang, store: Store,
                   tables: TableService, publisher: Publisher) -> None:
        code = callback_data.code
        if code not in LOCALES:
            await query.answer(translator("en")("tap.unknown"), show_alert=True)
            return
        await store.set_language(query.from_user.id, code)
        await tables.change_locale(query.from_user.id, code)
        _edit(publisher, query, Screen(text=translator(code)("lang.set",
                                                          language=LANGUAGE_NAMES[code])))
        await query.answer()

    return r
