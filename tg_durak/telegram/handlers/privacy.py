"""/privacy and /forgetme in a private chat.

/forgetme asks first; its two answers carry the asker, the time they were drawn and the bot's
signature of both (an HMAC with the bot's token), so that only the asker's own fresh question
erases anything: a forged button, another person's, or one older than `ANSWER_SECONDS` is
answered as stale and changes nothing.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time

from aiogram import Bot, F, Router
from aiogram.enums import ChatType
from aiogram.filters import Command, MagicData
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, Message

from tg_durak.i18n.translate import Translator
from tg_durak.outbox.publisher import Publisher
from tg_durak.render.privacy import Forget, ForgetVerb, forget_question, privacy_screen
from tg_durak.render.screen import Screen
from tg_durak.tables.service import TableService
from tg_durak.telegram.callbacks import factory, record_of
from tg_durak.telegram.handlers.replies import respond, tapped_message

ForgetCallback = factory(Forget)
ANSWER_SECONDS = 600   # how long /forgetme's question may be answered
_SIGN_CHARS = 16       # of the HMAC, base64url: 96 bits


def signature(token: str, verb: ForgetVerb, user_id: int, at: int) -> str:
    digest = hmac.new(token.encode(), f"forget:{verb}:{user_id}:{at}".encode(),
                      hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode()[:_SIGN_CHARS]


def answers(token: str, user_id: int, at: int) -> dict[ForgetVerb, Forget]:
    """The question's two answers, signed for `user_id` at `at`."""
    return {verb: Forget(verb=verb, user=user_id, at=at,
                         sign=signature(token, verb, user_id, at)) for verb in ForgetVerb}


def is_fresh(answer: Forget, token: str, user_id: int, now: float) -> bool:
    """The tapper's own question, signed by this bot, drawn within ANSWER_SECONDS."""
    signed = signature(token, answer.verb, answer.user, answer.at)
    return (hmac.compare_digest(signed, answer.sign) and answer.user == user_id
            and 0 <= now - answer.at <= ANSWER_SECONDS)


async def show_privacy(message: Message, t: Translator, publisher: Publisher,
                       keep_days: int | None = None) -> None:
    respond(publisher, message, privacy_screen(keep_days, t))


async def ask(message: Message, t: Translator, bot: Bot, publisher: Publisher) -> None:
    assert message.from_user is not None   # a person's command
    at = int(time.time())
    respond(publisher, message, forget_question(answers(bot.token, message.from_user.id, at), t))


async def answered(query: CallbackQuery, callback_data: CallbackData, t: Translator, bot: Bot,
                   tables: TableService, publisher: Publisher) -> None:
    answer = record_of(callback_data, Forget)
    if not is_fresh(answer, bot.token, query.from_user.id, time.time()):
        await query.answer(t("forget.stale"), show_alert=True)
        return
    if answer.verb == ForgetVerb.YES:
        await tables.forgetting.forget(query.from_user.id)
    question = tapped_message(query)
    chat_id, message_id = question.chat.id, question.message_id
    done = "forget.done" if answer.verb == ForgetVerb.YES else "forget.kept"
    publisher.show(("forget", chat_id, message_id), chat_id, message_id, Screen(t(done)))
    await query.answer()


def router() -> Router:
    r = Router(name="privacy")
    private = MagicData(F.event.chat.type == ChatType.PRIVATE)
    r.message.register(show_privacy, private, Command("privacy"))
    r.message.register(ask, private, Command("forgetme"))
    # The question is only ever sent privately; pressed elsewhere it is forged.
    r.callback_query.register(answered, ForgetCallback.filter(),
                              MagicData(F.event.message.chat.type == ChatType.PRIVATE))
    return r
