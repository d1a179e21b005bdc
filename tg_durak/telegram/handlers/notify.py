"""/notify in a group (and its lobby's 🔔): a private message when the next lobby opens there;
`/notify off` (or the button under that message) ends it. Only for people the bot may write to:
anyone else is shown the way to the private chat first."""

from __future__ import annotations

from aiogram import Bot, F, Router
from aiogram.enums import ChatType
from aiogram.filters import Command, CommandObject, MagicData
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, Chat, Message

from tg_durak.i18n.translate import Translator
from tg_durak.outbox.publisher import Publisher
from tg_durak.play.answers import Answer, refused
from tg_durak.play.rows import UserRow
from tg_durak.render.quick_taps import NotifyTap, NotifyVerb
from tg_durak.storage import Store
from tg_durak.telegram.callbacks import factory, record_of
from tg_durak.telegram.handlers.commands import GROUP_PAYLOAD
from tg_durak.telegram.handlers.replies import answer_query, say, tapped_message

NotifyTapCallback = factory(NotifyTap)
GROUPS = frozenset({ChatType.GROUP, ChatType.SUPERGROUP})
OFF = "off"


async def _switch(store: Store, chat: Chat, user: UserRow, on: bool) -> Answer:
    if not on:
        stopped = await store.quick.unsubscribe(chat.id, user.id)
        return Answer("notify.off" if stopped else "notify.was_off")
    if not user.reachable:   # he never opened the bot, or blocked it
        return Answer("notify.open_bot", start=GROUP_PAYLOAD)
    started = await store.quick.subscribe(chat.id, user.id, chat.title or "")
    return Answer("notify.on" if started else "notify.was_on")


async def notify(message: Message, command: CommandObject, t: Translator, bot: Bot,
                 user: UserRow, store: Store, publisher: Publisher) -> None:
    args = (command.args or "").strip().lower()
    if args not in ("", OFF):
        await say(publisher, message, Answer("notify.usage"), t, bot)
        return
    await say(publisher, message, await _switch(store, message.chat, user, args != OFF), t, bot)


async def bell(query: CallbackQuery, t: Translator, bot: Bot, user: UserRow,
               store: Store) -> None:
    """The lobby's 🔔: as /notify, answered to the tapper alone."""
    answer = await _switch(store, tapped_message(query).chat, user, on=True)
    if answer.start is not None:   # the way to the private chat is the link itself
        await answer_query(query, answer, t, bot)
        return
    await answer_query(query, Answer(answer.key, alert=True), t, bot)


async def stop_telling(query: CallbackQuery, callback_data: CallbackData, t: Translator,
                       bot: Bot, user: UserRow, store: Store) -> None:
    """"No more" under a lobby's notice in the private chat: for the group it names."""
    chat = record_of(callback_data, NotifyTap).chat
    if chat >= 0:   # no group's id
        await answer_query(query, refused("tap.unknown"), t, bot)
        return
    stopped = await store.quick.unsubscribe(chat, user.id)
    await answer_query(query, Answer("notify.off" if stopped else "notify.was_off"), t, bot)


def router() -> Router:
    r = Router(name="notify")
    in_group = MagicData(F.event.chat.type.in_(GROUPS))
    r.message.register(notify, in_group, Command("notify"))
    r.callback_query.register(
        bell, MagicData(F.event.message.chat.type.in_(GROUPS)),
        NotifyTapCallback.filter(F.verb == NotifyVerb.ON))
    r.callback_query.register(
        stop_telling, MagicData(F.event.message.chat.type == ChatType.PRIVATE),
        NotifyTapCallback.filter(F.verb == NotifyVerb.OFF))
    return r
