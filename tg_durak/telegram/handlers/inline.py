"""Inline mode: `@bot` typed in any chat offers a table of each game and the person's record;
Join on a chosen game's message opens its lobby (the bot learns of the message no sooner: no
chosen_inline_result is needed). Thin: parse, ask, answer.

From then on the message is a group's lobby and table, its taps handled by handlers/lobby.py;
such a tap carries inline_message_id and chat_instance instead of a message.
"""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.filters.callback_data import CallbackData
from aiogram.types import (
    CallbackQuery,
    InlineQuery,
    InlineQueryResultArticle,
    InlineQueryResultsButton,
    InlineQueryResultUnion,
    InputTextMessageContent,
)

from engine import Variant
from tg_durak.i18n.translate import Translator
from tg_durak.outbox.publisher import inline_markup
from tg_durak.play.answers import Answer, refused
from tg_durak.play.inline import SETUP_PAYLOAD, inline_chat, signature
from tg_durak.play.options import PlaySettings
from tg_durak.play.rows import UserRow
from tg_durak.render.callbacks import InlineOpen
from tg_durak.render.inline import InlineOffers, inline_articles, variant_options
from tg_durak.storage import Store
from tg_durak.tables.service import TableService
from tg_durak.telegram.callbacks import InlineOpenCallback, record_of
from tg_durak.telegram.handlers.replies import answer_query, username

# The results are the person's own (his settings, his record) and change as he plays.
CACHE_SECONDS = 10


async def offer(query: InlineQuery, t: Translator, user: UserRow, store: Store,
                bot: Bot) -> None:
    offers = InlineOffers(
        host_id=user.id, host=query.from_user.full_name,
        options=PlaySettings.from_dict(user.settings).options,
        signatures={v: signature(bot.token, v, user.id) for v in Variant},
        record=await store.results.player_record(user.id),
        bot_username=await username(bot), setup_payload=SETUP_PAYLOAD)
    results: list[InlineQueryResultUnion] = [
        InlineQueryResultArticle(
            id=article.id, title=article.title, description=article.description,
            input_message_content=InputTextMessageContent(message_text=article.screen.text,
                                                          parse_mode="HTML"),
            reply_markup=inline_markup(article.screen))
        for article in inline_articles(offers, t)]
    await query.answer(results, cache_time=CACHE_SECONDS, is_personal=True,
                       button=InlineQueryResultsButton(text=t("inline.more"),
                                                       start_parameter=SETUP_PAYLOAD))


async def opened(query: CallbackQuery, callback_data: CallbackData, t: Translator,
                 user: UserRow, store: Store, tables: TableService, bot: Bot) -> None:
    """Join on a game's message as its host's inline query posted it: its lobby opens (once,
    whoever taps first), then the tapper joins as at any lobby."""
    data = record_of(callback_data, InlineOpen)
    host = await store.users.get(data.host)
    if (query.inline_message_id is None or host is None
            or data.sig != signature(bot.token, data.variant, data.host)):
        await answer_query(query, refused("tap.unknown"), t, bot)
        return
    options = variant_options(PlaySettings.from_dict(host.settings).options, data.variant)
    table_id, opened = await tables.lobbies.open_inline(
        query.inline_message_id, inline_chat(query.chat_instance), host, options)
    answer = await tables.lobbies.join(table_id, user, query.from_user.full_name)
    if opened and user.id == host.id and answer.key == "lobby.already_in":
        answer = Answer("lobby.joined")   # his tap opened his table, with him seated
    await answer_query(query, answer, t, bot)


def router() -> Router:
    r = Router(name="inline")
    r.inline_query.register(offer)
    r.callback_query.register(opened, InlineOpenCallback.filter())
    return r
