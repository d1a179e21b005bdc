"""Slash commands in a private chat."""

from __future__ import annotations

import re

from aiogram import Bot, F, Router
from aiogram.filters import Command, CommandObject, CommandStart, MagicData
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup, Message

from tg_durak.i18n.translate import Translator
from tg_durak.outbox.publisher import Publisher, Screen
from tg_durak.play.options import PlaySettings
from tg_durak.play.records import UserRow
from tg_durak.render.menus import (
    lang_screen,
    play_buttons,
    quit_screen,
    rules_screen,
    setup_screen,
    start_screen,
)
from tg_durak.render.standings import record_screen
from tg_durak.storage import Store
from tg_durak.tables.service import TableService
from tg_durak.telegram.handlers.lobby import say
from tg_durak.telegram.handlers.replies import respond

GROUP_PAYLOAD = "group"


def group_router() -> Router:
    """Games are played in private chats; a command in a group points there."""
    r = Router(name="group")
    # Any command for us (no mention, or ours); `/cmd@other_bot` is the other bot's business.
    r.message.filter(MagicData(F.event.chat.type.in_({"group", "supergroup"})),
                     Command(re.compile(".+")))

    @r.message()
    async def in_group(message: Message, t: Translator, bot: Bot, publisher: Publisher) -> None:
        me = await bot.me()
        button = InlineKeyboardButton(text=t("btn.open_private"),
                                      url=f"https://t.me/{me.username}?start={GROUP_PAYLOAD}")
        respond(publisher, message, Screen(t("group.private_only"),
                                          InlineKeyboardMarkup(inline_keyboard=[[button]])))

    return r


def router() -> Router:
    r = Router(name="commands")
    r.message.filter(MagicData(F.event.chat.type == "private"))   # no thread: see menus.py

    # A lobby's Join link: "/start <invite>"; the group's "Open the bot" link says "group".
    @r.message(CommandStart(deep_link=True, magic=F.args != GROUP_PAYLOAD))
    async def start_invited(message: Message, command: CommandObject, t: Translator,
                            tables: TableService, publisher: Publisher) -> None:
        user = message.from_user
        joined = await tables.join_by_invite(command.args, user.id, user.full_name)
        say(publisher, message, joined, t)

    @r.message(CommandStart())
    async def start(message: Message, t: Translator, publisher: Publisher) -> None:
        respond(publisher, message, start_screen(message.from_user.first_name, t))

    @r.message(Command("help"))
    async def help_(message: Message, t: Translator, publisher: Publisher) -> None:
        respond(publisher, message, Screen(t("help.text"), play_buttons(t)))

    @r.message(Command("rules"))
    async def rules(message: Message, t: Translator, publisher: Publisher) -> None:
        respond(publisher, message, rules_screen(t))

    @r.message(Command("play"))
    async def play(message: Message, t: Translator, user: UserRow, tables: TableService,
                   publisher: Publisher) -> None:
        if tables.running_table_of(user.id) is not None:
            respond(publisher, message, t("play.already"))
            return
        respond(publisher, message, setup_screen(PlaySettings.from_dict(user.settings), t))

    @r.message(Command("quit"))
    async def quit_(message: Message, t: Translator, user: UserRow, tables: TableService,
                    publisher: Publisher) -> None:
        if tables.running_table_of(user.id) is None:
            respond(publisher, message, t("quit.none"))
            return
        respond(publisher, message, quit_screen(t))

    @r.message(Command("stats"))
    async def stats(message: Message, t: Translator, user: UserRow, store: Store,
                    publisher: Publisher) -> None:
        respond(publisher, message, record_screen(await store.results.player_record(user.id), t))

    @r.message(Command("lang"))
    async def lang(message: Message, t: Translator, locale: str, publisher: Publisher) -> None:
        respond(publisher, message, lang_screen(locale, t))

    @r.message()
    async def anything_else(message: Message, t: Translator, publisher: Publisher) -> None:
        respond(publisher, message, t("unknown.command"))

    return r
