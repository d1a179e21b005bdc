"""Building and running the bot: factories for the dispatcher, start-up and shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sqlite3
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from importlib.metadata import version
from typing import TYPE_CHECKING

from aiogram import Bot, Dispatcher, Router
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import PRODUCTION, TelegramAPIServer
from aiogram.exceptions import (
    ClientDecodeError,
    TelegramAPIError,
    TelegramBadRequest,
    TelegramConflictError,
    TelegramNotFound,
    TelegramUnauthorizedError,
)
from aiogram.types import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeChat,
    WebhookInfo,
)
from prometheus_client import CollectorRegistry

from tg_durak.config import Settings
from tg_durak.i18n.translate import DEFAULT_LOCALE, LOCALES, translator
from tg_durak.observe.counting import TelegramRequests, UpdateTimes
from tg_durak.observe.metrics import StatsCollector, build_info, open_by_kind
from tg_durak.observe.readiness import Check, Readiness, answers, schema_current
from tg_durak.observe.routes import HealthRoutes
from tg_durak.observe.store import TransactionTimes
from tg_durak.ops.gc_tuning import settle_after_start
from tg_durak.ops.pruning import prune_daily
from tg_durak.ops.stats import final_report, keep_writing, report_on_signal
from tg_durak.outbox.publisher import Publisher
from tg_durak.outbox.reports import OutboxReports
from tg_durak.play.ratings import rate
from tg_durak.storage import (
    NoDatabase,
    Store,
    StoreUnavailable,
    is_postgres,
    redacted,
)
from tg_durak.tables.computers import ComputerPlayers
from tg_durak.tables.core import TableDisplay, unheard
from tg_durak.tables.languages import PlayerLanguages
from tg_durak.tables.lobby_notices import LobbyNotices
from tg_durak.tables.quick_games import NO_QUEUE_APPS, QuickGameEnds, QuickGames, Waiting
from tg_durak.tables.repeating import repeat
from tg_durak.tables.screens import ChatLinks
from tg_durak.tables.service import TableService
from tg_durak.telegram.bans import BanGate
from tg_durak.telegram.handlers import (
    commands,
    failures,
    game,
    group,
    guards,
    inline,
    lobby,
    maintenance,
    menus,
    notify,
    operators,
    privacy,
    quick,
)
from tg_durak.telegram.handlers.operators import OperatorDesk, operator_desk
from tg_durak.telegram.last_menus import LastMenus
from tg_durak.telegram.middlewares import PlayerLocaleMiddleware, make_i18n
from tg_durak.telegram.response_models import hold_response_models
from tg_durak.telegram.retry import TelegramRetry
from tg_durak.telegram.throttle import Throttle
from tg_durak.telegram.update_claims import Delivery
from tg_durak.telegram.webhook import WebhookRoute

if TYPE_CHECKING:   # the Mini App's modules are imported only where it is served
    from tg_durak.outbox.redis_gate import RedisGate
    from tg_durak.webapp.relay import AppPresence, RelayChannel
    from tg_durak.webapp.sockets import AppSockets

log = logging.getLogger(__name__)

COMMANDS = ("play", "quit", "stats", "top", "rules", "lang", "privacy", "help", "start")
OPERATOR_COMMANDS = ("ban", "unban", "broadcast", "maintenance", "opstats")
GROUP_COMMANDS = ("new", "stats", "top", "leave", "kick", "notify", "help")
HEARTBEAT_SECONDS = 5.0
# A stop's steps, bounded so that a SIGTERM is done within 5 s (a supervisor's patience).
POLLING_STOP_SECONDS = 0.5
DRAIN_SECONDS = 1.0     # updates under way; those still there then are cancelled
FLUSH_SECONDS = 1.5     # screens still to send
SENDING_SECONDS = 0.5   # requests already sent, waiting for Telegram's answer


@dataclass(frozen=True)
class Relayed:
    """The other processes' side of the Mini App: their channel, and who has it open there."""

    channel: RelayChannel
    presence: AppPresence


