"""Building and running the bot: factories for the dispatcher, start-up and shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal

from aiogram import Bot, Dispatcher
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import PRODUCTION, TelegramAPIServer
from aiogram.types import BotCommand, BotCommandScopeAllGroupChats

from tg_durak.api_responses import hold_response_models
from tg_durak.collector import settle_after_start
from tg_durak.computer import ComputerPlayers
from tg_durak.config import Settings
from tg_durak.delivery import Delivery
from tg_durak.handlers import commands, failures, game, group, guards, lobby, menus
from tg_durak.i18n import DEFAULT_LOCALE, LOCALES, make_i18n, translator
from tg_durak.middlewares import PlayerLocaleMiddleware
from tg_durak.publisher import Publisher
from tg_durak.stats import final_report, keep_writing, report_on_signal
from tg_durak.store import Store, StoreUnavailable
from tg_durak.tables import TableService
from tg_durak.telegram_retry import TelegramRetry
from tg_durak.throttle import Throttle

log = logging.getLogger(__name__)

COMMANDS = ("play", "quit", "stats", "rules", "lang", "help", "start")
GROUP_COMMANDS = ("new", "stats", "top", "leave", "kick", "help")
HEARTBEAT_SECONDS = 5.0
# A stop's steps, bounded so that a SIGTERM is done within 5 s (a supervisor's patience).
POLLING_STOP_SECONDS = 0.5
DRAIN_SECONDS = 1.0     # updates under way; those still there then are cancelled
FLUSH_SECONDS = 1.5     # screens still to send
SENDING_SECONDS = 0.5   # requests already sent, waiting for Telegram's answer


def build_bot(settings: Settings) -> Bot:
    hold_response_models()
    api = TelegramAPIServer.from_base(settings.api_url) if settings.api_url else PRODUCTION
    session = AiohttpSession(api=api, timeout=settings.request_timeout)
    return Bot(settings.token, session=session,
               default=DefaultBotProperties(parse_mode="HTML"))


def build_dispatcher(store: Store, tables: TableService) -> Dispatcher:
    dp = Dispatcher()
    dp["store"] = store
    dp["tables"] = tables
    dp["publisher"] = tables.publisher
    # First: a flood costs no store, table or render.
    throttle = Throttle(tables.languages.of, tables.time_scale)
    dp.message.outer_middleware(throttle)
    dp.callback_query.outer_middleware(throttle)
    locale = PlayerLocaleMiddleware(make_i18n(), store, tables)
    dp.message.outer_middleware(locale)
    dp.callback_query.outer_middleware(locale)
    dp.include_routers(guards.router(), commands.router(), group.router(), lobby.router(),
                       commands.group_router(),
                       menus.router(), game.router())
    dp.include_router(failures.router())   # errors only: whatever any handler met
    return dp


async def register_commands(bot: Bot) -> None:
    """The command menus, private and in groups, in every language we speak (and English for
    everyone else)."""
    groups = BotCommandScopeAllGroupChats()
    for code in (None, *LOCALES):
        t = translator(code or DEFAULT_LOCALE)
        cmds = [BotCommand(command=c, description=t(f"cmd.{c}")) for c in COMMANDS]
        await bot.set_my_commands(cmds, language_code=code)
        cmds = [BotCommand(command=c, description=t(f"cmd.group.{c}")) for c in GROUP_COMMANDS]
        await bot.set_my_commands(cmds, scope=groups, language_code=code)


class BotApp:
    """One running bot: store, publisher, table service and polling, started and stopped.

    `start` brings the parts up one by one; `stop` takes down those that came up, the last
    first, each step bounded so that the whole stop takes less than 5 s: polling
    ends (no new update), the updates under way finish, the timers stop, the publisher flushes,
    the heartbeat is written, the computer players' pool stops and the database closes (SQLite
    folds its write-ahead log back into the file). A start that fails half-way stops the same.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.bot = build_bot(settings)
        # Telegram's words when another instance polls with the same token (a 409).
        self.conflict: str | None = None
        self._tasks: list[asyncio.Task] = []
        self._stop_asked = asyncio.Event()
        self._stack = contextlib.AsyncExitStack()

    async def start(self) -> None:
        try:
            await self._start()
        except BaseException:
            await self._stack.aclose()
            raise

    async def _start(self) -> None:
        later = self._stack
        later.push_async_callback(self.bot.session.close)
        self.bot.session.middleware(TelegramRetry(on_conflict=self._conflicted))
        self.store = await Store.open(self.settings.db_path)
        later.push_async_callback(self.store.close)
        self.computers = ComputerPlayers()
        later.push_async_callback(self.computers.close)
        self.publisher = Publisher(self.bot, self._on_new_message,
                                   on_blocked=self._on_blocked, on_migrated=self._on_migrated,
                                   private_interval=self.settings.edit_interval)
        self.tables = TableService(self.store, self.publisher, self.computers,
                                   time_scale=self.settings.time_scale)
        self.delivery = Delivery(self.store)
        self.dp = build_dispatcher(self.store, self.tables)
        self.dp.update.outer_middleware(self.delivery)
        self.counted = {"tables": self.tables, "publisher": self.publisher,
                        "computers": self.computers}
        later.callback(final_report, self.counted, self.settings.stats_file)
        later.push_async_callback(self._last_heartbeat)
        await self.publisher.start()
        later.push_async_callback(self._flush_publisher)
        later.push_async_callback(self.tables.close)
        await self.bot.delete_webhook()
        self.tables.bot_username = (await self.bot.me()).username
        await register_commands(self.bot)
        resumed = await self.tables.resume()
        log.info("resumed %d running tables", resumed)
        report_on_signal(self.counted)
        self._tasks = [
            asyncio.create_task(self._heartbeat()),
            asyncio.create_task(self.dp.start_polling(self.bot, handle_signals=False,
                                                      close_bot_session=False)),
        ]
        if self.settings.stats_file:
            self._tasks.append(asyncio.create_task(
                keep_writing(self.settings.stats_file, self.counted)))
        later.push_async_callback(self._stop_polling)

    async def _on_new_message(self, key: object, chat_id: int, message_id: int) -> None:
        await self.tables.on_new_message(key, chat_id, message_id)

    async def _on_blocked(self, chat_id: int) -> None:
        await self.tables.chat_refused(chat_id)

    async def _on_migrated(self, old_chat_id: int, new_chat_id: int) -> None:
        await self.tables.migrate_chat(old_chat_id, new_chat_id)

    def _conflicted(self, description: str) -> None:
        self.conflict = description
        self.request_stop()

    async def _heartbeat(self) -> None:
        while True:
            try:
                await self.tables.heartbeat()
            except StoreUnavailable as exc:   # the next beat may get through
                log.warning("heartbeat not saved: %s", exc)
            await asyncio.sleep(HEARTBEAT_SECONDS)

    async def _last_heartbeat(self) -> None:
        """The downtime a restart gives back (R10.4) is counted from here."""
        try:
            await self.tables.heartbeat()
        except StoreUnavailable as exc:
            log.warning("last heartbeat not saved: %s", exc)

    def request_stop(self) -> None:
        """Make `wait` return (a signal handler's call: only sets a flag)."""
        self._stop_asked.set()

    async def stop_asked(self) -> None:
        await self._stop_asked.wait()

    async def wait(self) -> None:
        """Until a stop is asked for (a signal, another instance polling) or a task ends; a task
        that ended by an error raises it."""
        asked = asyncio.create_task(self.stop_asked())
        try:
            await asyncio.wait([*self._tasks, asked], return_when=asyncio.FIRST_COMPLETED)
        finally:
            asked.cancel()
        for task in self._tasks:
            if task.done() and not task.cancelled() and task.exception() is not None:
                raise task.exception()

    async def _stop_polling(self) -> None:
        """No update is taken any more; those under way finish (for a while)."""
        with contextlib.suppress(RuntimeError, TimeoutError):   # RuntimeError: not polling
            await asyncio.wait_for(self.dp.stop_polling(), POLLING_STOP_SECONDS)
        await self.delivery.drain(DRAIN_SECONDS)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _flush_publisher(self) -> None:
        with contextlib.suppress(TimeoutError):
            await self.publisher.flush(timeout=FLUSH_SECONDS)
        # A request Telegram leaves unanswered (the network is down) is given up, not awaited.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.publisher.stop(), SENDING_SECONDS)

    async def stop(self) -> None:
        await self._stack.aclose()


async def run(settings: Settings) -> str | None:
    """Run the bot until SIGTERM or SIGINT, then stop it in order. Returns None, or Telegram's
    words when the bot stopped because another instance polls with the same token."""
    app = BotApp(settings)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):   # Windows: no signal handlers
            loop.add_signal_handler(sig, app.request_stop)
    starting = asyncio.create_task(app.start())
    asked = asyncio.create_task(app.stop_asked())
    await asyncio.wait([starting, asked], return_when=asyncio.FIRST_COMPLETED)
    asked.cancel()
    if not starting.done():   # a signal while starting (Telegram slow to answer, say)
        starting.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await starting
        return app.conflict
    starting.result()
    settle_after_start()   # the bot's own process only: tests start many apps in theirs
    try:
        await app.wait()
    finally:
        await app.stop()
    return app.conflict
