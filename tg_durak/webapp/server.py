"""The bot's web server: the Mini App's page and its WebSocket, in the bot's own event loop.

One socket is one open app. Its first frame says who opened it (Telegram's signed launch data);
until then it may do nothing else. Hostile input costs little: a foreign Origin is refused at the
handshake, frames are bounded in size and in rate (the chat's per-person throttle), and a frame
the server cannot read is answered with an error and changes nothing.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web
from aiohttp.typedefs import Handler
from prometheus_client import CollectorRegistry, Histogram

from tg_durak.i18n.translate import DEFAULT_LOCALE, Translator, pick_locale, translator
from tg_durak.tables.moderation import Moderation
from tg_durak.tables.quick_games import QuickGames
from tg_durak.tables.service import TableService
from tg_durak.telegram.throttle import BURST, TAPS_PER_SECOND, TokenBuckets
from tg_durak.webapp.frames import (
    CLOSE_NO_TABLE,
    CLOSE_REFUSED,
    MAX_FRAME,
    PONG,
    Again,
    BadFrame,
    Hello,
    Join,
    MoveFrame,
    Ping,
    QuickFrame,
    Start,
    read_frame,
)
from tg_durak.webapp.launch import LaunchRefused, check_launch
from tg_durak.webapp.session import AppSessions, NoTable
from tg_durak.webapp.sockets import AppSockets, Viewer
from tg_durak.webapp.texts import ERROR_TEXTS, early_texts

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
HELLO_SECONDS = 10.0     # a socket that says nothing is closed
HEARTBEAT_SECONDS = 20.0  # a phone that went away without a close is noticed
CSP = ("default-src 'self'; script-src 'self' https://telegram.org; style-src 'self'; "
       "img-src 'self' data:; connect-src 'self'; frame-ancestors https://web.telegram.org "
       "https://*.telegram.org 'self'; base-uri 'none'; form-action 'none'")
# Seconds from a move's frame to its answer, the new state already queued on every socket.
MOVE_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


class MiniApp:
    """The web side of the bot: hands each socket's frames to the table service. `sockets`
    are the ones the table service shows its tables to (built before it, by the composition
    root); `registry` hears how long each move took; `moderation` refuses a banned person's
    launch and new games during maintenance; `quick` is the quick games' queue, which an app
    with no table joins."""

    def __init__(self, tables: TableService, sockets: AppSockets, token: str,
                 public_url: str, registry: CollectorRegistry, moderation: Moderation,
                 quick: QuickGames) -> None:
        self.token = token
        self.move_seconds = Histogram(
            "durak_app_move_seconds",
            "Mini App: from a move's frame to its answer, the new state queued on the sockets",
            buckets=MOVE_BUCKETS, registry=registry)
        self.origin = origin_of(public_url)
        self.sockets = sockets
        self.moderation = moderation
        self.sessions = AppSessions(tables, sockets, moderation, quick)
        self.buckets = TokenBuckets(rate=TAPS_PER_SECOND / tables.core.time_scale, burst=BURST)

    def add_to(self, app: web.Application) -> None:
        """The app's routes on the bot's web server (which may carry the webhook's too)."""
        app.middlewares.append(self._headers)
        app.router.add_get("/", self._page)
        app.router.add_get("/ws", self._socket)
        app.router.add_get("/texts/{language}", self._early_texts)
        app.router.add_static("/static", STATIC, follow_symlinks=False)

    @web.middleware
    async def _headers(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        response = await handler(request)
        # On every route, the webhook's included: harmless there, and one rule is easier to trust.
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    async def _page(self, request: web.Request) -> web.StreamResponse:
        response = web.FileResponse(STATIC / "index.html")
        response.headers["Cache-Control"] = "no-cache"
        return response

    async def _early_texts(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(early_texts(request.match_info["language"][:16]))

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        origin = request.headers.get("Origin")
        if origin is not None and origin != self.origin:
            raise web.HTTPForbidden()   # a page of another site: no socket of ours
        ws = web.WebSocketResponse(heartbeat=HEARTBEAT_SECONDS, max_msg_size=4 * MAX_FRAME)
        await ws.prepare(request)
        try:
            await self._serve(ws)
        except ConnectionError:   # the phone went away mid-frame
            pass
        finally:
            if not ws.closed:
                await ws.close()
        return ws

    async def _serve(self, ws: web.WebSocketResponse) -> None:
        try:
            first = await ws.receive(timeout=HELLO_SECONDS)
        except TimeoutError:
            return
        t = translator(DEFAULT_LOCALE)
        try:
            hello = read_frame(first.data if first.type == WSMsgType.TEXT else None)
            if not isinstance(hello, Hello):
                raise BadFrame()
            launch = check_launch(self.token, hello.init_data)
        except (BadFrame, LaunchRefused) as exc:
            code = exc.code if isinstance(exc, LaunchRefused) else "launch_forged"
            await self._refuse(ws, t, code, CLOSE_REFUSED)
            return
        if await self.moderation.is_banned(launch.user_id):
            await self._refuse(ws, translator(pick_locale(launch.language_code)), "banned",
                               CLOSE_REFUSED)
            return
        user, t = await self.sessions.person(launch)
        viewer = Viewer(ws, user.id, t)
        try:
            try:
                await self.sessions.open(viewer, launch, user)
            except NoTable:
                await self._refuse(ws, t, "no_table", CLOSE_NO_TABLE)
                return
            async for message in ws:
                if message.type != WSMsgType.TEXT:
                    viewer.send(self._error(t, "bad_frame"))
                    continue
                await self._frame(viewer, message.data, user.id)
        finally:
            await self.sessions.closed(viewer)
            await viewer.close()

    async def _frame(self, viewer: Viewer, text: str, user_id: int) -> None:
        if not self.buckets.take(user_id):
            viewer.send(self._error(viewer.t, "too_fast"))
            return
        try:
            frame = read_frame(text)
        except BadFrame as exc:
            viewer.send(self._error(viewer.t, exc.code))
            return
        if isinstance(frame, Ping):
            viewer.send(PONG)
            return
        if isinstance(frame, Start):
            await self.sessions.start(viewer, frame)
            return
        if isinstance(frame, MoveFrame):
            # A move needs no row of his: read for every move, it waited on the store's one
            # connection behind the other tables' writes (bench/app_load.py).
            started = time.perf_counter()
            await self.sessions.move(viewer, frame)
            self.move_seconds.observe(time.perf_counter() - started)
            return
        # The person's row is read anew: his settings and reachability may have changed.
        user = await self.sessions.tables.store.users.get(user_id)
        if isinstance(frame, Join) and user is not None:
            await self.sessions.join(viewer, frame, user)
        elif isinstance(frame, Again) and user is not None:
            await self.sessions.again(viewer, frame, user)
        elif isinstance(frame, QuickFrame) and user is not None:
            await self.sessions.quick_game(viewer, frame, user)
        else:   # a second hello: the socket is his already
            viewer.send(self._error(viewer.t, "bad_frame"))

    @staticmethod
    def _error(t: Translator, code: str) -> dict:
        return {"type": "error", "code": code, "text": t(ERROR_TEXTS[code])}

    async def _refuse(self, ws: web.WebSocketResponse, t: Translator, code: str,
                      close: int) -> None:
        await ws.send_json(self._error(t, code))
        await ws.close(code=close, message=code.encode())


class WebServer:
    """Listens on DURAK_WEB_HOST:DURAK_WEB_PORT while the bot runs: health, readiness and
    metrics always, the Mini App's routes and the webhook's where the bot serves them, all added
    to `app` before `start`."""

    def __init__(self, host: str, port: int) -> None:
        self.app = web.Application()
        self.runner = web.AppRunner(self.app, access_log=None, handle_signals=False,
                                    shutdown_timeout=0.5)
        self.host = host
        self.port = port

    async def start(self) -> None:
        await self.runner.setup()
        site = web.TCPSite(self.runner, self.host, self.port)
        await site.start()
        self.port = self.runner.addresses[0][1]   # with port 0, the one it was given
        log.info("web server at http://%s:%s/", self.host, self.port)

    async def stop(self) -> None:
        await self.runner.cleanup()
