"""Inline mode in the fake server, driven by a real aiogram bot: queries, results, the message
sent via the bot, taps on it (inline_message_id, no message), edits by that id, their limits."""

import pytest
from aiogram import Router
from aiogram.exceptions import TelegramBadRequest, TelegramRetryAfter
from aiogram.types import (
    CallbackQuery,
    ChosenInlineResult,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQuery,
    InlineQueryResultArticle,
    InlineQueryResultsButton,
    InputTextMessageContent,
    WebAppInfo,
)

from tests.emulator.test_emulator_aiogram import make_bot, polling
from tg_durak.emulator import FakeTelegram, RateLimits

ANN, BOB = 1001, 1002


def inline_router(seen: list) -> Router:
    router = Router()

    @router.inline_query()
    async def offer(query: InlineQuery) -> None:
        seen.append(("query", query.query, query.chat_type))
        await query.answer([InlineQueryResultArticle(
            id="game", title="A game", description="tap to post",
            input_message_content=InputTextMessageContent(message_text="<b>Lobby</b>",
                                                          parse_mode="HTML"),
            reply_markup=InlineKeyboardMarkup(inline_keyboard=[[
                InlineKeyboardButton(text="Join", callback_data="join")]]),
        )], cache_time=0, is_personal=True,
            button=InlineQueryResultsButton(text="More options", start_parameter="options"))

    @router.chosen_inline_result()
    async def chosen(result: ChosenInlineResult) -> None:
        seen.append(("chosen", result.result_id, result.inline_message_id))

    @router.callback_query()
    async def tap(query: CallbackQuery) -> None:
        seen.append(("tap", query.inline_message_id, query.message, query.chat_instance))
        assert query.inline_message_id is not None
        await query.bot.edit_message_text(text=f"Joined: {query.from_user.first_name}",
                                          inline_message_id=query.inline_message_id)
        await query.answer("ok")

    return router


async def test_a_result_sent_via_the_bot_is_tapped_and_edited_by_its_id() -> None:
    seen: list = []
    async with FakeTelegram() as tg:
        tg.set_inline()
        tg.add_user(ANN, "Ann")
        tg.add_user(BOB, "Bob")
        dialog = tg.add_dialog(ANN, BOB)
        async with polling(tg, inline_router(seen)):
            asked = await tg.inline_query(ANN, "durak", dialog.id)
            assert asked.answer is not None
            assert asked.answer.start_parameter == "options"
            assert [r.title for r in asked.answer.results] == ["A game"]
            message = tg.state.inline.choose(asked, "A game")
            assert message.text == "Lobby" and message.inline_id is not None
            assert message.chat_id == dialog.id and not message.from_bot
            answer = await tg.press(BOB, message, "Join")
            assert answer.text == "ok"
            shown = tg.screen(dialog.id)
            assert [s.text for s in shown] == ["Joined: Bob"]
            assert shown[0].sender == "Ann"   # sent by her, via the bot
        assert seen[0] == ("query", "durak", "private")
        assert ("chosen", "game", message.inline_id) not in seen   # feedback is off
        tap = next(s for s in seen if s[0] == "tap")
        assert tap[1] == message.inline_id and tap[2] is None and tap[3]


async def test_inline_feedback_tells_the_chosen_result() -> None:
    seen: list = []
    async with FakeTelegram() as tg:
        tg.set_inline(feedback=True)
        tg.add_user(ANN, "Ann")
        async with polling(tg, inline_router(seen)):
            message = await tg.choose_inline(ANN, "game")
            await tg.wait_for(lambda: any(s[0] == "chosen" for s in seen))
        assert ("query", "", "sender") in seen
        assert ("chosen", "game", message.inline_id) in seen


async def test_inline_mode_off_and_bad_answers_are_refused() -> None:
    async with FakeTelegram() as tg:
        tg.add_user(ANN, "Ann")
        with pytest.raises(ValueError, match="setinline"):
            await tg.inline_query(ANN)
        tg.set_inline()
        bot = make_bot(tg)
        try:
            asked = tg.state.inline.ask(ANN, "x")
            article = InlineQueryResultArticle(
                id="a", title="t", input_message_content=InputTextMessageContent(message_text="m"),
                reply_markup=InlineKeyboardMarkup(inline_keyboard=[[InlineKeyboardButton(
                    text="app", web_app=WebAppInfo(url="https://example.org/app"))]]))
            with pytest.raises(TelegramBadRequest, match="BUTTON_TYPE_INVALID"):
                await bot.answer_inline_query(asked.id, [article])
            with pytest.raises(TelegramBadRequest, match="RESULT_ID_DUPLICATE"):
                plain = article.model_copy(update={"reply_markup": None})
                await bot.answer_inline_query(asked.id, [plain, plain])
            with pytest.raises(TelegramBadRequest, match="MESSAGE_ID_INVALID"):
                await bot.edit_message_text(text="x", inline_message_id="AgAAAnothing")
            assert (await bot.me()).supports_inline_queries
        finally:
            await bot.session.close()


async def test_inline_edits_keep_their_chats_budget() -> None:
    async with FakeTelegram(rate_limits=RateLimits(inline_per_minute=3)) as tg:
        tg.set_inline()
        tg.add_user(ANN, "Ann")
        tg.add_user(BOB, "Bob")
        dialog = tg.add_dialog(ANN, BOB)
        async with polling(tg, inline_router([])) as bot:
            first = await tg.choose_inline(ANN, "game", chat_id=dialog.id)
            second = await tg.choose_inline(BOB, "game", chat_id=dialog.id)
            for n in range(3):
                await bot.edit_message_text(text=f"v{n}", inline_message_id=first.inline_id)
            # The chat's budget is shared by every inline message in it.
            with pytest.raises(TelegramRetryAfter):
                await bot.edit_message_text(text="late", inline_message_id=second.inline_id)
        assert tg.busiest_minute(dialog.id) == 3
