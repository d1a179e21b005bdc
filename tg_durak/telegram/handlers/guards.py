"""Messages too long to be meant for the bot, refused before any handler reads them.

Every command is short: its name is at most 32 characters (Telegram's own limit), and the only
argument any command reads is a start link's payload, at most 64. Anything longer gets one short
answer and reaches no store, table or screen; in a group, a long message that is no command is
none of the bot's business and gets none.
"""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.enums import ChatType
from aiogram.types import Message

from tg_durak.i18n.translate import Translator
from tg_durak.outbox.publisher import Publisher
from tg_durak.telegram.handlers.replies import respond

MAX_COMMAND = 1 + 32   # the slash and the name
MAX_ARGUMENTS = 64
MAX_TEXT = 1024        # plain text in a private chat: the bot reads none of it


async def too_long(message: Message) -> bool:
    """Filter (a coroutine: aiogram runs a plain function in a thread, for every message)."""
    text = message.text
    if text is None:
        return False
    if not text.startswith("/"):
        return len(text) > MAX_TEXT
    command, _, arguments = text.partition(" ")
    command = command.split("@", 1)[0]
    return len(command) > MAX_COMMAND or len(arguments.strip()) > MAX_ARGUMENTS


async def _for_us(text: str, bot: Bot) -> bool:
    """A group command addressed to no bot or to this one (`/cmd@other_bot` is not ours)."""
    first = text.split(maxsplit=1)[0]
    _, at, mention = first.partition("@")
    return not at or mention.lower() == ((await bot.me()).username or "").lower()


async def refuse(message: Message, t: Translator, bot: Bot, publisher: Publisher) -> None:
    text = message.text
    assert text is not None   # too_long took only a text
    if message.chat.type != ChatType.PRIVATE and not (
            text.startswith("/") and await _for_us(text, bot)):
        return
    respond(publisher, message, t("input.too_long"))


def router() -> Router:
    r = Router(name="guards")
    r.message.register(refuse, too_long)
    return r
