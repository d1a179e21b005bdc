"""The group lobby end to end: who may do what, one table per chat and per person, expiry, links."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

from tests.bot.conftest import ALICE, BOB, settings_for
from tests.bot.groups import BOT, GROUP, JOIN, START, join, open_lobby, seated, start
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram

CAT, DAN = 503, 504
GROUP2 = -1009999999999
BASIC = -4242
HOST_ONLY = "Only the host or a chat admin can do that."


@pytest.fixture
async def group(tg: FakeTelegram) -> FakeTelegram:
    tg.add_user(CAT, "Cat")
    tg.add_user(DAN, "Dan")
    tg.add_group(GROUP, "Durak club", members=[ALICE, BOB, CAT, DAN], creator=DAN)
    tg.add_group(GROUP2, "Other club", members=[ALICE, BOB, CAT], creator=CAT)
    for person in (ALICE, BOB, CAT):
        await tg.send_text(person, "/start")
    return tg


def _buttons(tg: FakeTelegram, message) -> list[str]:
    return [b.text for row in tg.message(message.chat_id, message.message_id).buttons
            for b in row]


async def test_the_group_command_menu(group: FakeTelegram, bot: BotApp) -> None:
    menu = [c.command for c in group.commands("all_group_chats")]
    assert menu == ["new", "stats", "top", "leave", "kick", "notify", "help"]
    assert group.commands("all_group_chats", "ru")[0].description == "Открыть стол в этом чате"


async def test_a_second_new_points_to_the_open_table(group: FakeTelegram, bot: BotApp) -> None:
    lobby = await open_lobby(group, ALICE)
    await group.send_text(BOB, "/new", chat_id=GROUP)
    reply = await group.wait_for(lambda: group.last_message(GROUP).message_id > lobby.message_id
                                 and group.last_message(GROUP))
    assert reply.text == "This chat already has an open table: here it is."
    assert reply.reply_to_message_id == lobby.message_id
    assert len([m for m in group.messages(GROUP) if JOIN in _buttons(group, m)]) == 1


async def test_one_open_table_per_person(group: FakeTelegram, bot: BotApp) -> None:
    lobby = await open_lobby(group, ALICE)
    await join(group, BOB, lobby, "Bob")
    other = await open_lobby(group, CAT, GROUP2)
    link = f"https://t.me/c/1234567890/{lobby.message_id}"
    answer = await group.press(BOB, other, JOIN)
    assert answer.show_alert and answer.text == f"You already have a seat at another table: {link}"
    assert not seated(group, other, "Bob")
    # the host of a lobby is seated there too
    await group.send_text(ALICE, "/new", chat_id=GROUP2)
    reply = await group.wait_for(lambda: group.last_message(GROUP2).reply_to_message_id
                                 and group.last_message(GROUP2))
    assert reply.reply_to_message_id == other.message_id   # GROUP2 has its table already
    # a private game counts as well
    await group.send_text(DAN, "/start")
    await group.wait_for(lambda: group.last_message(DAN) is not None)
    await group.press(DAN, group.last_message(DAN), "▶ Play")
    await group.wait_for(lambda: len(group.messages(DAN)) >= 2)
    answer = await group.press(DAN, other, JOIN)
    assert answer.text == ("You are already playing in your private chat with me: "
                           f"https://t.me/{BOT}")
    # leaving the lobby frees him
    await group.press(BOB, group.message(GROUP, lobby.message_id), "🚪 Leave")
    await group.wait_for(lambda: not seated(group, lobby, "Bob"))
    assert group.last_message(BOB).text == "You left the table."
    await join(group, BOB, other, "Bob")


async def test_settings_and_start_belong_to_the_host_or_an_admin(group: FakeTelegram,
                                                                 bot: BotApp) -> None:
    lobby = await open_lobby(group, ALICE)
    await join(group, BOB, lobby, "Bob")
    for button in ("⚙ Settings", START, "✖ Cancel"):
        answer = await group.press(BOB, group.message(GROUP, lobby.message_id), button)
        assert (answer.text, answer.show_alert) == (HOST_ONLY, True)
    assert JOIN in _buttons(group, lobby)   # nothing changed
    group.set_member(GROUP, BOB, "administrator")
    await group.press(BOB, group.message(GROUP, lobby.message_id), "⚙ Settings")
    await group.wait_for(lambda: "👥 2" in _buttons(group, lobby))
    answer = await group.press(CAT, group.message(GROUP, lobby.message_id), "👥 2")
    assert answer.text == HOST_ONLY
    await group.press(BOB, group.message(GROUP, lobby.message_id), "👥 3")
    await group.wait_for(lambda: "Seats taken: 2 of 3" in group.message(GROUP,
                                                                        lobby.message_id).text)
    await start(group, BOB, lobby, [ALICE, BOB])   # the admin starts it with two seats of three
    assert _buttons(group, lobby) == []   # the group's table has no game buttons: play is private


async def test_deep_links_that_lead_nowhere_say_so(group: FakeTelegram, bot: BotApp) -> None:
    await group.send_text(CAT, "/start nonsense")
    await group.wait_for(lambda: group.last_message(CAT).text
                         == "This link does not invite you to any table.")
    lobby = await open_lobby(group, ALICE)
    answer = await group.press(DAN, lobby, JOIN)   # Dan never opened the bot
    await group.press(ALICE, group.message(GROUP, lobby.message_id), "✖ Cancel")
    await group.wait_for(lambda: group.message(GROUP, lobby.message_id).text.startswith("✖"))
    assert group.message(GROUP, lobby.message_id).buttons == ()
    assert group.last_message(ALICE).text == "✖ The host cancelled the table: no game this time."
    await group.follow_url(DAN, answer.url)
    await group.wait_for(lambda: group.last_message(DAN).text == (
        "This table has already started or closed. Ask in the group for a new one."))
    await group.send_text(CAT, "/start group")   # the group's "Open the bot" link: a greeting
    await group.wait_for(lambda: group.last_message(CAT).text.startswith("Hi, Cat"))


@pytest.fixture
async def quick_bot(tg: FakeTelegram, db_path: str) -> AsyncIterator[BotApp]:
    """Timers at 1/100: a lobby expires after 6 s."""
    app = BotApp(replace(settings_for(tg, db_path), time_scale=0.01))
    await app.start()
    yield app
    await app.stop()


async def test_an_unstarted_lobby_expires_and_says_so(group: FakeTelegram,
                                                      quick_bot: BotApp) -> None:
    lobby = await open_lobby(group, ALICE)
    await join(group, BOB, lobby, "Bob")
    await group.wait_for(lambda: group.message(GROUP, lobby.message_id).text.startswith("⌛"),
                         timeout=60)
    assert group.message(GROUP, lobby.message_id).text == (
        "⌛ This table closed: nobody started it within 10 minutes. Send /new for a new one.")
    assert group.message(GROUP, lobby.message_id).buttons == ()
    for person in (ALICE, BOB):
        await group.wait_for(lambda p=person: group.last_message(p).text.startswith("⌛ The table"))
    answer = await group.press(CAT, lobby, lobby.button(JOIN))   # a Join from before
    assert answer.text == "This table is closed."
    again = await open_lobby(group, BOB)   # the chat is free again
    assert again.message_id > lobby.message_id and seated(group, again, "Bob")
