"""A handler's answer in the chat: a one-off message through the publisher, in the same budgets as
every other send and edit, so a flood of commands waits its turn instead of failing with a 429.
(Answers to a button, answerCallbackQuery, are not limited and stay direct.)"""

from __future__ import annotations

from aiogram.types import InaccessibleMessage, Message

from tg_durak.outbox.publisher import Publisher
from tg_durak.render.screen import Screen


def respond(publisher: Publisher, message: Message | InaccessibleMessage, screen: Screen | str,
           reply_to: int | None = None) -> None:
    """Send ``screen`` (or a plain text) into the message's chat, its forum topic kept."""
    if isinstance(screen, str):
        screen = Screen(screen)
    topic = message.message_thread_id if getattr(message, "is_topic_message", False) else None
    publisher.send(message.chat.id, screen, reply_to=reply_to, thread_id=topic)
