"""`python -m tg_durak local --web`: the real bot, the emulator and its Telegram-like web page,
used through the page's own HTTP API the way the page's script uses it — /start as Alice, a tap,
a group's deep link, a Mini App button — and the command itself started and stopped."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import aiohttp
import pytest
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo
from aiogram.utils.web_app import safe_parse_webapp_init_data

from tests.bot.conftest import EDIT_INTERVAL, TIME_SCALE
from tests.processes import START_TIMEOUT
from tg_durak.emulator.client_web import CSP
from tg_durak.local_web import FRIENDS, Running, running
from tg_durak.local_web import PEOPLE as PEOPLE_AND_IDS

ALICE, BOB = 501, 502
ADDRESS = re.compile(r"Open (http://127\.0\.0\.1:\d+/) in a browser")


class Page:
    """What the page's script does over HTTP, for one person."""

    def __init__(self, session: aiohttp.ClientSession, url: str, person: str) -> None:
        self.session, self.url, self.person = session, url, person
        self.version = -1

    async def state(self, wait: bool = False) -> dict[str, Any]:
        """The person's chats; with `wait`, once something changed since the last look."""
        since = self.version if wait else -1
        async with self.session.get(f"{self.url}api/state",
                                    params={"as": self.person, "since": since}) as response:
            assert response.status == 200, await response.text()
            state = await response.json()
        self.version = state["version"]
        return state

    async def until(self, predicate: Callable[[dict[str, Any]], Any], timeout: float = 60) -> Any:
        """Long-polls the state until predicate(state) is truthy; returns its value."""
        async def look() -> Any:
            state = await self.state()
            while not (value := predicate(state)):
                state = await self.state(wait=True)
            return value

        return await asyncio.wait_for(look(), timeout)

    async def post(self, path: str, **body: Any) -> tuple[int, dict[str, Any]]:
        async with self.session.post(f"{self.url}api/{path}",
                                     json={"as": self.person, **body}) as response:
            return response.status, await response.json()

    async def send(self, chat_id: int, text: str) -> None:
        status, answer = await self.post("send", chat_id=chat_id, text=text)
        assert (status, answer) == (200, {}), answer

    async def tap(self, chat_id: int, message: dict[str, Any], text: str = "",
                  kind: str | None = None) -> dict[str, Any]:
        """Taps the first button of the message whose text holds `text` (of `kind`)."""
        button = next(b for row in message["buttons"] for b in row
                      if text in b["text"] and kind in (None, b["kind"]))
        status, answer = await self.post("tap", chat_id=chat_id, message_id=message["id"],
                                         button=button)
        assert status == 200, answer
        return answer


def chat(state: dict[str, Any], chat_id: int) -> dict[str, Any]:
    return next(c for c in state["chats"] if c["id"] == chat_id)


def bot_message_with(state: dict[str, Any], chat_id: int, button: str) -> dict[str, Any] | None:
    """The newest bot message in the chat with a button whose text holds `button`."""
    for message in reversed(chat(state, chat_id)["messages"]):
        if message["from"]["bot"] and any(button in b["text"]
                                          for row in message["buttons"] for b in row):
            return message
    return None


@pytest.fixture
async def web(db_path: str) -> AsyncIterator[Running]:
    async with running(db_path, TIME_SCALE, "en", edit_interval=EDIT_INTERVAL) as pieces:
        yield pieces


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as client:
        yield client


async def test_the_page_is_served_with_its_files_and_no_inline_script(
    web: Running, session: aiohttp.ClientSession
) -> None:
    async with session.get(web.url) as response:
        assert response.status == 200
        assert response.headers["Content-Security-Policy"] == CSP
        html = await response.text()
    assert "script-src 'self'" in CSP and "unsafe-inline" not in CSP
    scripts = re.findall(r"<script([^>]*)>", html)
    assert scripts and all('src="static/' in attributes for attributes in scripts)
    assert "http" not in re.sub(r'content="[^"]*"', "", html)   # nothing from another host
    for path, kind in (("static/app.css", "text/css"), ("static/js/app.js", "text/javascript"),
                       ("static/js/render.js", "text/javascript")):
        async with session.get(web.url + path) as response:
            assert (response.status, response.content_type) == (200, kind), path
    async with session.get(web.url + "static/../client_web.py") as response:
        assert response.status == 404


async def test_four_people_each_with_the_bot_and_the_group(
    web: Running, session: aiohttp.ClientSession
) -> None:
    async with session.get(web.url + "api/people") as response:
        people = await response.json()
    assert [p["name"] for p in people["people"]] == ["Alice", "Bob", "Carol", "Dave"]
    assert people["bot"]["username"] == web.tg.state.bot.username
    state = await Page(session, web.url, "carol").state()
    assert [(c["id"], c["title"]) for c in state["chats"]] == [(503, "Durak"), (FRIENDS, "Friends")]
    assert chat(state, 503)["started"] is False
    assert chat(state, FRIENDS)["subtitle"] == f"{len(PEOPLE_AND_IDS) + 1} members"
    async with session.get(web.url + "api/state", params={"as": "mallory"}) as response:
        assert response.status == 400


async def test_alice_starts_the_bot_from_the_page_and_plays(
    web: Running, session: aiohttp.ClientSession
) -> None:
    alice = Page(session, web.url, "alice")
    await alice.send(ALICE, "/start")
    greeting = await alice.until(lambda s: bot_message_with(s, ALICE, "Play"))
    assert greeting["text"].startswith("Hi, Alice!")
    state = await alice.state()
    assert chat(state, ALICE)["started"] is True
    assert chat(state, ALICE)["messages"][0] == {**chat(state, ALICE)["messages"][0],
                                                 "text": "/start", "mine": True}
    await alice.tap(ALICE, greeting, "Play")
    table = await alice.until(lambda s: next(
        (m for m in chat(s, ALICE)["messages"] if "Trump" in m["text"]), None))
    assert table["from"]["bot"] and table["buttons"], table