@dataclass(frozen=True)
class AppSide:
    """What the table service is handed of the Mini App: the open apps (`sockets`), whatever
    shows its changes beside the chat (`displays`) and hears each stored one (`committed`)."""

    sockets: AppSockets
    displays: Sequence[TableDisplay]
    committed: Callable[[int], None]
    relayed: Relayed | None


class StartFailed(Exception):
    """The bot could not start, for a reason that may pass (Telegram unreachable, retries
    included; the database locked by another process). The message is one line for the
    operator, saying what to check."""


class SettingRefused(StartFailed):
    """A setting is wrong (Telegram refused the token, the database cannot be opened): starting
    again unchanged would fail the same way."""


class AnotherInstance(Exception):
    """Another instance of the bot polls with the same token: this one stopped."""


def _telegram_failure(exc: Exception, settings: Settings) -> StartFailed:
    """What start-up's failed request to Telegram tells the operator."""
    where = settings.api_url or PRODUCTION.base.split("/bot", 1)[0]
    if isinstance(exc, TelegramUnauthorizedError | TelegramNotFound):
        return SettingRefused(
            f"Telegram at {where} refused the token ({exc.message}): check BOT_TOKEN (the token "
            "@BotFather gave; a revoked one stops working) and TELEGRAM_API_URL")
    if isinstance(exc, ClientDecodeError):
        return SettingRefused(f"{where} does not answer like Telegram's Bot API: check "
                              "TELEGRAM_API_URL")
    return StartFailed(
        f"cannot reach Telegram at {where} ({type(exc).__name__}: {exc}), after retries: check "
        "the network, TELEGRAM_API_URL and BOT_TOKEN, then start again")


def _open_and_close(path: str) -> None:
    sqlite3.connect(path).close()


def build_bot(settings: Settings) -> Bot:
    hold_response_models()
    api = TelegramAPIServer.from_base(settings.api_url) if settings.api_url else PRODUCTION
    session = AiohttpSession(api=api, timeout=settings.request_timeout)
    return Bot(settings.token, session=session,
               default=DefaultBotProperties(parse_mode="HTML"))


def _routers() -> list[Router]:
    return [guards.router(), quick.router(), notify.router(), privacy.router(),
            commands.router(), group.router(),
            lobby.router(), inline.router(), commands.group_router(), menus.router(),
            game.router(),
            failures.router()]   # the last, errors only: whatever any handler met


def used_update_types() -> list[str]:
    """The update types the bot's handlers take: what Telegram is to send it."""
    dp = Dispatcher(disable_fsm=True)
    dp.include_routers(*_routers())
    return dp.resolve_used_update_types()


def build_dispatcher(store: Store, tables: TableService, publisher: Publisher,
                     quick_games: QuickGames | None = None,
                     desk: OperatorDesk | None = None,
                     keep_days: int | None = None) -> Dispatcher:
    """`desk`: the operators' commands, bans and maintenance (None: a dispatcher without
    them, for a test of the routing)."""
    dp = Dispatcher(disable_fsm=True)   # no handler keeps a state: no record per person
    dp["store"] = store
    dp["tables"] = tables
    dp["publisher"] = publisher
    dp["keep_days"] = keep_days   # what /privacy says of the finished games' logs
    if quick_games is not None:
        dp["quick"] = quick_games
    dp["menus"] = LastMenus()
    # First: a flood costs no store, table or render.
    throttle = Throttle(tables.languages.of, tables.core.time_scale)
    dp.message.outer_middleware(throttle)
    dp.callback_query.outer_middleware(throttle)
    if desk is not None:   # then a banned person's update goes no further
        for name, value in desk.data().items():
            dp[name] = value
        gate = BanGate(desk.moderation, store, publisher, tables.languages.of)
        dp.message.outer_middleware(gate)
        dp.callback_query.outer_middleware(gate)
        dp.inline_query.outer_middleware(gate)
        # Before the guards (a broadcast's text is long); then new games refused meanwhile.
        dp.include_routers(operators.router(desk.operators), maintenance.router())
    locale = PlayerLocaleMiddleware(make_i18n(), store, tables.absences.mark_reachable)
    dp.message.outer_middleware(locale)
    dp.callback_query.outer_middleware(locale)
    dp.inline_query.outer_middleware(locale)   # not throttled: a query comes as he types
    dp.include_routers(*_routers())
    return dp


