"""`python -m tg_durak local --web`: play in a browser, no Telegram token needed.

The real bot runs against the Bot API emulator on 127.0.0.1, its Mini App server beside it, and
the emulator's web client (tg_durak/emulator/client_web.py) stands in for the people's phones:
four people (Alice, Bob, Carol, Dave), each with his private chat with the bot, and a group
"Friends" where all four and the bot are. A browser tab per person makes a group game. Alice
and Bob also have their own private chat, without the bot: typing @bot there (inline mode, on
as BotFather's /setinline turns it on) starts a game in it.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tg_durak.app import BotApp
    from tg_durak.emulator import FakeTelegram

PEOPLE = (("Alice", 501), ("Bob", 502), ("Carol", 503), ("Dave", 504))
FRIENDS = -1001000000001   # a supergroup
WEBAPP_NAME = "durak"      # t.me/<bot>/durak opens the Mini App too, not only the main link
HOST = "127.0.0.1"


@dataclass(frozen=True)
class Running:
    """The pieces `local --web` runs: the emulator, the bot, and the page's address."""

    tg: FakeTelegram
    app: BotApp
    url: str


def free_port(host: str = HOST) -> int:
    """A port nothing listens on now: the bot's web server takes it a moment later."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def populate(tg: FakeTelegram, language: str) -> None:
    for name, user_id in PEOPLE:
        tg.add_user(user_id, name, language_code=language)
    tg.add_group(FRIENDS, "Friends", members=[user_id for _, user_id in PEOPLE],
                 creator=PEOPLE[0][1])
    tg.set_inline()
    tg.add_dialog(PEOPLE[0][1], PEOPLE[1][1])


@contextlib.asynccontextmanager
async def running(db_path: str, time_scale: float, language: str, port: int = 0,
                  edit_interval: float = 0.2) -> AsyncIterator[Running]:
    """The emulator with the four people and their group, the bot with its Mini App on a free
    port, and the web client on `port` (0: a free one); all stopped on leaving."""
    from tg_durak.app import BotApp
    from tg_durak.config import Settings
    from tg_durak.emulator import FakeTelegram
    from tg_durak.emulator.client_web import ClientWeb

    async with FakeTelegram() as tg:
        populate(tg, language)
        web_port = free_port()
        webapp_url = f"http://{HOST}:{web_port}/"
        tg.set_web_app(webapp_url)
        tg.set_web_app(webapp_url, name=WEBAPP_NAME)
        # The emulator has no flood limits: redraw faster than Telegram's ~1 edit/s allows.
        app = BotApp(Settings(token=tg.token, db_path=db_path, api_url=tg.url,
                              time_scale=time_scale, log_level="WARNING",
                              edit_interval=edit_interval, web_host=HOST, web_port=web_port,
                              webapp_url=webapp_url, webapp_name=WEBAPP_NAME))
        await app.start()
        client = ClientWeb(tg, [user_id for _, user_id in PEOPLE])
        try:
            yield Running(tg, app, await client.start(HOST, port))
        finally:
            await client.stop()
            await app.stop()


async def play_web(db_path: str, time_scale: float, language: str, port: int = 0) -> None:
    """Serve until Ctrl-C (or SIGTERM), printing the one address to open."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):   # no signal handlers on Windows
            loop.add_signal_handler(sig, stop.set)
    async with running(db_path, time_scale, language, port) as pieces:
        print(f"Open {pieces.url} in a browser: one tab per person "
              "(Ctrl-C quits)", flush=True)
        await stop.wait()
