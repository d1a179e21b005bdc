"""Slash commands in a private chat."""

from __future__ import annotations

import re

from aiogram import Bot, F, Router
from aiogram.enums import ChatType
from aiogram.filters import Command, CommandObject, CommandStart, MagicData
from aiogram.types import Message

from tg_durak.i18n.translate import Translator
from tg_durak.outbox.publisher import Publisher
from tg_durak.play.inline import SETUP_PAYLOAD
from tg_durak.play.options import PlaySettings
from tg_durak.play.rows import UserRow
from tg_durak.render.menus import (
    group_only_screen,
    help_screen,
    lang_screen,
    private_only_screen,
    quit_screen,
    rules_screen,
    setup_screen,
    start_screen,
)
from tg_durak.render.standings import record_screen
from tg_durak.storage import Store
from tg_durak.tables.service import TableService
from tg_durak.telegram.handlers.replies import respond, say, show_menu, username
from tg_durak.telegram.last_menus import LastMenus

GROUP_PAYLOAD = "group"
GROUP_ONLY = ("new", "leave", "kick")   # commands of a group's table (/top: handlers/quick.py)


async def in_group(message: Message, t: Translator, bot: Bot, publisher: Publisher) -> None:
    """A private chat's command in a group: games against computers are played privately."""
    respond(publisher, message, private_only_screen(await username(bot), GROUP_PAYLOAD, t))


def group_router() -> Router:
    """Games are played in private chats; a command in a group points there."""
    r = Router(name="group")
    # Any command for us (no mention, or ours); `/cmd@other_bot` is the other bot's business.
    r.message.filter(MagicData(F.event.chat.type.in_({ChatType.GROUP, ChatType.SUPERGROUP})),
                     Command(re.compile(".+")))
    r.message.register(in_group)
    return r


async def start_invited(message: Message, command: CommandObject, t: Translator, bot: Bot,
                        tables: TableService, publisher: Publisher) -> None:
    """A lobby's Join link: "/start <invite>"."""
    user, invite = message.from_user, command.args
    assert user is not None and invite is not None   # a person's /start with a payload
    joined = await tables.lobbies.join_by_invite(invite, user.id, user.full_name)
    await say(publisher, message, joined, t, bot)


async def start(message: Message, t: Translator, user: UserRow, publisher: Publisher,
                menus: LastMenus) -> None:
    assert message.from_user is not None   # else no `user`
    name = message.from_user.first_name
    show_menu(publisher, menus, message, user.id, lambda t: start_screen(name, t), t)


async def help_(message: Message, t: Translator, user: UserRow, publisher: Publisher,
                menus: LastMenus) -> None:
    show_menu(publisher, menus, message, user.id, help_screen, t)


async def rules(message: Message, t: Translator, user: UserRow, publisher: Publisher,
                menus: LastMenus) -> None:
    show_menu(publisher, menus, message, user.id, rules_screen, t)


async def play(message: Message, t: Translator, user: UserRow, tables: TableService,
               publisher: Publisher, menus: LastMenus) -> None:
    if await tables.running_table_of(user.id) is not None:
        respond(publisher, message, t("play.already"))
        return
    settings = PlaySettings.from_dict(user.settings)
    show_menu(publisher, menus, message, user.id, lambda t: setup_screen(settings, t), t)


async def quit_(message: Message, t: Translator, user: UserRow, tables: TableService,
                publisher: Publisher, menus: LastMenus) -> None:
    if await tables.running_table_of(user.id) is None:
        respond(publisher, message, t("quit.none"))
        return
    show_menu(publisher, menus, message, user.id, quit_screen, t)


async def stats(message: Message, t: Translator, user: UserRow, store: Store,
                publisher: Publisher, menus: LastMenus) -> None:
    record = await store.results.player_record(user.id)
    show_menu(publisher, menus, message, user.id, lambda t: record_screen(record, t), t)


async def lang(message: Message, t: Translator, locale: str, publisher: Publisher) -> None:
    respond(publisher, message, lang_screen(locale, t))


async def group_only(message: Message, command: CommandObject, t: Translator, bot: Bot,
                     publisher: Publisher) -> None:
    """A group's command in the private chat: it works in a group, one tap away."""
    respond(publisher, message, group_only_screen(command.command, await username(bot), t))


async def anything_else(message: Message, t: Translator, publisher: Publisher) -> None:
    respond(publisher, message, t("unknown.command"))


def router() -> Router:
    r = Router(name="commands")
    r.message.filter(MagicData(F.event.chat.type == ChatType.PRIVATE))   # no thread: see menus.py
    on = r.message.register
    # The group's "Open the bot" link says "group"; anything else after /start is an invite.
    # Inline mode's "More options" and the record card's Play: the setup (play/inline.py).
    on(play, CommandStart(deep_link=True, magic=F.args == SETUP_PAYLOAD))
    on(start_invited, CommandStart(deep_link=True, magic=F.args != GROUP_PAYLOAD))
    on(start, CommandStart())
    on(help_, Command("help"))
    on(rules, Command("rules"))
    on(play, Command("play"))
    on(quit_, Command("quit"))
    on(stats, Command("stats"))
    on(lang, Command("lang"))
    on(group_only, Command(*GROUP_ONLY))
    on(anything_else)
    return r
