"""End-to-end harness: the real bot (aiogram over HTTP) against the fake Bot API on 127.0.0.1."""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
from collections.abc import AsyncIterator

import aiohttp
import pytest

from tests.bot.app_pages import free_port, serving_app
from tests.processes import START_TIMEOUT
from tg_durak.app import BotApp
from tg_durak.config import Settings
from tg_durak.emulator import FakeTelegram
from tg_durak.play.ratings import rate
from tg_durak.storage import Store

# Game timers run at a tenth of real time: a 30 s turn is 3 s, a bot's pause 0.15-0.3 s.
TIME_SCALE = 0.1
EDIT_INTERVAL = 0.05
ALICE, BOB = 501, 502


# Telegram refuses a tap's answer after 15 s (tests/emulator checks that). A bot restarted on a
# starved machine can take longer to come back; these tests check that it answers at all.
CALLBACK_TTL = 180.0


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram(callback_ttl=CALLBACK_TTL) as fake:
        fake.add_user(ALICE, "Alice", language_code="en")
        fake.add_user(BOB, "Bob", language_code="en")
        yield fake


def settings_for(tg: FakeTelegram, db_path: str) -> Settings:
    # Port 0: the web server (health and metrics) listens on a port of its own per bot.
    return Settings(token=tg.token, db_path=db_path, api_url=tg.url, time_scale=TIME_SCALE,
                    log_level="WARNING", edit_interval=EDIT_INTERVAL, web_port=0)


@pytest.fixture
async def bot(tg: FakeTelegram, db_path: str) -> AsyncIterator[BotApp]:
    app = BotApp(settings_for(tg, db_path))
    await app.start()
    yield app
    await app.stop()


@pytest.fixture
async def store(db_path: str, bot: BotApp) -> AsyncIterator[Store]:
    """A second connection to the bot's database, to check what it wrote (opened as the bot
    opens it, for the tests that write through it)."""
    s = await Store.open(db_path, rate=rate)
    yield s
    await s.close()


async def remembered(store: Store, table_id: int, wanted: set[tuple[int, int]],
                     timeout: float = 60) -> set[tuple[int, int]]:
    """The (chat, message) pairs stored for a table's messages, once they are `wanted` or the
    time is up: the bot stores a fresh message's id when Telegram has returned it, which may
    come after the test sees the message."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        have = {(m.chat_id, m.message_id) for m in await store.messages.of_table(table_id)}
        if have == wanted or loop.time() > deadline:
            return have
        await asyncio.sleep(0.1)


def bot_process(tg: FakeTelegram, db_path: str, *args: str, **env: str) -> subprocess.Popen:
    """The bot as its own process, exactly as an operator starts it (`args`: a command)."""
    full_env = {
        **os.environ,
        "BOT_TOKEN": tg.token,
        "TELEGRAM_API_URL": tg.url,
        "DURAK_DB": db_path,
        "DURAK_TIME_SCALE": str(TIME_SCALE),
        "DURAK_EDIT_INTERVAL": str(EDIT_INTERVAL),
        "LOG_LEVEL": "WARNING",
        "DURAK_WEB_PORT": str(free_port()),   # each bot's web server a port of its own
        **env,
    }
    return subprocess.Popen([sys.executable, "-m", "tg_durak", *args], env=full_env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


async def started_bot(tg: FakeTelegram, db_path: str, *args: str,
                      **env: str) -> subprocess.Popen:
    """`bot_process`, returned once it has sent Telegram its first request (its modules are
    loaded and its database open) or has ended: the steps a test times after this are the
    bot's work, not the start of a process on a machine that may be busy (START_TIMEOUT).
    Any earlier process of the test's must have ended: its requests would count."""
    before = len(tg.calls)
    proc = bot_process(tg, db_path, *args, **env)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + START_TIMEOUT
    while len(tg.calls) == before and proc.poll() is None:
        if loop.time() > deadline:
            proc.kill()
            proc.wait()
            raise TimeoutError(f"the bot sent no request in {START_TIMEOUT} s")
        await asyncio.sleep(0.05)
    return proc


def game_message(tg: FakeTelegram, user_id: int):
    """The user's game message: the newest bot message with card or game-over buttons."""
    for m in reversed(tg.messages(user_id)):
        if any(b.callback_data and b.callback_data.startswith(("m:", "u:again"))
               for row in m.buttons for b in row):
            return m
    return None


def is_over(message) -> bool:
    return any(b.callback_data == "u:again:" for row in message.buttons for b in row)


def choose_button(message, rng: random.Random, texts: dict[str, str]):
    """What a sensible person taps: a playable card (marked •), else Pass, else Take."""
    buttons = [b for row in message.buttons for b in row if b.callback_data]
    cards = [b for b in buttons if b.text.startswith("•")]
    targets = [b for b in buttons if b.callback_data.startswith("m:") and ":t:" in b.callback_data]
    if targets:
        return rng.choice(targets)
    if cards and rng.random() < 0.8:
        return rng.choice(cards)
    for label in (texts["pass"], texts["take"]):
        found = [b for b in buttons if b.text == label]
        if found:
            return found[0]
    return rng.choice(cards) if cards else None


async def play_to_end(tg: FakeTelegram, user_id: int, seed: int = 1, timeout: float = 120,
                      texts: dict[str, str] | None = None) -> object:
    """Tap through a whole game as the player; returns the final game message."""
    texts = texts or {"pass": "Pass", "take": "Take"}
    rng = random.Random(seed)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    seen = None
    while loop.time() < deadline:
        message = game_message(tg, user_id)
        if message is not None and is_over(message):
            return message
        state = None if message is None else (message.message_id, message.edit_count)
        if message is not None and state != seen:
            seen = state
            button = choose_button(message, rng, texts)
            if button is not None:
                await tg.press(user_id, message, button, timeout=60)
                continue
        await tg.wait_for(lambda s=state: (lambda m: m is not None and (
            m.message_id, m.edit_count) != s)(game_message(tg, user_id)), timeout=60)
    raise AssertionError("the game did not finish in time")


@pytest.fixture
async def app_bot(tg: FakeTelegram, db_path: str) -> AsyncIterator[BotApp]:
    """The bot with its Mini App served on 127.0.0.1 (and registered with the emulator)."""
    async with serving_app(tg, settings_for(tg, db_path)) as app:
        yield app


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    """An HTTP client, as a phone's web view is one (pages and their sockets)."""
    async with aiohttp.ClientSession() as session:
        yield session
