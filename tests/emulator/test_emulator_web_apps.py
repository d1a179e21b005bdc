"""Mini App buttons and links as Telegram has them, driven by a real aiogram Bot: web_app buttons
in private chats only, and the signed launch data a client opens the app with (checked with
aiogram's own validator, as the bot's web server checks it)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from urllib.parse import parse_qs, parse_qsl, urlsplit

import pytest
from aiogram import Bot
from aiogram.exceptions import TelegramBadRequest
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo
from aiogram.utils.web_app import WebAppInitData, safe_parse_webapp_init_data

from tg_durak.emulator import DARK_THEME, LIGHT_THEME, FakeTelegram

ANN, BOB = 1001, 1002
GROUP = -1001234567890
OTHER_BOT_TOKEN = "654321:OTHER-TOKEN"
APP = "https://durak.example/app/"


def web_app_keyboard(url: str = APP) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(inline_keyboard=[[
        InlineKeyboardButton(text="Open the table", web_app=WebAppInfo(url=url)),
        InlineKeyboardButton(text="Rules", callback_data="rules"),
    ]])


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as fake:
        fake.add_user(ANN, "Ann", last_name="Lee", username="ann_lee", language_code="ru")
        fake.add_user(BOB, "Bob")
        fake.add_group(GROUP, "Friends", members=[ANN, BOB])
        yield fake


@pytest.fixture
async def bot(tg: FakeTelegram) -> AsyncIterator[Bot]:
    bot = tg.create_bot()
    yield bot
    await bot.session.close()


def launch_params(url: str) -> dict[str, str]:
    """The launch parameters a client put in the URL's fragment."""
    return dict(parse_qsl(urlsplit(url).fragment, strict_parsing=True))


def init_data_of(url: str) -> str:
    return launch_params(url)["tgWebAppData"]


def validated(token: str, url: str) -> WebAppInitData:
    return safe_parse_webapp_init_data(token, init_data_of(url))


async def app_message(tg: FakeTelegram, bot: Bot):
    await tg.send_text(ANN, "/start")
    sent = await bot.send_message(ANN, "Your table", reply_markup=web_app_keyboard())
    return tg.message(ANN, sent.message_id)


# ---------------------------------------------------------------- web_app buttons


async def test_a_web_app_button_is_kept_in_a_private_chat(tg: FakeTelegram, bot: Bot) -> None:
    await tg.send_text(ANN, "/start")
    sent = await bot.send_message(ANN, "Your table", reply_markup=web_app_keyboard())
    assert sent.reply_markup.inline_keyboard[0][0].web_app.url == APP
    assert tg.message(ANN, sent.message_id).button("Open the table").web_app == APP
    assert tg.message(ANN, sent.message_id).button("Rules").web_app is None


async def test_a_web_app_button_is_refused_in_a_group(tg: FakeTelegram, bot: Bot) -> None:
    with pytest.raises(TelegramBadRequest) as refused:
        await bot.send_message(GROUP, "The table", reply_markup=web_app_keyboard())
    assert refused.value.message == "Bad Request: BUTTON_TYPE_INVALID"
    assert tg.messages(GROUP) == []


async def test_editing_a_group_message_to_a_web_app_button_is_refused(
    tg: FakeTelegram, bot: Bot
) -> None:
    plain = InlineKeyboardMarkup(inline_keyboard=[
        [InlineKeyboardButton(text="Join", callback_data="join")]
    ])
    sent = await bot.send_message(GROUP, "The lobby", reply_markup=plain)
    with pytest.raises(TelegramBadRequest, match="BUTTON_TYPE_INVALID"):
        await bot.edit_message_reply_markup(chat_id=GROUP, message_id=sent.message_id,
                                            reply_markup=web_app_keyboard())
    with pytest.raises(TelegramBadRequest, match="BUTTON_TYPE_INVALID"):
        await bot.edit_message_text("The table", chat_id=GROUP, message_id=sent.message_id,
                                    reply_markup=web_app_keyboard())
    assert tg.message(GROUP, sent.message_id).button("Join").callback_data == "join"


