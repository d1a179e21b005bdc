"""Commands in a group or supergroup.

Under privacy mode a group sends commands as ``/stats@<bot>``; aiogram's ``Command`` filter
accepts a mention only when it names this bot, so ``/stats@other_bot`` is left to the other bot.
Any group command not handled here falls through to ``commands.group_router``, which points to
the private chat.
"""

from __future__ import annotations

from aiogram import Bot, F, Router
from aiogram.enums import ChatMemberStatus, ChatType
from aiogram.filters import Command, MagicData
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, ChatMemberUpdated, Message, User

from tg_durak.i18n.translate import Translator
from tg_durak.outbox.publisher import Publisher
from tg_durak.play.answers import Answer
from tg_durak.play.rows import UserRow
from tg_durak.render.absent import kick_screen, leave_screen
from tg_durak.render.callbacks import Kick, MenuAction
from tg_durak.render.screen import Screen
from tg_durak.render.standings import leaderboard_screen
from tg_durak.storage import Store
from tg_durak.tables.service import TableService
from tg_durak.telegram.callbacks import KickCallback, MenuCallback, record_of
from tg_durak.telegram.handlers.lobby import chat_admin
from tg_durak.telegram.handlers.menus import drop_question
from tg_durak.telegram.handlers.replies import respond, say, tapped_message

TOP = 10  # lines of a chat's table of players (plus the asker's own, if lower)
# The bot's own status once it is out of a chat.
GONE = frozenset({ChatMemberStatus.LEFT, ChatMemberStatus.KICKED})


# ---- leaving and removing players ----------------------------------------------------------

async def leave(message: Message, t: Translator, user: UserRow, tables: TableService,
                bot: Bot, publisher: Publisher) -> None:
    """/leave in the group: a computer plays the sender's seat to the end (or he leaves the
    lobby)."""
    answer = await tables.absences.leave_game(user.id, message.chat.id)
    await say(publisher, message, answer, t, bot)


async def leave_asked(query: CallbackQuery, t: Translator, publisher: Publisher) -> None:
    """Leave on the game message: asked once more in a message of its own."""
    respond(publisher, tapped_message(query), leave_screen(t))
    await query.answer()


async def leave_confirmed(query: CallbackQuery, t: Translator, user: UserRow,
                          tables: TableService) -> None:
    answer = await tables.absences.leave_game(user.id)
    refused = answer.key if answer.alert else None   # else his game message says it
    await query.answer(t(refused, **answer.params) if refused else None, show_alert=answer.alert)
    await drop_question(query)


def _replied_to(message: Message) -> User | None:
    """Whom the command answers. In a forum topic every message replies to the topic's first
    message unless it replies to another: that implicit reply names nobody."""
    reply = message.reply_to_message
    implicit = message.is_topic_message and reply is not None \
        and reply.message_id == message.message_thread_id
    return None if reply is None or implicit else reply.from_user


async def kick(message: Message, t: Translator, user: UserRow, tables: TableService,
               bot: Bot, publisher: Publisher) -> None:
    """/kick as a reply to a player's message removes him if he is away; alone, it lists the
    players who are away."""
    chat_id = message.chat.id
    admin = chat_admin(bot, chat_id, user.id)
    target = _replied_to(message)
    if target is not None:
        answer = await tables.absences.kick(chat_id, target.id, user.id, admin)
        await say(publisher, message, answer, t, bot)
        return
    choices = await tables.absences.kick_choices(chat_id, user.id, admin)
    if isinstance(choices, Answer):
        await say(publisher, message, choices, t, bot)
        return
    respond(publisher, message, kick_screen(*choices, t))


async def kick_tapped(query: CallbackQuery, callback_data: CallbackData, t: Translator,
                      user: UserRow,
                      tables: TableService, bot: Bot, publisher: Publisher) -> None:
    tapped, kicked = tapped_message(query), record_of(callback_data, Kick)
    chat_id, message_id = tapped.chat.id, tapped.message_id
    answer = await tables.absences.kick(chat_id, kicked.user, user.id,
                                        chat_admin(bot, chat_id, user.id), kicked.table)
    assert answer.key is not None   # a kick says what it did, or why not
    text = t(answer.key, **answer.params)
    if not answer.alert:   # done: the list becomes what happened
        publisher.show(("kick", chat_id, message_id), chat_id, message_id, Screen(text))
    await query.answer(text, show_alert=answer.alert)


# ---- the chat's lifecycle ------------------------------------------------------------------

async def migrated(message: Message, tables: TableService) -> None:
    """The group became a supergroup: its lobby or table moves with it."""
    assert message.migrate_to_chat_id is not None   # the router's filter
    await tables.chats.chat_migrated(message.chat.id, message.migrate_to_chat_id)


async def membership(update: ChatMemberUpdated, tables: TableService) -> None:
    """The bot's own membership: removed from a group, or blocked / unblocked by a person."""
    status = update.new_chat_member.status
    if update.chat.type != ChatType.PRIVATE:
        if status in GONE:
            await tables.chats.bot_removed(update.chat.id)
    elif status == ChatMemberStatus.KICKED:
        await tables.absences.mark_unreachable(update.chat.id)
    elif status == ChatMemberStatus.MEMBER:
        await tables.absences.mark_reachable(update.chat.id)


def router() -> Router:
    r = Router(name="group_games")
    r.message.filter(MagicData(F.event.chat.type.in_({ChatType.GROUP, ChatType.SUPERGROUP})))

    @r.message(Command("stats", "top"))
    async def standings(message: Message, t: Translator, user: UserRow, store: Store,
                        publisher: Publisher) -> None:
        rows = await store.results.leaderboard(message.chat.id, user.id, top=TOP)
        respond(publisher, message, leaderboard_screen(rows, user.id, t).text)

    r.message.register(leave, Command("leave"))
    r.message.register(kick, Command("kick"))
    r.message.register(migrated, MagicData(F.event.migrate_to_chat_id))
    r.my_chat_member.register(membership)
    r.callback_query.register(kick_tapped, KickCallback.filter())
    # As every MenuCallback button.
    private = MagicData(F.event.message.chat.type == ChatType.PRIVATE)
    r.callback_query.register(leave_asked, private,
                              MenuCallback.filter(F.action == MenuAction.LEAVE))
    r.callback_query.register(leave_confirmed, private,
                              MenuCallback.filter(F.action == MenuAction.LEAVE_SURE))
    return r
