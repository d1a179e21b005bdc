"""Building and running the bot: factories for the dispatcher, start-up and shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from aiogram import Bot, Dispatcher
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.types import BotCommand, BotCommandScopeAllGroupChats

from tg_durak.api_responses import hold_response_models
from tg_durak.collector import settle_after_start
from tg_durak.computer import ComputerPlayers
from tg_durak.config import Settings
from tg_durak.handlers import commands, game, group, guards, lobby, menus
from tg_durak.i18n import DEFAULT_LOCALE, LOCALES, make_i18n, translator
from tg_durak.middlewares import PlayerLocaleMiddleware
from tg_durak.publisher import Publisher
from tg_durak.stats import report_on_signal
from tg_durak.store import Store
from tg_durak.tables import TableService
from tg_durak.throttle import Throttle

log = logging.getLogger(__name__)

COMMANDS = ("play", "quit", "stats", "rules", "lang", "help", "start")
GROUP_COMMANDS = ("new", "stats", "top", "leave", "kick", "help")
HEARTBEAT_SECONDS = 5.0


def build_bot(settings: Settings) -> Bot:
    hold_response_models()
    session = None
    if settings.api_url:
        session = AiohttpSession(api=TelegramAPIServer.from_base(settings.api_url))
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
    """One running bot: store, publisher, table service and polling, started and stopped."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.bot = build_bot(settings)
        self._tasks: list[asyncio.Task] = []

    async def start(self) -> None:
        try:
            self.store = await Store.open(self.settings.db_path)
        except BaseException:
            await self.bot.session.close()
            raise
        self.computers = ComputerPlayers()
        self.publisher = Publisher(self.bot, self._on_new_message,
                                   on_blocked=self._on_blocked, on_migrated=self._on_migrated,
                                   private_interval=self.settings.edit_interval)
        self.tables = TableService(self.store, self.publisher, self.computers,
                                   time_scale=self.settings.time_scale)
        self.dp = build_dispatcher(self.store, self.tables)
        await self.publisher.start()
        await self.bot.delete_webhook()
        self.tables.bot_username = (await self.bot.me()).username
        await register_commands(self.bot)
        resumed = await self.tables.resume()
        log.info("resumed %d running tables", resumed)
        report_on_signal({"tables": self.tables, "publisher": self.publisher,
                          "computers": self.computers})
        self._tasks = [
            asyncio.create_task(self._heartbeat()),
            asyncio.create_task(self.dp.start_polling(self.bot, handle_signals=False,
                                                      close_bot_session=False)),
        ]

    async def _on_new_message(self, key: object, chat_id: int, message_id: int) -> None:
        await self.tables.on_new_message(key, chat_id, message_id)

    async def _on_blocked(self, chat_id: int) -> None:
        await self.tables.chat_refused(chat_id)

    async def _on_migrated(self, old_chat_id: int, new_chat_id: int) -> None:
        await self.tables.migrate_chat(old_chat_id, new_chat_id)

    async def _heartbeat(self) -> None:
        while True:
            await self.tables.heartbeat()
            await asyncio.sleep(HEARTBEAT_SECONDS)

    async def wait(self) -> None:
        await asyncio.gather(*self._tasks)

    async def stop(self) -> None:
        with contextlib.suppress(RuntimeError):
            await self.dp.stop_polling()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.tables.close()
        with contextlib.suppress(TimeoutError):
            await self.publisher.flush(timeout=3.0)
        await self.publisher.stop()
        await self.tables.heartbeat()
        await self.store.close()
        await self.computers.close()
        await self.bot.session.close()


async def run(settings: Settings) -> None:
    app = BotApp(settings)
    await app.start()
    settle_after_start()   # the bot's own process only: tests start many apps in theirs
    try:
        await app.wait()
    finally:
        await app.stop()
