"""aiogram's models of the Bot API's answers, kept alive for the bot's lifetime.

aiogram parses every answer with ``Response[<what the method returns>]``, a pydantic generic
model that pydantic caches only weakly: once the garbage collector takes the last reference, the
next request builds the model (its whole validation schema) again, a millisecond or more of CPU.
Under load that happens after nearly every request, so the models of the methods the bot calls
all the time are made once here and held.
"""

from __future__ import annotations

from aiogram.methods import (
    AnswerCallbackQuery,
    DeleteMessage,
    EditMessageReplyMarkup,
    EditMessageText,
    GetChatMember,
    GetUpdates,
    SendMessage,
)
from aiogram.methods.base import Response

FREQUENT = (AnswerCallbackQuery, EditMessageText, EditMessageReplyMarkup, SendMessage,
            GetUpdates, DeleteMessage, GetChatMember)
_held: list[type] = []


def hold_response_models() -> None:
    """Build (once) and hold the answer models of the frequent methods."""
    if not _held:
        _held.extend(Response[method.__returning__]  # type: ignore[name-defined]  # made at run time
                     for method in FREQUENT)