async def test_a_long_poll_answers_with_the_next_change(
    web: Running, session: aiohttp.ClientSession
) -> None:
    bob = Page(session, web.url, "bob")
    await bob.state()
    waiting = asyncio.create_task(bob.state(wait=True))
    await asyncio.sleep(0.3)
    assert not waiting.done()   # nothing changed yet: the poll waits
    await web.tg.send_text(ALICE, "hello", chat_id=FRIENDS)
    state = await asyncio.wait_for(waiting, 10)
    assert chat(state, FRIENDS)["messages"][-1]["text"] == "hello"
    assert chat(state, FRIENDS)["messages"][-1]["from"]["name"] == "Alice"


async def test_a_deep_link_button_in_the_group_opens_the_bots_chat_and_starts_it(
    web: Running, session: aiohttp.ClientSession
) -> None:
    bob = Page(session, web.url, "bob")
    await bob.send(FRIENDS, f"/new@{web.tg.state.bot.username}")
    invitation = await bob.until(lambda s: next(
        (m for m in chat(s, FRIENDS)["messages"] if any(
            b["kind"] == "url" for row in m["buttons"] for b in row)), None))
    answer = await bob.tap(FRIENDS, invitation, kind="url")
    assert answer["chat"] == BOB
    await bob.until(lambda s: chat(s, BOB)["started"]
                    and chat(s, BOB)["messages"][0]["text"].startswith("/start "))


async def test_a_web_app_button_opens_the_app_with_data_signed_for_this_person(
    web: Running, session: aiohttp.ClientSession
) -> None:
    app_url = "http://127.0.0.1:9/app/"
    await web.tg.send_text(ALICE, "/help")
    bot = web.tg.create_bot()
    try:
        await bot.send_message(ALICE, "Your table", reply_markup=InlineKeyboardMarkup(
            inline_keyboard=[[InlineKeyboardButton(text="Open", web_app=WebAppInfo(url=app_url))]]))
    finally:
        await bot.session.close()
    alice = Page(session, web.url, "alice")
    message = await alice.until(lambda s: bot_message_with(s, ALICE, "Open"))
    assert message["buttons"][0][0] == {"text": "Open", "kind": "web_app", "url": app_url}
    answer = await alice.tap(ALICE, message, "Open")
    assert answer["open"].startswith(app_url + "#tgWebAppData=")
    launch = dict(parse_qsl(urlsplit(answer["open"]).fragment))
    data = safe_parse_webapp_init_data(web.tg.token, launch["tgWebAppData"])
    assert data.user.id == ALICE


async def test_the_bot_is_told_its_mini_app_and_startapp_links_open_it(web: Running) -> None:
    settings = web.app.settings
    assert settings.webapp_url == f"http://127.0.0.1:{settings.web_port}/"
    assert (settings.web_host, settings.webapp_name) == ("127.0.0.1", "durak")
    opened = web.tg.open_start_app(ALICE, f"https://t.me/{web.tg.state.bot.username}?startapp=x",
                                   chat_id=FRIENDS)
    assert opened.startswith(f"{settings.webapp_url}?tgWebAppStartParam=x#tgWebAppData=")


def test_the_command_prints_one_address_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tg_durak", "local", "--web", "--db", str(tmp_path / "w.sqlite3")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True).start()
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not (found := ADDRESS.search("".join(lines))):
            assert proc.poll() is None and time.monotonic() < deadline, "".join(lines)
            time.sleep(0.1)
        address = found[1]
        assert len(re.findall(r"https?://", "".join(lines))) == 1

        async def fetch() -> tuple[int, str]:
            async with aiohttp.ClientSession() as client, client.get(address) as response:
                return response.status, await response.text()

        status, html = asyncio.run(fetch())
        assert status == 200 and "static/js/app.js" in html
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=10) == 0
        assert "Traceback" not in "".join(lines), "".join(lines)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


async def test_alice_starts_a_game_in_her_chat_with_bob_by_typing_the_bots_name(
    web: Running, session: aiohttp.ClientSession
) -> None:
    alice, bob = Page(session, web.url, "alice"), Page(session, web.url, "bob")
    state = await alice.state()
    ours = next(c for c in state["chats"] if c["title"] == "Bob")   # no bot in it
    assert ours["inline"] and ours["commands"] == [] and ours["started"]
    status, offered = await alice.post("inline", chat_id=ours["id"],
                                       query=f"@{web.tg.state.bot.username}")
    assert status == 200, offered
    titles = [r["title"] for r in offered["results"]]
    assert titles == ["🃏 New table: Throw-in", "🃏 New table: Transfer", "📊 My record"]
    assert offered["button"] == "⚙ More options"
    status, answer = await alice.post("inline/choose", query_id=offered["id"],
                                      result=offered["results"][0]["id"])
    assert (status, answer) == (200, {}), answer
    posted = await bob.until(lambda s: next(
        (m for m in chat(s, ours["id"])["messages"] if m.get("via")), None))
    assert posted["from"]["name"] == "Alice" and posted["via"] == web.tg.state.bot.username
    answer = await bob.tap(ours["id"], posted, "Join")   # the deep link opens his bot chat
    assert answer == {"chat": BOB}
    await bob.until(lambda s: ". Bob" in next(
        m for m in chat(s, ours["id"])["messages"] if m["id"] == posted["id"])["text"])
    status, answer = await alice.post("inline/choose", query_id=offered["id"], button=True)
    assert (status, answer) == (200, {"chat": ALICE})   # More options: the setup, privately