async def set_webhook(settings: Settings, *, delete: bool = False) -> WebhookInfo:
    """Register DURAK_WEBHOOK_URL with its secret (once, from a deploy step: each process that
    set it as it starts would take the updates' queue from the others' feet), or with `delete`
    remove it (back to polling). Updates already waiting are kept either way. Returns what
    Telegram then says of the webhook; StartFailed or SettingRefused as start-up's."""
    bot = build_bot(settings)
    bot.session.middleware(TelegramRetry(on_refused=lambda error: None))   # no getUpdates here
    try:
        if delete:
            await bot.delete_webhook(drop_pending_updates=False)
        else:
            url, secret = settings.require_webhook()
            await bot.set_webhook(url, secret_token=secret, allowed_updates=used_update_types(),
                                  drop_pending_updates=False)
        return await bot.get_webhook_info()
    except TelegramBadRequest as exc:   # "bad webhook: ...": the address, or the secret
        raise SettingRefused(f"Telegram refused the webhook ({exc.message}): check "
                             "DURAK_WEBHOOK_URL and DURAK_WEBHOOK_SECRET") from exc
    except (TelegramAPIError, ClientDecodeError) as exc:
        raise _telegram_failure(exc, settings) from exc
    finally:
        await bot.session.close()


async def register_commands(bot: Bot, operators: Collection[int] = ()) -> None:
    """The command menus, private and in groups, in every language we speak (and English for
    everyone else); in each operator's private chat his commands too."""
    groups = BotCommandScopeAllGroupChats()
    for code in (None, *LOCALES):
        t = translator(code or DEFAULT_LOCALE)
        private = [BotCommand(command=c, description=t(f"cmd.{c}")) for c in COMMANDS]
        await bot.set_my_commands(private, language_code=code)
        cmds = [BotCommand(command=c, description=t(f"cmd.group.{c}")) for c in GROUP_COMMANDS]
        await bot.set_my_commands(cmds, scope=groups, language_code=code)
        theirs = private + [BotCommand(command=c, description=t(f"cmd.{c}"))
                            for c in OPERATOR_COMMANDS]
        for operator in sorted(operators):
            try:
                await bot.set_my_commands(theirs, scope=BotCommandScopeChat(chat_id=operator),
                                          language_code=code)
            except TelegramBadRequest as exc:   # he has not opened the bot yet
                log.warning("operator %s gets his command menu at a start after he opens the "
                            "bot (Telegram: %s)", operator, exc.message)