async def test_a_private_message_may_be_edited_to_a_web_app_button(
    tg: FakeTelegram, bot: Bot
) -> None:
    await tg.send_text(ANN, "/start")
    sent = await bot.send_message(ANN, "Your table")
    await bot.edit_message_reply_markup(chat_id=ANN, message_id=sent.message_id,
                                        reply_markup=web_app_keyboard())
    assert tg.message(ANN, sent.message_id).button("Open the table").web_app == APP


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080/", "http://localhost:8080/app"])
async def test_plain_http_is_taken_on_this_machine(tg: FakeTelegram, bot: Bot, url: str) -> None:
    await tg.send_text(ANN, "/start")
    sent = await bot.send_message(ANN, "Your table", reply_markup=web_app_keyboard(url))
    assert tg.message(ANN, sent.message_id).button("Open the table").web_app == url


@pytest.mark.parametrize("url", ["http://durak.example/app", "ftp://durak.example/", "durak"])
async def test_a_web_app_url_that_is_not_https_is_refused(
    tg: FakeTelegram, bot: Bot, url: str
) -> None:
    await tg.send_text(ANN, "/start")
    with pytest.raises(TelegramBadRequest) as refused:
        await bot.send_message(ANN, "Your table", reply_markup=web_app_keyboard(url))
    assert refused.value.message == (
        f"Bad Request: inline keyboard button Web App URL '{url}' is invalid: Only HTTPS links "
        "are allowed"
    )


# ---------------------------------------------------------------- opening a button's app


async def test_a_tapped_web_app_button_opens_its_url_with_data_signed_by_the_bot(
    tg: FakeTelegram, bot: Bot
) -> None:
    message = await app_message(tg, bot)
    url = tg.open_web_app(ANN, message, "Open the table")
    assert url.startswith(APP + "#tgWebAppData=")
    data = validated(tg.token, url)
    assert data.user.id == ANN
    assert (data.user.first_name, data.user.last_name, data.user.username,
            data.user.language_code) == ("Ann", "Lee", "ann_lee", "ru")
    assert data.query_id
    assert abs(data.auth_date.timestamp() - tg.clock()) < 5
    params = launch_params(url)
    assert (params["tgWebAppVersion"], params["tgWebAppPlatform"]) == ("8.0", "web")
    assert json.loads(params["tgWebAppThemeParams"]) == LIGHT_THEME


async def test_the_launch_data_has_the_fields_telegram_signs_and_nothing_else(
    tg: FakeTelegram, bot: Bot
) -> None:
    message = await app_message(tg, bot)
    fields = dict(parse_qsl(init_data_of(tg.open_web_app(ANN, message, "Open the table"))))
    assert sorted(fields) == ["auth_date", "hash", "query_id", "user"]
    assert json.loads(fields["user"]) == {"id": ANN, "first_name": "Ann", "last_name": "Lee",
                                          "username": "ann_lee", "language_code": "ru"}


async def test_each_opening_is_its_own_session(tg: FakeTelegram, bot: Bot) -> None:
    message = await app_message(tg, bot)
    first, second = (validated(tg.token, tg.open_web_app(ANN, message, "Open the table"))
                     for _ in range(2))
    assert first.query_id != second.query_id


async def test_the_launch_data_fails_the_check_with_another_bots_token(
    tg: FakeTelegram, bot: Bot
) -> None:
    url = tg.open_web_app(ANN, await app_message(tg, bot), "Open the table")
    with pytest.raises(ValueError, match="Invalid init data signature"):
        validated(OTHER_BOT_TOKEN, url)


async def test_other_bot_data_fails_the_check_with_this_bots_token(
    tg: FakeTelegram, bot: Bot
) -> None:
    url = tg.open_web_app(ANN, await app_message(tg, bot), "Open the table",
                          token=OTHER_BOT_TOKEN)
    assert validated(OTHER_BOT_TOKEN, url).user.id == ANN
    with pytest.raises(ValueError, match="Invalid init data signature"):
        validated(tg.token, url)


@pytest.mark.parametrize("forge", [
    lambda data: data.replace(f"%22id%22%3A{ANN}", f"%22id%22%3A{BOB}"),   # another user
    lambda data: data.replace("auth_date=", "auth_date=1"),                # a later date
    lambda data: data[:-1] + ("0" if data[-1] != "0" else "1"),           # the hash itself
])
async def test_a_changed_byte_fails_the_check(tg: FakeTelegram, bot: Bot, forge) -> None:
    data = init_data_of(tg.open_web_app(ANN, await app_message(tg, bot), "Open the table"))
    forged = forge(data)
    assert forged != data
    with pytest.raises(ValueError, match="Invalid init data signature"):
        safe_parse_webapp_init_data(tg.token, forged)


