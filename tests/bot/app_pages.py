"""Mini App pages' sockets as a phone opens them: from the launch URL a Telegram client would
open (the emulator signs it), every frame kept."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator
from dataclasses import replace
from urllib.parse import parse_qs, urlsplit

import aiohttp

from tg_durak.app import BotApp
from tg_durak.config import Settings
from tg_durak.emulator import FakeTelegram
from tg_durak.webapp.server import origin_of

FRAME_TIMEOUT = 60.0   # a hang bound, not a speed target: the bot may share a busy machine


@contextlib.asynccontextmanager
async def serving_app(tg: FakeTelegram, settings: Settings) -> AsyncIterator[BotApp]:
    """The bot with its Mini App served on 127.0.0.1 (and registered with the emulator)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    tg.set_web_app(url)
    app = BotApp(replace(settings, webapp_url=url, web_port=port))
    await app.start()
    try:
        yield app
    finally:
        await app.stop()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def init_data_of(launch_url: str) -> str:
    """The signed launch data in a launch URL's fragment, as the page reads it."""
    return parse_qs(urlsplit(launch_url).fragment)["tgWebAppData"][0]


class Page:
    """One open app's socket: every frame it was sent is kept (`frames`)."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.frames: list[dict] = []
        self._next_id = 0

    async def receive(self) -> dict:
        message = await asyncio.wait_for(self.ws.receive(), FRAME_TIMEOUT)
        if message.type != aiohttp.WSMsgType.TEXT:
            raise ConnectionError(f"socket closed: {message.type} {message.data}")
        frame = json.loads(message.data)
        self.frames.append(frame)
        return frame

    async def until(self, wanted, what: str = "frame") -> dict:
        """The first frame (from now) that `wanted` accepts."""
        while True:
            frame = await self.receive()
            if wanted(frame):
                return frame

    async def seen_or_until(self, wanted, what: str = "frame") -> dict:
        """The first frame, received already or from now, that `wanted` accepts (a state and
        the answer to the frame that caused it come in either order)."""
        seen = next((frame for frame in self.frames if wanted(frame)), None)
        return seen if seen is not None else await self.until(wanted, what)

    async def state(self, newer_than: int = -1) -> dict:
        return await self.until(lambda f: f["type"] == "state" and f["version"] > newer_than)

    async def send(self, frame: dict) -> int:
        self._next_id += 1
        await self.ws.send_json({**frame, "id": self._next_id})
        return self._next_id

    async def answer(self, frame_id: int) -> dict:
        return await self.until(lambda f: f["type"] == "answer" and f["id"] == frame_id)

    async def move(self, state: dict, move: dict) -> dict:
        """A move made on `state`, and its answer."""
        frame_id = await self.send({"type": "move", "version": state["version"], **move})
        return await self.answer(frame_id)

    async def close(self) -> None:
        await self.ws.close()


async def open_page(http: aiohttp.ClientSession, app_url: str, launch_url: str,
                    origin: str | None = None) -> Page:
    """The socket of a page opened at `launch_url`, its hello sent."""
    ws = await http.ws_connect(app_url + "ws", origin=origin or origin_of(app_url))
    page = Page(ws)
    await ws.send_json({"type": "hello", "init_data": init_data_of(launch_url)})
    return page

