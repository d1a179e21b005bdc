"""A Telegram-like web page over the emulator: pick a person, see his chats, tap and type.

It is the people's phones for `python -m tg_durak local --web`: each browser tab is one person
(`/?as=alice`), and what he does goes through FakeTelegram as a Telegram client's would — a
callback button is pressed, a t.me link followed, a Mini App opened with signed launch data.

The page (client_static/) long-polls `GET /api/state?as=…&since=<version>`: the answer comes
at once if anything changed since that version, else with the next change (or after
LONG_POLL_SECONDS). `POST /api/send` writes a message, `POST /api/tap` taps a button.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from aiohttp import web

from tg_durak.emulator.client_views import chat_json, chats_of, person_json
from tg_durak.emulator.links import start_app_link, start_link_payload
from tg_durak.emulator.models import ChangeKind, InlineButton, Message, User

if TYPE_CHECKING:
    from tg_durak.emulator.fake import FakeTelegram

STATIC = Path(__file__).with_name("client_static")
CONTENT_TYPES = {".html": "text/html", ".css": "text/css", ".js": "text/javascript",
                 ".svg": "image/svg+xml"}
# The page's own files only: no inline script or style, nothing from another host.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
LONG_POLL_SECONDS = 20.0
# A tap the bot does not answer within this long shows as such (Telegram's own limit is 15 s).
PRESS_TIMEOUT = 15.0
SHOWN_CHANGES = frozenset({ChangeKind.MESSAGE, ChangeKind.EDIT, ChangeKind.DELETE, ChangeKind.PIN})


class ClientError(Exception):
    """A request the page should not have made, or one the emulator refused: 400 with why."""


class ClientWeb:
    """The web page's server: its files, the people's state, and what they do."""

    def __init__(self, tg: FakeTelegram, people: Iterable[int]) -> None:
        self.tg = tg
        self.people: dict[str, User] = {}
        for user_id in people:
            user = tg.state.user(user_id)
            self.people[person_json(user)["key"]] = user
        self.version = 0
        self.url: str | None = None
        self._stamps: dict[int, int] = {}   # chat id -> version of its last change
        self._changed = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self._watch: asyncio.Task[None] | None = None

    # ---------------------------------------------------------------- lifecycle

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        """Serve the page on host:port (0: a free port); return its address."""
        self._watch = asyncio.create_task(self._follow_changes())
        app = web.Application()
        app.router.add_get("/", self._index)
        app.router.add_get("/static/{path:.+}", self._static)
        app.router.add_get("/api/people", self._people)
        app.router.add_get("/api/state", self._state)
        app.router.add_post("/api/send", self._send)
        app.router.add_post("/api/tap", self._tap)
        app.router.add_post("/api/inline", self._inline)
        app.router.add_post("/api/inline/choose", self._inline_choose)
        # handler_cancellation: a long poll whose tab was closed ends with it.
        self._runner = web.AppRunner(app, handler_cancellation=True, access_log=None,
                                     shutdown_timeout=1.0)
        await self._runner.setup()
        await web.TCPSite(self._runner, host, port).start()
        bound_host, bound_port = self._runner.addresses[0][:2]
        self.url = f"http://{bound_host}:{bound_port}/"
        return self.url

    async def stop(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _follow_changes(self) -> None:
        queue = self.tg.subscribe()
        try:
            while True:
                change = await queue.get()
                if change.kind not in SHOWN_CHANGES:
                    continue
                self.version += 1
                self._stamps[change.chat_id] = self.version
                changed, self._changed = self._changed, asyncio.Event()
                changed.set()
        finally:
            self.tg.unsubscribe(queue)

    # ---------------------------------------------------------------- files

    async def _index(self, request: web.Request) -> web.Response:
        return self._file(STATIC / "index.html")

    async def _static(self, request: web.Request) -> web.Response:
        path = (STATIC / request.match_info["path"]).resolve()
        if not path.is_relative_to(STATIC.resolve()) or not path.is_file() \
                or path.suffix not in CONTENT_TYPES:
            raise web.HTTPNotFound()
        return self._file(path)

    @staticmethod
    def _file(path: Path) -> web.Response:
        return web.Response(
            body=path.read_bytes(), content_type=CONTENT_TYPES[path.suffix], charset="utf-8",
            headers={"Content-Security-Policy": CSP, "Cache-Control": "no-cache",
                     "X-Content-Type-Options": "nosniff"},
        )

    # ---------------------------------------------------------------- the people's state

    async def _people(self, request: web.Request) -> web.Response:
        bot = self.tg.state.bot
        return web.json_response({
            "people": [person_json(user) for user in self.people.values()],
            "bot": {"name": bot.first_name, "username": bot.username},
        })

    async def _state(self, request: web.Request) -> web.Response:
        user = self._person(request.query.get("as"))
        try:
            since = int(request.query.get("since", "-1"))
        except ValueError:
            since = -1
        loop = asyncio.get_running_loop()
        deadline = loop.time() + LONG_POLL_SECONDS
        while self.version <= since and (left := deadline - loop.time()) > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)
        return web.json_response(self.state_of(user))

    def state_of(self, user: User) -> dict[str, Any]:
        world = self.tg.state
        return {
            "version": self.version,
            "me": person_json(user),
            "chats": [chat_json(world, chat, user.id, self._stamps.get(chat.id, 0))
                      for chat in chats_of(world, user.id)],
        }

    def _person(self, key: Any) -> User:
        user = self.people.get(str(key).lower())
        if user is None:
            raise web.HTTPBadRequest(text=f"no person {key!r}; people: {sorted(self.people)}")
        return user

    # ---------------------------------------------------------------- what people do

    async def _send(self, request: web.Request) -> web.Response:
        async def send(user: User, body: dict[str, Any]) -> dict[str, Any]:
            text = str(body.get("text") or "").strip()
            if not text:
                raise ClientError("nothing to send")
            await self.tg.send_text(user.id, text, chat_id=self._chat_id(body))
            return {}

        return await self._act(request, send)

    async def _inline(self, request: web.Request) -> web.Response:
        async def ask(user: User, body: dict[str, Any]) -> dict[str, Any]:
            try:
                asked = await self.tg.inline_query(user.id, str(body.get("query") or ""),
                                                   self._chat_id(body), timeout=PRESS_TIMEOUT)
            except TimeoutError:
                raise ClientError("The bot did not answer") from None
            assert asked.answer is not None
            return {"id": asked.id, "button": asked.answer.button_text, "results": [
                {"id": r.id, "title": r.title, "description": r.description}
                for r in asked.answer.results]}

        return await self._act(request, ask)

    async def _inline_choose(self, request: web.Request) -> web.Response:
        async def choose(user: User, body: dict[str, Any]) -> dict[str, Any]:
            inline = self.tg.state.inline
            asked = inline.queries.get(str(body.get("query_id")))
            if asked is None or asked.user_id != user.id or asked.answer is None:
                raise ClientError("which inline query?")
            if body.get("button"):   # the button above the results: the bot's private chat
                start = asked.answer.start_parameter
                if start is None:
                    return {"open": asked.answer.web_app}
                await self.tg.follow_url(user.id,
                                         f"https://t.me/{self.tg.state.bot.username}?start={start}")
                return {"chat": user.id}
            inline.choose(asked, str(body.get("result")))
            return {}

        return await self._act(request, choose)

    async def _tap(self, request: web.Request) -> web.Response:
        return await self._act(request, self.tap)

    async def _act(self, request: web.Request, action: Any) -> web.Response:
        try:
            body = await request.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise web.HTTPBadRequest(text="a JSON object, please")
        user = self._person(body.get("as"))
        try:
            return web.json_response(await action(user, body))
        except (ClientError, ValueError, LookupError) as error:
            return web.json_response({"error": str(error)}, status=400)

    async def tap(self, user: User, body: dict[str, Any]) -> dict[str, Any]:
        """The person taps the button he sees (`body["button"]`, as the page got it): what the
        page does next — a toast, a tab to open, a chat to switch to."""
        chat_id = self._chat_id(body)
        message = self.tg.message(chat_id, int(body.get("message_id") or 0))
        button = body.get("button")
        if not isinstance(button, dict):
            raise ClientError("which button?")
        kind, text = button.get("kind"), str(button.get("text") or "")
        if kind == "callback":
            return await self._press(user, message, InlineButton(text, str(button.get("data"))))
        if kind == "web_app":
            web_app = InlineButton(text, web_app=str(button.get("url")))
            return {"open": self.tg.open_web_app(user.id, message, web_app)}
        if kind == "url":
            return await self._open_link(user, str(button.get("url")), chat_id)
        return {"toast": {"text": "The emulator does not do this kind of button", "alert": False}}

    async def _press(self, user: User, message: Message, button: InlineButton
                     ) -> dict[str, Any]:
        try:
            answer = await self.tg.press(user.id, message, button, timeout=PRESS_TIMEOUT)
        except TimeoutError:
            return {"toast": {"text": "The bot did not answer", "alert": False}}
        result: dict[str, Any] = {}
        if answer.text:
            result["toast"] = {"text": answer.text, "alert": answer.show_alert}
        if answer.url:
            result.update(await self._open_link(user, answer.url, message.chat_id))
        return result

    async def _open_link(self, user: User, url: str, chat_id: int) -> dict[str, Any]:
        """What a Telegram client does with a link: the bot's start link opens its chat and
        taps Start, a Mini App link opens the app, any other web link a browser tab."""
        bot_username = self.tg.state.bot.username or ""
        if start_link_payload(url, bot_username) is not None:
            await self.tg.follow_url(user.id, url)
            return {"chat": user.id}
        if start_app_link(url, bot_username) is not None:
            return {"open": self.tg.open_start_app(user.id, url, chat_id)}
        if urlsplit(url).scheme in ("http", "https"):
            return {"open": url}
        raise ClientError(f"cannot open {url!r}")

    @staticmethod
    def _chat_id(body: dict[str, Any]) -> int:
        try:
            return int(body["chat_id"])
        except (KeyError, TypeError, ValueError):
            raise ClientError("which chat?") from None