async def test_a_theme_and_a_date_may_be_chosen(tg: FakeTelegram, bot: Bot) -> None:
    day_ago = int(tg.clock()) - 86_400 - 60
    url = tg.open_web_app(ANN, await app_message(tg, bot), "Open the table",
                          theme=DARK_THEME, auth_date=day_ago)
    assert json.loads(launch_params(url)["tgWebAppThemeParams"]) == DARK_THEME
    assert DARK_THEME["bg_color"] != LIGHT_THEME["bg_color"]
    assert int(validated(tg.token, url).auth_date.timestamp()) == day_ago


async def test_only_a_web_app_button_opens_an_app(tg: FakeTelegram, bot: Bot) -> None:
    message = await app_message(tg, bot)
    with pytest.raises(ValueError, match="not a web_app button"):
        tg.open_web_app(ANN, message, "Rules")
    with pytest.raises(LookupError, match="no button 'Play'"):
        tg.open_web_app(ANN, message, "Play")


async def test_no_one_opens_an_app_on_another_persons_chat(tg: FakeTelegram, bot: Bot) -> None:
    message = await app_message(tg, bot)
    with pytest.raises(ValueError, match="cannot see chat"):
        tg.open_web_app(BOB, message, "Open the table")


# ---------------------------------------------------------------- startapp links


async def test_a_startapp_link_opens_the_named_app_with_its_start_param(
    tg: FakeTelegram,
) -> None:
    tg.set_web_app(APP, name="game")
    url = tg.open_start_app(ANN, "https://t.me/durak_test_bot/game?startapp=lobby_Ab-3")
    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == APP
    assert parse_qs(parts.query) == {"tgWebAppStartParam": ["lobby_Ab-3"]}
    data = validated(tg.token, url)
    assert (data.start_param, data.user.id) == ("lobby_Ab-3", ANN)
    assert data.chat_type is None and data.chat_instance is None


async def test_a_startapp_link_without_an_app_name_opens_the_main_app(
    tg: FakeTelegram, bot: Bot
) -> None:
    assert not (await bot.get_me()).has_main_web_app
    tg.set_web_app("https://durak.example/main/")
    assert (await bot.get_me()).has_main_web_app
    url = tg.open_start_app(BOB, "t.me/durak_test_bot?startapp=T42")
    assert url.startswith("https://durak.example/main/?tgWebAppStartParam=T42#tgWebAppData=")
    assert validated(tg.token, url).start_param == "T42"


async def test_a_link_tapped_in_a_group_tells_the_app_which_chat(tg: FakeTelegram) -> None:
    tg.set_web_app(APP, name="game")
    link = "https://t.me/durak_test_bot/game?startapp=G7"
    in_group = validated(tg.token, tg.open_start_app(ANN, link, chat_id=GROUP))
    bobs = validated(tg.token, tg.open_start_app(BOB, link, chat_id=GROUP))
    assert (in_group.chat_type, in_group.start_param) == ("supergroup", "G7")
    assert in_group.chat_instance and in_group.chat_instance == bobs.chat_instance
    assert in_group.chat_instance != str(GROUP)
    in_private = validated(tg.token, tg.open_start_app(ANN, link, chat_id=ANN))
    assert in_private.chat_type == "sender"
    assert in_private.chat_instance != in_group.chat_instance


async def test_a_link_to_an_app_the_bot_has_not_is_an_error(tg: FakeTelegram) -> None:
    with pytest.raises(LookupError, match="no main Mini App"):
        tg.open_start_app(ANN, "https://t.me/durak_test_bot?startapp=x")
    tg.set_web_app(APP, name="game")
    with pytest.raises(LookupError, match="no Mini App 'poker'"):
        tg.open_start_app(ANN, "https://t.me/durak_test_bot/poker?startapp=x")
    with pytest.raises(ValueError, match="not a link to a Mini App of @durak_test_bot"):
        tg.open_start_app(ANN, "https://t.me/other_bot/game?startapp=x")
    with pytest.raises(ValueError, match="not a link to a Mini App"):
        tg.open_start_app(ANN, "https://t.me/durak_test_bot?start=x")


def test_a_mini_app_must_be_served_over_https_or_on_this_machine() -> None:
    tg = FakeTelegram()
    with pytest.raises(ValueError, match="no Mini App URL"):
        tg.set_web_app("http://durak.example/")
    with pytest.raises(ValueError, match="no Mini App short name"):
        tg.set_web_app(APP, name="a b")
    tg.set_web_app("http://127.0.0.1:8080/")
    assert tg.state.web_apps.main == "http://127.0.0.1:8080/"