class BotApp:
    """One running bot: store, publisher, table service and its updates (long polling, or
    Telegram's posts to the webhook with `webhook`), started and stopped.

    `start` brings the parts up one by one; `stop` takes down those that came up, the last
    first, each step bounded so that the whole stop takes less than 5 s: polling ends or the
    webhook answers 503 (no new update), the updates under way finish, the timers stop, the
    publisher flushes, the heartbeat is written, the computer players' pool stops and the
    database closes (SQLite folds its write-ahead log back into the file). A start that fails
    half-way stops the same.
    """

    def __init__(self, settings: Settings, *, webhook: bool = False) -> None:
        if webhook:
            settings.require_webhook()   # ConfigError before anything starts
        self.settings = settings
        self.by_webhook = webhook
        self.webhook: WebhookRoute | None = None
        self.bot = build_bot(settings)
        # Telegram's refusal of getUpdates that stopped the bot: another instance polls with
        # the same token (409), or the token was revoked (401).
        self.refused: TelegramAPIError | None = None
        self._tasks: list[asyncio.Task] = []
        self._stop_asked = asyncio.Event()
        self._stack = contextlib.AsyncExitStack()
        # One registry per bot: tests run several in one process.
        self.registry = CollectorRegistry()
        build_info(self.registry, version("tg-durak"))

    async def start(self) -> None:
        try:
            await self._start()
        except BaseException:
            await self._stack.aclose()
            raise

    async def _start(self) -> None:
        later = self._stack
        later.push_async_callback(self.bot.session.close)
        self.bot.session.middleware(TelegramRetry(on_refused=self._polling_refused))
        self.bot.session.middleware(TelegramRequests(self.registry))   # inside: each attempt
        try:
            # aiosqlite's thread outlives a connection that failed to open and, once the loop
            # is closed, reports that with a traceback: such a file is refused here first.
            if not is_postgres(self.settings.db_path):
                await asyncio.to_thread(_open_and_close, self.settings.db_path)
            self.store = await Store.open(self.settings.db_path, rate=rate,
                                          timer=TransactionTimes(self.registry))
        except StoreUnavailable as exc:
            raise StartFailed(f"the database {redacted(self.settings.db_path)} refuses writes"
                              f" ({exc}): "
                              "is another process holding it, or the disk full?") from exc
        except (OSError, sqlite3.Error, NoDatabase) as exc:   # SchemaTooNew says what to do
            raise SettingRefused(f"cannot open the database {redacted(self.settings.db_path)}"
                                 f" ({exc}): "
                                 "check DURAK_DB (a writable SQLite file or a postgresql://"
                                 " address)") from exc
        later.push_async_callback(self.store.close)
        self.computers = ComputerPlayers()
        later.push_async_callback(self.computers.close)
        self.computers.start()   # its workers warm the search kernel while the bot comes up
        reports = OutboxReports()
        gate = self._shared_gate()
        self.publisher = Publisher(self.bot, private_interval=self.settings.edit_interval,
                                   gate=gate, reports=reports)
        checks: dict[str, Check] = {"database": schema_current(self.store)}
        if gate is not None:
            checks["redis"] = answers(gate.redis)
        self.readiness = Readiness(checks)
        try:
            if not self.by_webhook:   # a webhook is set-webhook's, from a deploy step
                await self.bot.delete_webhook()
            me = await self.bot.me()
            await register_commands(self.bot, self.settings.operators)
        except (TelegramAPIError, ClientDecodeError) as exc:
            raise _telegram_failure(exc, self.settings) from exc
        settings = self.settings
        links = ChatLinks(me.username or "", settings.webapp_url, settings.webapp_name)
        # The Mini App's side is built first: the table service shows its tables to it.
        app_side = self._app_side()
        # Beside the chat's messages: a quick game's end offers each player the report, and a
        # group's new lobby tells those who asked for it there (/notify).
        languages = PlayerLanguages(self.store.users)
        lobby_notices = LobbyNotices(self.store, self.publisher, languages, links)
        later.push_async_callback(lobby_notices.close)
        told = (QuickGameEnds(self.publisher, languages), lobby_notices)
        # Those in the quick games' queue, as their messages and apps show them: whoever the
        # table service seats leaves it.
        waiting = Waiting(self.store, self.publisher, languages,
                          NO_QUEUE_APPS if app_side is None else app_side.sockets, time.time)
        if app_side is None:
            self.tables = TableService(self.store, self.publisher, self.computers, links=links,
                                       displays=told, reports=reports, seating=waiting,
                                       time_scale=settings.time_scale)
        else:
            self.tables = TableService(
                self.store, self.publisher, self.computers, links=links,
                displays=(*app_side.displays, *told), open_apps=app_side.sockets,
                committed=app_side.committed, reports=reports, seating=waiting,
                time_scale=settings.time_scale)
        self.delivery = Delivery(self.store, offered_again=self.by_webhook)
        self.desk = operator_desk(self.settings.operators, self.store, self.tables,
                                  self.publisher, self.registry)
        self.quick_games = QuickGames(self.tables, waiting, self.desk.moderation)
        self.dp = build_dispatcher(self.store, self.tables, self.publisher, self.quick_games,
                                   self.desk, self.settings.keep_days)
        self.dp.update.outer_middleware(UpdateTimes(self.registry))   # first: times it all
        self.dp.update.outer_middleware(self.delivery)
        self.counted = {"tables": self.tables, "publisher": self.publisher,
                        "computers": self.computers}
        self.registry.register(StatsCollector(
            self.counted, open_by_kind(self.tables.core.tables, self.tables.core.lobbies),
            self.readiness))
        later.callback(final_report, self.counted, self.settings.stats_file)
        later.push_async_callback(self._last_heartbeat)
        later.push_async_callback(self.tables.stop_reading_reports)
        await self.publisher.start()
        later.push_async_callback(self._flush_publisher)
        later.push_async_callback(self.tables.close)
        # Before the publisher's flush: a broadcast's last batch goes out and is stored.
        later.push_async_callback(self.desk.broadcasts.close, FLUSH_SECONDS)
        later.push_async_callback(self.desk.processes.stopped)
        await self._serve_web(app_side)
        resumed = await self.tables.resume()
        log.info("resumed %d running tables", resumed)
        self.quick_games.start()   # the queue as stored: it outlives every process
        later.push_async_callback(self.quick_games.close)
        report_on_signal(self.counted)
        self._tasks = [asyncio.create_task(
            repeat(self._beat, HEARTBEAT_SECONDS, "heartbeat not saved", log))]
        if self.settings.keep_days is not None:
            self._tasks.append(asyncio.create_task(
                prune_daily(self.store, self.settings.keep_days)))
        self.desk.broadcasts.start()   # one under way when the last process stopped goes on
        if (webhook := self.webhook) is not None:
            webhook.accept()
            self.readiness.ready(lambda: webhook.accepting)
        else:
            polling = asyncio.create_task(self.dp.start_polling(
                self.bot, handle_signals=False, close_bot_session=False))
            self._tasks.append(polling)
            self.readiness.ready(lambda: not polling.done())
        if self.settings.stats_file:
            self._tasks.append(asyncio.create_task(
                keep_writing(self.settings.stats_file, self.counted)))
        later.push_async_callback(self._stop_taking_updates)
        later.callback(self.readiness.stopping)   # the first step of a stop

    def _app_side(self) -> AppSide | None:
        """The Mini App's side of the tables, where it is served (DURAK_WEBAPP_URL): its
        sockets, and on a shared database with Redis what the other processes' apps are told
        and tell."""
        settings = self.settings
        if not settings.webapp_url:
            return None
        from tg_durak.webapp.sockets import Alone, AppSockets

        if not (self.store.shared and settings.redis_url is not None):
            sockets = AppSockets(time.time, Alone())
            return AppSide(sockets, (sockets,), unheard, None)
        # Several processes: the changes each makes reach the open apps of all of them.
        from tg_durak.webapp.relay import AppPresence, ChangeAnnouncer, connect

        channel = connect(settings.redis_url, f"durak:{self.bot.id}:")
        presence = AppPresence(channel, time.time)
        sockets = AppSockets(time.time, presence)
        announcer = ChangeAnnouncer(channel)
        return AppSide(sockets, (sockets, announcer), announcer.committed,
                       Relayed(channel, presence))

    async def _serve_web(self, app_side: AppSide | None) -> None:
        """The bot's web server on DURAK_WEB_HOST:DURAK_WEB_PORT: health, readiness and metrics
        always, the Mini App's page and sockets when it has one, the webhook's route in webhook
        mode."""
        from tg_durak.webapp.server import MiniApp, WebServer

        settings = self.settings
        self.web = WebServer(settings.web_host, settings.web_port)
        HealthRoutes(self.readiness, self.registry, settings.metrics_token).add_to(self.web.app)
        if app_side is not None and settings.webapp_url:
            self.web_app = MiniApp(self.tables, app_side.sockets, settings.token,
                                   settings.webapp_url, self.registry, self.desk.moderation,
                                   self.quick_games)
            self.web_app.add_to(self.web.app)
            self.counted["mini_app"] = app_side.sockets
        if self.by_webhook:
            self.webhook = WebhookRoute(self.dp, self.bot, *settings.require_webhook())
            self.webhook.add_to(self.web.app)
        try:
            await self.web.start()
        except OSError as exc:
            raise SettingRefused(f"the web server cannot listen on {settings.web_host}:"
                                 f"{settings.web_port} ({exc}): check DURAK_WEB_HOST and "
                                 "DURAK_WEB_PORT") from exc
        self._stack.push_async_callback(self.web.stop)
        if app_side is not None and app_side.relayed is not None:
            self._relay_tables(app_side.relayed)

    def _relay_tables(self, relayed: Relayed) -> None:
        """Several processes: what the others announce reaches the open apps here."""
        from tg_durak.webapp.relay import RelayListener

        listener = RelayListener(relayed.channel, self.tables.core.stored, self.web_app.sockets,
                                 relayed.presence)
        for part in (relayed.channel, relayed.presence, listener):
            part.start()
            self._stack.push_async_callback(part.close)
        self.counted["relay"] = listener

    def _polling_refused(self, error: TelegramAPIError) -> None:
        self.refused = error
        self.request_stop()

    def raise_refusal(self) -> None:
        """After a stop: the refusal of getUpdates that caused it, as the operator reads it."""
        if isinstance(self.refused, TelegramConflictError):
            raise AnotherInstance(
                "another instance of this bot is taking its updates (Telegram: "
                f"{self.refused.message}); run one instance per token")
        if self.refused is not None:
            raise _telegram_failure(self.refused, self.settings)

    async def _beat(self) -> None:
        self.desk.last_hour.sample()
        await self.desk.processes.beat()
        await self.tables.restart.heartbeat()
        self.readiness.beat()

    async def _last_heartbeat(self) -> None:
        """The downtime a restart gives back (R10.4) is counted from here."""
        try:
            await self.tables.restart.heartbeat()
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
            failure = task.exception() if task.done() and not task.cancelled() else None
            if failure is not None:
                raise failure

    async def _stop_taking_updates(self) -> None:
        """No update is taken any more (Telegram keeps the webhook's for another process, or
        for our next start); those under way finish (for a while)."""
        if self.webhook is not None:
            self.webhook.refuse()
        else:
            with contextlib.suppress(RuntimeError, TimeoutError):   # RuntimeError: not polling
                await asyncio.wait_for(self.dp.stop_polling(), POLLING_STOP_SECONDS)
        await self.delivery.drain(DRAIN_SECONDS)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def _shared_gate(self) -> RedisGate | None:
        """With DURAK_REDIS, the budgets this process shares with the others on its token."""
        if self.settings.redis_url is None:
            return None
        # Here, not at the top: one process needs nothing of Redis, not even the package.
        try:
            from tg_durak.outbox.redis_gate import connect
        except ImportError as exc:
            raise SettingRefused("DURAK_REDIS needs the redis package: "
                                 "pip install 'tg-durak[scale]'") from exc
        # The bot's id names its budgets: several bots may share one Redis.
        gate = connect(self.settings.redis_url, f"durak:{self.bot.id}:",
                       private_interval=self.settings.edit_interval)
        self._stack.push_async_callback(gate.close)
        return gate

    async def _flush_publisher(self) -> None:
        try:
            await self.publisher.flush(timeout=FLUSH_SECONDS)
        except TimeoutError:   # said, so that a screen left behind is never a mystery
            log.warning("stopping: %d screen(s) not sent in %.1f s are left for the next start",
                        self.publisher.stats()["queued"], FLUSH_SECONDS)
        # A request Telegram leaves unanswered (the network is down) is given up, not awaited.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.publisher.stop(), SENDING_SECONDS)

    async def stop(self) -> None:
        await self._stack.aclose()


async def run(settings: Settings, *, webhook: bool = False) -> None:
    """Run the bot (by webhook: taking Telegram's posts instead of polling) until SIGTERM or
    SIGINT, then stop it in order. StartFailed if it could not start; AnotherInstance or
    SettingRefused if Telegram refused its polling (a 409, a 401)."""
    app = BotApp(settings, webhook=webhook)
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
        return
    starting.result()
    settle_after_start()   # the bot's own process only: tests start many apps in theirs
    try:
        await app.wait()
    finally:
        await app.stop()
    app.raise_refusal()
