"""FakeTelegram: the fake Bot API server plus the driver that plays the users' side."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from aiohttp import web

from tg_durak.emulator import lifecycle
from tg_durak.emulator.api import BotApi, canonical_method
from tg_durak.emulator.faults import Faults
from tg_durak.emulator.inline import InlineQuery
from tg_durak.emulator.limits import Hit, RateLimiter, RateLimits
from tg_durak.emulator.models import (
    ApiError,
    CallbackAnswer,
    Change,
    Chat,
    Command,
    InlineButton,
    Message,
    User,
)
from tg_durak.emulator.params import normalize_params, scope_key
from tg_durak.emulator.screen import Shown, screen
from tg_durak.emulator.server import create_app
from tg_durak.emulator.updates import POLL_CONFLICT
from tg_durak.emulator.web_apps import Opener
from tg_durak.emulator.webhooks import WebhookPoster
from tg_durak.emulator.world import World

if TYPE_CHECKING:
    from aiogram import Bot

T = TypeVar("T")

DEFAULT_TOKEN = "123456:TEST-TOKEN"


@dataclass(frozen=True)
class Call:
    """One request the bot made, and what it got back."""

    method: str
    params: dict[str, Any]
    time: float
    ok: bool
    result: Any = None
    error_code: int | None = None
    description: str | None = None

    def __str__(self) -> str:
        outcome = "ok" if self.ok else f"{self.error_code} {self.description}"
        params = {k: v for k, v in self.params.items() if k != "reply_markup"}
        markup = " +keyboard" if "reply_markup" in self.params else ""
        return f"{self.method}({params}{markup}) -> {outcome}"


class FakeTelegram:
    """A fake Telegram Bot API server on 127.0.0.1 with an async API for the users' side.

    Everything runs on the caller's event loop; tests and the terminal client share it.
    `state` is the fake chat world (users, chats, messages, updates), `api` the Bot API methods
    run on it, `faults` the failures tests inject and `limiter` the flood limits.
    """

    def __init__(
        self,
        token: str = DEFAULT_TOKEN,
        *,
        bot_username: str = "durak_test_bot",
        bot_name: str = "Durak",
        rate_limits: RateLimits | None = None,
        privacy_mode: bool = True,
        callback_ttl: float = 15.0,
        clock: Callable[[], float] = time.time,
        first_update_id: int = 1,
        webhook_ca: str | None = None,
    ) -> None:
        self.token = token
        self.clock = clock
        self.state = World(
            token, bot_username=bot_username, bot_name=bot_name, clock=clock,
            notify=self._on_change, privacy_mode=privacy_mode, first_update_id=first_update_id,
        )
        self.limiter = RateLimiter(rate_limits or RateLimits(), clock)
        self.faults = Faults()
        self.api = BotApi(self.state, self.limiter, callback_ttl)
        self._mini_apps = Opener(self.state, token)
        self.calls: list[Call] = []
        self.url: str | None = None
        self._runner: web.AppRunner | None = None
        self._waiters: set[asyncio.Future[None]] = set()
        self._subscribers: list[tuple[int | None, asyncio.Queue[Change]]] = []
        self._poll_generation = 0
        self._long_polls = 0
        self._closing = False
        self._address: tuple[str, int] | None = None
        self._outage: asyncio.Event | None = None  # set when the network is back
        # After setWebhook: the updates posted to the bot (webhooks.posts: each try, answered).
        # webhook_ca: an authority whose certificates an https webhook may have (a test's proxy).
        self.webhooks = WebhookPoster(self.state.updates, clock, self._next_change,
                                      self._reachable, self._wake, ca_file=webhook_ca)

    # ---------------------------------------------------------------- lifecycle

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        """Serve on host:port (0 picks a free port); return the base URL for the bot."""
        self._closing = False
        # handler_cancellation: a long poll whose client went away must not linger.
        runner = web.AppRunner(create_app(self.handle), handler_cancellation=True,
                               access_log=None, shutdown_timeout=1.0)
        await runner.setup()
        await web.TCPSite(runner, host, port).start()
        self._runner = runner
        bound_host, bound_port = runner.addresses[0][:2]
        self._address = (bound_host, bound_port)
        self.url = f"http://{bound_host}:{bound_port}"
        return self.url

    async def stop(self) -> None:
        self._closing = True
        self._wake()
        await self.webhooks.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def network_down(self, hang: bool = False) -> None:
        """Telegram is out of the bot's reach until `network_up`: the server stops listening and
        cuts the connections open (the bot's requests are refused), or with `hang` it keeps
        them and answers nothing (the bot's own timeout ends a request). Requests sent meanwhile
        change nothing; people's taps and messages queue up as updates."""
        if self._outage is not None:
            return
        self._outage = asyncio.Event()
        if not hang and self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def network_up(self) -> None:
        """The network is back, on the same URL; a request still waiting is answered."""
        if self._outage is None:
            return
        if self._runner is None and self._address is not None:
            await self.start(*self._address)
        self._outage.set()
        self._outage = None

    async def _reachable(self) -> None:
        outage = self._outage
        if outage is not None:
            await outage.wait()

    async def __aenter__(self) -> FakeTelegram:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    def create_bot(self, **bot_kwargs: Any) -> Bot:
        """An aiogram Bot talking to this server (close its session, or let polling do it)."""
        from aiogram import Bot
        from aiogram.client.session.aiohttp import AiohttpSession
        from aiogram.client.telegram import TelegramAPIServer

        if self.url is None:
            raise RuntimeError("start() the fake server first")
        session = AiohttpSession(api=TelegramAPIServer.from_base(self.url))
        return Bot(self.token, session=session, **bot_kwargs)

    # ---------------------------------------------------------------- the server side

    async def handle(self, token: str, method: str, params: dict[str, Any]) -> tuple[int, dict]:
        """Answer one Bot API request: (HTTP status, JSON body)."""
        await self._reachable()   # a request sent during an outage does not arrive
        started = self.clock()
        status, body = await self._answer(token, method, params, started)
        await self._reachable()   # nor does an answer
        return status, body

    async def _answer(self, token: str, method: str, params: dict[str, Any], started: float
                      ) -> tuple[int, dict]:
        name = canonical_method(method)
        try:
            if token != self.token:
                raise ApiError(401, "Unauthorized")
            if name is None:
                raise ApiError(404, "Not Found")
            params = normalize_params(params)
            self.faults.check(name, params)
            if name == "getUpdates":
                result = await self._get_updates(params)
            else:
                result = self.api.call(name, params)
                self.webhooks.follow()
        except ApiError as error:
            self._record(Call(name or method, params, started, False, None,
                              error.error_code, error.description))
            return error.error_code, error.payload()
        self._record(Call(name, params, started, True, result))
        return 200, {"ok": True, "result": result}

    async def _get_updates(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        self._poll_generation += 1
        generation = self._poll_generation
        self._wake()  # an older long poll now ends with a 409 Conflict, as on Telegram
        limit = self.state.updates.start_poll(params)
        timeout = params.get("timeout")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (timeout if isinstance(timeout, int) and timeout > 0 else 0)
        while not (batch := self.state.updates.take(limit)) and not self._closing:
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            self._long_polls += 1
            self._wake()
            try:
                await self._next_change(remaining)
            finally:
                self._long_polls -= 1
            if generation != self._poll_generation:
                raise ApiError(409, POLL_CONFLICT)
        return batch

    @property
    def polling(self) -> bool:
        """True while a getUpdates long poll is waiting: the bot is up and idle."""
        return self._long_polls > 0

    def _record(self, call: Call) -> None:
        self.calls.append(call)
        self._wake()

    # ---------------------------------------------------------------- change notification

    def _on_change(self, change: Change | None) -> None:
        self._wake()
        if change is not None:
            for chat_id, queue in self._subscribers:
                if chat_id is None or chat_id == change.chat_id:
                    queue.put_nowait(change)

    def _wake(self) -> None:
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)
        self._waiters.clear()

    async def _next_change(self, timeout: float) -> None:
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.add(waiter)
        try:
            await asyncio.wait([waiter], timeout=timeout)
        finally:
            self._waiters.discard(waiter)
            waiter.cancel()

    def subscribe(self, chat_id: int | None = None) -> asyncio.Queue[Change]:
        """A queue of every Change in one chat (or in all chats)."""
        queue: asyncio.Queue[Change] = asyncio.Queue()
        self._subscribers.append((chat_id, queue))
        return queue

    def unsubscribe(self, queue: asyncio.Queue[Change]) -> None:
        self._subscribers = [(c, q) for c, q in self._subscribers if q is not queue]

    async def wait_for(
        self, predicate: Callable[[], T | None], timeout: float = 60.0, what: str | None = None
    ) -> T:
        """Wait until predicate() is truthy and return its value.

        Re-checked on every state change and every request. A LookupError or AttributeError
        from the predicate counts as "not yet" (so `tg.messages(c)[-1].text == ...` works).
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            error: Exception | None = None
            try:
                value = predicate()
            except (LookupError, AttributeError) as exc:
                value, error = None, exc
            if value:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(self._timeout_report(predicate, timeout, what, error))
            await self._next_change(remaining)

    def _timeout_report(
        self, predicate: Callable[[], Any], timeout: float, what: str | None,
        error: Exception | None,
    ) -> str:
        if what is None:
            try:
                what = inspect.getsource(predicate).strip()
            except (OSError, TypeError):
                what = repr(predicate)
        recent = [c for c in self.calls if c.method != "getUpdates"][-20:]
        lines = [f"waited {timeout}s for: {what}"]
        if error is not None:
            lines.append(f"the predicate last raised {type(error).__name__}: {error}")
        lines.append(f"unconfirmed updates: {len(self.state.updates.pending)}; "
                     f"last {len(recent)} calls (getUpdates left out):")
        lines += [f"  {call}" for call in recent] or ["  (none)"]
        return "\n".join(lines)

    # ---------------------------------------------------------------- what users do

    def add_user(
        self,
        user_id: int,
        first_name: str,
        language_code: str | None = "en",
        username: str | None = None,
        last_name: str | None = None,
    ) -> User:
        return self.state.add_user(user_id, first_name, language_code, username, last_name)

    def add_group(
        self,
        chat_id: int,
        title: str,
        members: Iterable[int] = (),
        admins: Iterable[int] = (),
        bot_is_admin: bool = False,
        creator: int | None = None,
        is_forum: bool = False,
    ) -> Chat:
        """A group the bot is in; ids below -1000000000000 make a supergroup (which may be a
        forum: add_topic opens its topics)."""
        return self.state.add_group(
            chat_id, title, members, admins, bot_is_admin, creator=creator, is_forum=is_forum
        )

    def set_member(self, chat_id: int, user_id: int, status: str, by: int | None = None) -> None:
        """Make the user creator, administrator, member, left or kicked (banned) in a group;
        getChatMember answers with it (an admin bot also gets a chat_member update)."""
        lifecycle.set_member(self.state, chat_id, user_id, status, by)

    def add_topic(self, chat_id: int, name: str, by: int) -> int:
        """The user opens a topic in a forum; returns its message_thread_id."""
        return lifecycle.add_topic(self.state, chat_id, name, by)

    def migrate_to_supergroup(
        self, chat_id: int, by: int | None = None, new_chat_id: int | None = None
    ) -> Chat:
        """Upgrade a basic group (see lifecycle.migrate): the old id answers 400 with
        migrate_to_chat_id from now on; the supergroup's history starts anew at message 1."""
        return lifecycle.migrate(self.state, chat_id, by, new_chat_id)

    async def send_text(
        self,
        user_id: int,
        text: str,
        chat_id: int | None = None,
        reply_to: int | None = None,
        thread: int | None = None,
    ) -> Message:
        """The user writes text in chat_id (default: the private chat, which this opens), in
        forum topic `thread` if given."""
        return self.state.user_message(user_id, text, chat_id, reply_to, thread)

    async def forward(self, user_id: int, chat_id: int, message_id: int,
                      to_chat_id: int | None = None, hidden: bool = False) -> Message:
        """The user forwards message `message_id` of `chat_id` (default: to his private chat
        with the bot); `hidden`: its sender's privacy settings keep him unnamed."""
        return self.state.forward(user_id, chat_id, message_id, to_chat_id, hidden)

    async def follow_url(self, user_id: int, url: str | None = None) -> Message:
        """The user opens a t.me/<bot>?start=<payload> link (default: the url the bot answered
        his last tap with) and taps Start: `/start <payload>` from his private chat."""
        return self.state.follow_url(user_id, url)

    async def press(
        self,
        user_id: int,
        message: Message | tuple[int, int],
        button: str | bytes | InlineButton,
        timeout: float = 60.0,
    ) -> CallbackAnswer:
        """The user taps a button; returns the bot's answerCallbackQuery.

        `button`: a button's text (or its callback_data) on the current message; a InlineButton
        (from an older version of the message: a stale tap); or bytes, sent as they are (a
        forged tap; bytes that are not UTF-8 arrive with U+FFFD replacements).
        """
        chat_id, message_id = (
            (message.chat_id, message.message_id) if isinstance(message, Message) else message
        )
        data = self._callback_data(self.state.message(chat_id, message_id), button)
        query = self.state.press(user_id, chat_id, message_id, data)
        return await self.wait_for(
            lambda: query.answer, timeout,
            what=f"the bot to answer callback query {query.id} (user {user_id} tapped {data!r} "
                 f"on message {chat_id}/{message_id})",
        )

    @staticmethod
    def _callback_data(message: Message, button: str | bytes | InlineButton) -> str:
        if isinstance(button, bytes):
            return button.decode("utf-8", "replace")
        if isinstance(button, InlineButton):
            if button.callback_data is None:
                raise ValueError(f"{button} is not a callback button")
            return button.callback_data
        flat = [b for row in message.buttons for b in row]
        for candidate in flat:
            if button in (candidate.text, candidate.callback_data):
                if candidate.callback_data is None:
                    raise ValueError(f"{candidate} is not a callback button")
                return candidate.callback_data
        raise LookupError(
            f"no button {button!r} on message {message.chat_id}/{message.message_id}; "
            f"buttons: {[b.text for b in flat]}"
        )

    # ---------------------------------------------------------------- inline mode

    def set_inline(self, enabled: bool = True, feedback: bool = False) -> None:
        """BotFather's /setinline (the bot answers @bot queries) and /setinlinefeedback (it is
        told which result was chosen: chosen_inline_result)."""
        self.state.inline.enabled, self.state.inline.feedback = enabled, feedback

    def add_dialog(self, first: int, second: int) -> Chat:
        """A private chat between two people; the bot is not in it (inline mode still is)."""
        return self.state.inline.add_dialog(first, second)

    async def inline_query(self, user_id: int, query: str = "", chat_id: int | None = None,
                           timeout: float = 60.0) -> InlineQuery:
        """The user types `@bot query` in chat_id (default: his private chat with the bot) and
        waits for the bot's results (query.answer)."""
        asked = self.state.inline.ask(user_id, query, chat_id)
        await self.wait_for(lambda: asked.answer, timeout,
                            what=f"the bot to answer inline query {asked.id} ({query!r})")
        return asked

    async def choose_inline(self, user_id: int, result: str, query: str = "",
                            chat_id: int | None = None) -> Message:
        """The user types `@bot query` in chat_id and taps the result `result` (its id or
        title): the message he sends via the bot."""
        asked = await self.inline_query(user_id, query, chat_id)
        return self.state.inline.choose(asked, result)

    def set_web_app(self, url: str, name: str | None = None) -> None:
        """Record the bot's Mini App as BotFather does: its main app, or with `name` one made
        with /newapp (t.me/<bot>/<name> opens it)."""
        self.state.web_apps.register(url, name)

    def open_web_app(
        self, user_id: int, message: Message | tuple[int, int], button: str | InlineButton,
        *, theme: dict[str, str] | None = None, auth_date: int | None = None,
        token: str | None = None,
    ) -> str:
        """The URL a client opens when the user taps a web_app button (its text, or the
        button): launch data signed with the bot's token (or `token`: another bot's data),
        dated now (or `auth_date`), with `theme` (default web_apps.LIGHT_THEME)."""
        return self._mini_apps.button(user_id, message, button, theme=theme,
                                      auth_date=auth_date, token=token)

    def open_start_app(
        self, user_id: int, url: str, chat_id: int | None = None,
        *, theme: dict[str, str] | None = None, auth_date: int | None = None,
        token: str | None = None,
    ) -> str:
        """The URL a client opens for a t.me/<bot>/<app>?startapp=… or t.me/<bot>?startapp=…
        link tapped in chat_id (None: not in a chat): the app set_web_app recorded, with
        start_param (and the chat's type and instance) in the launch data."""
        return self._mini_apps.link(user_id, url, chat_id, theme=theme, auth_date=auth_date,
                                    token=token)

    def user_delete_message(self, chat_id: int, message_id: int) -> None:
        self.state.user_delete_message(chat_id, message_id)

    def block_bot(self, user_id: int, blocked: bool = True) -> None:
        """The user blocks (or unblocks) the bot; writing to it again also unblocks."""
        self.state.block_bot(user_id, blocked)

    def kick_bot(self, chat_id: int, by: int | None = None) -> None:
        """Someone (default: the creator or an admin) removes the bot from a group: my_chat_member
        tells the bot, and every later request there gets 403."""
        lifecycle.kick_bot(self.state, chat_id, by)

    def add_bot(self, chat_id: int, by: int | None = None, admin: bool = False) -> None:
        """Someone adds the removed bot back to a group (my_chat_member, new_chat_members)."""
        lifecycle.add_bot(self.state, chat_id, by, admin)

    # ---------------------------------------------------------------- what tests look at

    def messages(
        self, chat_id: int, include_deleted: bool = False, include_user: bool = False
    ) -> list[Message]:
        """The bot's messages in a chat, oldest first (optionally deleted ones and users')."""
        return self.state.messages(chat_id, include_deleted, include_user)

    def last_message(self, chat_id: int) -> Message | None:
        messages = self.state.messages(chat_id)
        return messages[-1] if messages else None

    def message(self, chat_id: int, message_id: int) -> Message:
        return self.state.message(chat_id, message_id)

    def screen(self, chat_id: int, thread: int | None = None) -> list[Shown]:
        """What the chat's members see now: each text message's latest text and buttons, by
        whom, oldest first (a user's private chat id is his user id)."""
        return screen(self.state, chat_id, thread)

    def sends_and_edits(self, chat_id: int, message_id: int | None = None) -> list[Hit]:
        """The bot's accepted sends and edits in a chat (of one message, if given), timed."""
        return self.limiter.hits(chat_id, message_id)

    def per_minute(self, chat_id: int, message_id: int | None = None) -> dict[int, int]:
        """Sends and edits by clock minute (its start time -> how many), as sends_and_edits."""
        return self.limiter.per_minute(chat_id, message_id)

    def busiest_minute(self, chat_id: int, message_id: int | None = None) -> int:
        """The most sends and edits in any 60 s (sliding, like Telegram's group budget)."""
        return self.limiter.busiest(chat_id, 60.0, message_id)

    def commands(
        self, scope: str | dict[str, Any] = "default", language_code: str = ""
    ) -> list[Command]:
        """The commands set for exactly this scope and language (as getMyCommands answers)."""
        scope_dict = {"type": scope} if isinstance(scope, str) else scope
        return self.state.command_menus.get(scope_key(self.state, scope_dict), language_code)

    def visible_commands(self, user_id: int, chat_id: int | None = None) -> list[Command]:
        """The command menu this user sees in the chat (default: the private chat)."""
        return self.state.visible_commands(user_id, chat_id)

    def calls_to(self, *methods: str) -> list[Call]:
        return [call for call in self.calls if call.method in methods]

    def fail_next(
        self,
        method: str,
        times: int = 1,
        *,
        error_code: int = 500,
        description: str | None = None,
        retry_after: int | None = None,
        when: Callable[[dict[str, Any]], bool] | None = None,
    ) -> None:
        """Make the next `times` calls of `method` (matching `when(params)`) fail like this."""
        self.faults.fail_next(method, times, error_code=error_code, description=description,
                              retry_after=retry_after, when=when)

    @property
    def rate_limits(self) -> RateLimits:
        return self.limiter.limits

    @rate_limits.setter
    def rate_limits(self, limits: RateLimits) -> None:
        self.limiter.limits = limits

    @property
    def pending_updates(self) -> list[dict[str, Any]]:
        return self.state.updates.pending

    def offer_again(self, count: int) -> list[dict[str, Any]]:
        """Offer the bot the last `count` updates it confirmed once more (as Telegram does when
        the bot died before its confirming getUpdates arrived); returns them."""
        again = self.state.updates.offer_again(count)
        self._wake()
        return again
