"""A handler's answer: in the chat, a one-off message through the publisher, in the same budgets
as every other send and edit, so a flood of commands waits its turn instead of failing with a
429; to a button, answerCallbackQuery (not limited, so it stays direct)."""

from __future__ import annotations

from aiogram import Bot
from aiogram.types import CallbackQuery, InaccessibleMessage, Message

from tg_durak.i18n.translate import Translator
from tg_durak.outbox.publisher import Publisher
from tg_durak.play.answers import Answer
from tg_durak.render.buttons import open_bot
from tg_durak.render.screen import Screen
from tg_durak.telegram.last_menus import LastMenus, Redraw


def tapped_message(query: CallbackQuery) -> Message | InaccessibleMessage:
    """The message whose button was tapped. Every tap the routers take has one: the bot sends
    no inline-mode messages, whose buttons' taps come without."""
    assert query.message is not None
    return query.message


async def username(bot: Bot) -> str:
    """The bot's @username: every bot has one (aiogram's User leaves it optional)."""
    me = await bot.me()
    assert me.username is not None
    return me.username


def _topic(message: Message | InaccessibleMessage) -> int | None:
    return message.message_thread_id \
        if isinstance(message, Message) and message.is_topic_message else None


def respond(publisher: Publisher, message: Message | InaccessibleMessage, screen: Screen | str,
           reply_to: int | None = None) -> None:
    """Send ``screen`` (or a plain text) into the message's chat, its forum topic kept."""
    if isinstance(screen, str):
        screen = Screen(screen)
    publisher.send(message.chat.id, screen, reply_to=reply_to, thread_id=_topic(message))


def show_menu(publisher: Publisher, menus: LastMenus, message: Message | InaccessibleMessage,
              user_id: int, redraw: Redraw, t: Translator) -> None:
    """A menu in the chat, drawn by `redraw` and remembered as the person's last: choosing
    another language draws it again."""
    chat_id = message.chat.id
    publisher.send(chat_id, redraw(t), thread_id=_topic(message),
                   sent=menus.sent(user_id, chat_id, redraw))


async def say(publisher: Publisher, message: Message, answer: Answer, t: Translator,
              bot: Bot) -> None:
    """A command's answer in the chat, as a reply to the message it points to, if any; with a
    button that opens the private chat when the answer carries a start payload."""
    if answer.key is None:
        return
    keyboard = None
    if answer.start is not None:
        keyboard = [[open_bot(t("btn.open_private"), await username(bot), answer.start)]]
    respond(publisher, message, Screen(t(answer.key, **answer.params), keyboard),
            reply_to=answer.reply_to)


async def answer_query(query: CallbackQuery, answer: Answer, t: Translator, bot: Bot) -> None:
    """A tap's answer: its text as a toast or an alert, or the private chat opened with a
    start payload (a lobby's Join for someone the bot cannot write to yet)."""
    if answer.start is not None:
        me = await bot.me()
        await query.answer(url=f"https://t.me/{me.username}?start={answer.start}")
        return
    text = t(answer.key, **answer.params) if answer.key else None
    await query.answer(text, show_alert=answer.alert)
