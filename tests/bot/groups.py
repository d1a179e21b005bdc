"""Driving a group game from the people's side: /new, Join (through the deep link when the bot
cannot write to a person yet), Add computer, Start, and tapping through the private game messages.

Shared by every E2E test of group games.
"""

from __future__ import annotations

import asyncio
import random

from tests.bot.conftest import choose_button, game_message, is_over
from tg_durak.emulator import FakeTelegram
from tg_durak.emulator.models import Message
from tg_durak.i18n.translate import translator

GROUP = -1001234567890   # a supergroup
BOT = "durak_test_bot"
JOIN, START, REMATCH = "✋ Join", "▶ Start", "🔁 Rematch"


def lobby_message(tg: FakeTelegram, chat_id: int = GROUP) -> Message | None:
    """The newest bot message of the chat with lobby or table buttons (or the table itself)."""
    for m in reversed(tg.messages(chat_id)):
        if any(b.callback_data and b.callback_data.startswith("g:")
               for row in m.buttons for b in row) or "Trump" in m.text:
            return m
    return None


def group_message(tg: FakeTelegram, message_id: int, chat_id: int = GROUP) -> Message:
    return tg.message(chat_id, message_id)


async def open_lobby(tg: FakeTelegram, host: int, chat_id: int = GROUP) -> Message:
    """`host` sends /new@bot; returns the lobby message."""
    before = len(tg.messages(chat_id))
    await tg.send_text(host, f"/new@{BOT}", chat_id=chat_id)
    return await tg.wait_for(lambda: len(tg.messages(chat_id)) > before
                             and lobby_message(tg, chat_id), timeout=60)


def seated(tg: FakeTelegram, lobby: Message, name: str) -> bool:
    """Whether the lobby message lists `name` among its seats now."""
    text = tg.message(lobby.chat_id, lobby.message_id).text
    return any(line.split(". ", 1)[-1] == name for line in text.splitlines())


async def join(tg: FakeTelegram, user_id: int, lobby: Message, name: str) -> None:
    """The person taps Join; one who never opened the bot follows the link it answers with."""
    answer = await tg.press(user_id, tg.message(lobby.chat_id, lobby.message_id), JOIN)
    if answer.url is not None:
        assert answer.url.startswith(f"https://t.me/{BOT}?start=")
        await tg.follow_url(user_id)
    await tg.wait_for(lambda: seated(tg, lobby, name), timeout=60,
                      what=f"{name} seated in the lobby")


async def add_computer(tg: FakeTelegram, user_id: int, lobby: Message, level: str = "Normal"
                       ) -> None:
    before = tg.message(lobby.chat_id, lobby.message_id).edit_count
    await tg.press(user_id, tg.message(lobby.chat_id, lobby.message_id), f"+🤖 {level}")
    await tg.wait_for(lambda: tg.message(lobby.chat_id, lobby.message_id).edit_count > before)


async def start(tg: FakeTelegram, host: int, lobby: Message, people: list[int]) -> None:
    """The host taps Start; returns once every person has his game message."""
    answer = await tg.press(host, tg.message(lobby.chat_id, lobby.message_id), START)
    assert not answer.show_alert, answer.text
    await wait_started(tg, lobby, people)


async def wait_started(tg: FakeTelegram, lobby: Message, people: list[int]) -> None:
    await tg.wait_for(lambda: all(game_message(tg, p) is not None for p in people)
                      and "Trump" in tg.message(lobby.chat_id, lobby.message_id).text,
                      timeout=60, what="every game message and the public table")


def shows_result(tg: FakeTelegram, lobby: Message) -> bool:
    """The group message shows the end: the places and Rematch."""
    m = tg.message(lobby.chat_id, lobby.message_id)
    return any(b.text == REMATCH for row in m.buttons for b in row)


async def play_all(tg: FakeTelegram, people: list[int], seed: int = 1,
                   timeout: float = 180, pause: float = 0.0,
                   taps: list[tuple[float, int]] | None = None,
                   languages: dict[int, str] | None = None) -> dict[int, Message]:
    """Every person taps through his own game message at once until each shows the end, each
    tap `pause` seconds after he sees the screen (a person's pace); `taps` collects (time,
    user) of each tap. `languages`: who reads another language than English."""
    async def one(user_id: int, rng: random.Random) -> Message:
        t = translator((languages or {}).get(user_id, "en"))
        texts = {"pass": t("btn.pass"), "take": t("btn.take")}
        chat_id, message_id = user_id, game_message(tg, user_id).message_id
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        seen = None
        while loop.time() < deadline:
            message = tg.message(chat_id, message_id)
            if is_over(message):
                return message
            state = (message.message_id, message.edit_count)
            if state != seen:
                seen = state
                button = choose_button(message, rng, texts)
                if button is not None:
                    if pause:
                        await asyncio.sleep(pause * (0.5 + rng.random()))
                    if taps is not None:
                        taps.append((tg.clock(), user_id))
                    await tg.press(user_id, message, button, timeout=60)
                    continue
            await tg.wait_for(lambda s=state: tg.message(chat_id, message_id).edit_count != s[1],
                              timeout=60)
        raise AssertionError(f"the game of {user_id} did not finish in time")

    finals = await asyncio.gather(*(one(p, random.Random(seed * 1000 + p)) for p in people))
    return dict(zip(people, finals, strict=True))
