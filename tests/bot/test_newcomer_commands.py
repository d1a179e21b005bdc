"""What a newcomer met in commands and the lobby (issue 16), end to end through the emulator:
a group's command sent privately, /lang and the last menu, a host the bot cannot write to yet,
Start pressed just after the table started by itself."""

from __future__ import annotations

import pytest

from tests.bot.conftest import ALICE, BOB
from tests.bot.groups import BOT, GROUP, JOIN, START, open_lobby, seated
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram
from tg_durak.i18n.translate import translator

CAT = 503
WORDS = {
    "en": ("works in a group", "➕ Add me to a group"),
    "ru": ("работает в группе", "➕ Добавить в группу"),
}


def _texts(message) -> list[str]:
    return [b.text for row in message.buttons for b in row]


def _urls(message) -> dict[str, str]:
    return {b.text: b.url for row in message.buttons for b in row if b.url}


@pytest.mark.parametrize("locale", ["en", "ru"])
@pytest.mark.parametrize("command", ["new", "kick"])   # /top is the quick games' in private
async def test_a_groups_command_in_the_private_chat_says_where_it_works(
        tg: FakeTelegram, bot: BotApp, locale: str, command: str) -> None:
    tg.add_user(CAT, "Cat", language_code=locale)
    await tg.send_text(CAT, "/start")
    greeting = await tg.wait_for(lambda: tg.last_message(CAT))
    await tg.send_text(CAT, f"/{command}")
    answer = await tg.wait_for(lambda: (m := tg.last_message(CAT)).message_id
                               > greeting.message_id and m)
    works, add = WORDS[locale]
    assert f"/{command} {works}" in answer.text
    assert translator(locale)("unknown.command") not in answer.text
    assert _urls(answer) == {add: f"https://t.me/{BOT}?startgroup=durak"}


async def test_lang_redraws_the_last_menu_too(tg: FakeTelegram, bot: BotApp) -> None:
    await tg.send_text(ALICE, "/start")
    menu = await tg.wait_for(lambda: tg.last_message(ALICE))
    assert [b.text for row in menu.buttons for b in row] == ["▶ Play", "⚙ Settings",
                                                             "👥 Quick game"]
    await tg.send_text(ALICE, "/lang")
    chooser = await tg.wait_for(lambda: (m := tg.last_message(ALICE)).message_id
                                > menu.message_id and m)
    await tg.press(ALICE, chooser, "Русский")
    redrawn = await tg.wait_for(lambda: (m := tg.message(ALICE, menu.message_id)).edit_count
                                and m, what="the greeting drawn again")
    assert [b.text for row in redrawn.buttons for b in row] == ["▶ Играть", "⚙ Настройки",
                                                                "👥 Быстрая игра"]
    assert "Привет" in redrawn.text


async def test_a_host_the_bot_cannot_write_to_is_told_and_shown_his_seat(
        tg: FakeTelegram, bot: BotApp) -> None:
    tg.add_user(CAT, "Cat", language_code="ru")
    tg.add_group(GROUP, "Durak club", members=[ALICE, CAT], creator=CAT)
    lobby = await open_lobby(tg, CAT)   # Cat never wrote to the bot
    assert not seated(tg, lobby, "Cat")
    told = await tg.wait_for(lambda: next((m for m in tg.messages(GROUP)
                                           if "нет места" in m.text), None))
    [url] = _urls(told).values()
    assert url.startswith(f"https://t.me/{BOT}?start=")
    await tg.follow_url(CAT, url)
    await tg.wait_for(lambda: seated(tg, lobby, "Cat"), what="Cat seated through the link")


async def test_start_just_after_the_table_started_by_itself_is_the_start(
        tg: FakeTelegram, bot: BotApp) -> None:
    tg.add_group(GROUP, "Durak club", members=[ALICE, BOB], creator=ALICE)
    for person in (ALICE, BOB):
        await tg.send_text(person, "/start")
    lobby = await open_lobby(tg, ALICE)
    for tap, then in (("⚙ Settings", "👥 2"), ("👥 2", "⬅ Back"), ("⬅ Back", JOIN)):
        await tg.press(ALICE, tg.message(GROUP, lobby.message_id), tap)
        await tg.wait_for(lambda then=then: then in _texts(tg.message(GROUP, lobby.message_id)))
    await tg.wait_for(lambda: "of 2" in tg.message(GROUP, lobby.message_id).text)
    before = tg.message(GROUP, lobby.message_id)
    await tg.press(BOB, before, JOIN)   # the last seat: the table starts by itself
    await tg.wait_for(lambda: "Trump" in tg.message(GROUP, lobby.message_id).text)
    start = next(b for row in before.buttons for b in row if b.text == START)
    answer = await tg.press(ALICE, before, start)   # pressed on the lobby she saw
    assert answer.text in (None, "") and not answer.show_alert
