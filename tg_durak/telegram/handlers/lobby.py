"""A group's lobby: /new, the lobby's buttons and Rematch. Thin: parse, ask, answer.

Settings, Start and Cancel belong to the host or a chat administrator; whether the tapper
administers the chat is asked of Telegram (getChatMember) only when he is not the host. A lobby's
button counts only in the lobby's own chat: pressed elsewhere it is forged and answered as an
unknown button (by the game router's fallback).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiogram import Bot, F, Router
from aiogram.enums import ChatMemberStatus, ChatType
from aiogram.exceptions import TelegramBadRequest
from aiogram.filters import Command, MagicData
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, Message

from tg_durak.i18n.translate import Translator
from tg_durak.outbox.publisher import Publisher
from tg_durak.play.inline import inline_chat
from tg_durak.play.options import decode
from tg_durak.play.rows import UserRow
from tg_durak.render.callbacks import LobbyOption, LobbyTap, LobbyVerb
from tg_durak.tables.lobbies import Admin
from tg_durak.tables.service import TableService
from tg_durak.telegram.callbacks import LobbyOptionCallback, LobbyTapCallback, record_of
from tg_durak.telegram.handlers.replies import answer_query, respond, say

ADMINS = frozenset({ChatMemberStatus.CREATOR, ChatMemberStatus.ADMINISTRATOR})


def chat_admin(bot: Bot, chat_id: int, user_id: int) -> Admin:
    """Asks Telegram, when called, whether the user administers the chat."""
    async def administers() -> bool:
        try:
            member = await bot.get_chat_member(chat_id, user_id)
        except TelegramBadRequest:
            return False
        return member.status in ADMINS
    return administers


def in_its_chat(record: type[LobbyTap | LobbyOption]
                ) -> Callable[[CallbackQuery, CallbackData, TableService], Awaitable[bool]]:
    """Filter of `record`'s buttons: the button names a table of the chat it was pressed in."""
    async def of_this_chat(query: CallbackQuery, callback_data: CallbackData,
                           tables: TableService) -> bool:
        return await tables.lobbies.in_its_chat(record_of(callback_data, record).table,
                                                tapped_chat(query))
    return of_this_chat


def tapped_chat(query: CallbackQuery) -> int | None:
    """The chat a tap was made in: its message's, or for a message sent via the bot (inline
    mode, no message) the key of its chat_instance (play/inline.py)."""
    if query.message is not None:
        return query.message.chat.id
    return None if query.inline_message_id is None else inline_chat(query.chat_instance)


async def _nobody() -> bool:
    return False


def _admin(query: CallbackQuery, bot: Bot) -> Admin:
    """Whether the tapper administers the chat: in a chat the bot is not in (inline mode) it
    cannot ask, and the host alone manages the table."""
    if query.message is None:
        return _nobody
    return chat_admin(bot, query.message.chat.id, query.from_user.id)


async def new(message: Message, t: Translator, user: UserRow, tables: TableService,
              bot: Bot, publisher: Publisher) -> None:
    assert message.from_user is not None   # else no `user`
    thread = message.message_thread_id if message.is_topic_message else None
    answer = await tables.lobbies.open(message.chat.id, user, message.from_user.full_name, thread)
    await say(publisher, message, answer, t, bot)


async def help_(message: Message, t: Translator, publisher: Publisher) -> None:
    respond(publisher, message, t("group.help"))


async def lobby_tap(query: CallbackQuery, callback_data: CallbackData, t: Translator,
                    user: UserRow, tables: TableService, bot: Bot) -> None:
    tap = record_of(callback_data, LobbyTap)
    table, verb, value = tap.table, tap.verb, tap.value
    name = query.from_user.full_name
    admin = _admin(query, bot)
    match verb:
        case LobbyVerb.JOIN:
            answer = await tables.lobbies.join(table, user, name)
        case LobbyVerb.LEAVE:
            answer = await tables.lobbies.leave(table, user.id)
        case LobbyVerb.COMPUTER:
            answer = await tables.lobbies.add_computer(table, value)
        case LobbyVerb.SETTINGS | LobbyVerb.BACK:
            answer = await tables.lobbies.show_settings(table, user.id, admin,
                                                 verb == LobbyVerb.SETTINGS)
        case LobbyVerb.SEATS:
            answer = await tables.lobbies.set_seats(table, user.id, admin, value)
        case LobbyVerb.START:
            answer = await tables.lobbies.start(table, user.id, admin)
        case LobbyVerb.CANCEL:
            answer = await tables.lobbies.cancel(table, user.id, admin)
        case LobbyVerb.REMATCH:
            answer = await tables.lobbies.rematch(table, user, name)
    await answer_query(query, answer, t, bot)


async def lobby_option(query: CallbackQuery, callback_data: CallbackData, t: Translator,
                       user: UserRow, tables: TableService, bot: Bot) -> None:
    option = record_of(callback_data, LobbyOption)
    answer = await tables.lobbies.set_option(option.table, user.id, _admin(query, bot),
                                             option.field, option.value)
    await answer_query(query, answer, t, bot)


def router() -> Router:
    r = Router(name="lobby")
    in_group = MagicData(F.event.chat.type.in_({ChatType.GROUP, ChatType.SUPERGROUP}))
    r.message.register(new, in_group, Command("new"))
    r.message.register(help_, in_group, Command("help"))
    r.callback_query.register(lobby_tap, LobbyTapCallback.filter(), in_its_chat(LobbyTap))
    r.callback_query.register(lobby_option, LobbyOptionCallback.filter(
        F.func(lambda d: decode(d.field, d.value) is not None)), in_its_chat(LobbyOption))
    return r
