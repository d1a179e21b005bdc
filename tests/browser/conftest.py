"""The Mini App in a real browser: Debian's Chromium driven by Playwright, at phone size, against
the real bot (its web server on 127.0.0.1) and the emulated Telegram that signs the launches.

One Chromium per worker; every test gets fresh contexts (a context is one phone). A page's
console errors, uncaught exceptions and Content-Security-Policy violations fail the test: the
page must run clean under its own CSP. Telegram's script cannot be fetched here; its request is
aborted at once, as on a phone that cannot reach telegram.org (the page must work without it).

Playwright's objects belong to the event loop they were made in, so the browser, the bot and
the tests all run in the worker's one session loop (pytest-asyncio `loop_scope="session"`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import pytest
import pytest_asyncio
from playwright.async_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    Playwright,
    WebSocket,
    async_playwright,
    expect,
)

from engine import Game
from tests.bot.app_pages import serving_app
from tests.bot.conftest import ALICE, BOB, CALLBACK_TTL, settings_for
from tests.browser.tables import Person, game_message, has_written, launch_url, store_table
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]
SMALL, TALL = {"width": 360, "height": 640}, {"width": 390, "height": 844}   # phones' viewports
PHONE = {"viewport": SMALL, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
TELEGRAM_SCRIPT = "https://telegram.org/js/telegram-web-app.js"
WAIT_MS = 60_000   # a hang bound for one wait, not a speed target: the machine is shared
expect.set_options(timeout=WAIT_MS)   # expect() has its own default (5 s), not the context's

# Run before the page's own scripts (and outside its CSP). Chromium reports a CSP violation on
# the console, but only the page sees the event itself: every violation becomes an error. And
# every card the table (#pairs) ever showed is noted, by its accessible name: a round may close
# (its cards gone to the discard) sooner than a test looks.
PROBES = """
document.addEventListener('securitypolicyviolation', (event) => {
  console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI}`);
});
window.shownOnTable = new Set();
document.addEventListener('DOMContentLoaded', () => {
  new MutationObserver(() => {
    for (const card of document.querySelectorAll('#pairs .card[aria-label]')) {
      window.shownOnTable.add(card.getAttribute('aria-label'));
    }
  }).observe(document.body, {childList: true, subtree: true});
});
"""


@pytest.fixture(scope="session")
def chromium_path() -> str:
    # A missing browser is a broken machine, not a reason to skip: .ci/run installs it.
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install "
                    "chromium; .ci/run does) to run the Mini App's browser tests", pytrace=False)
    return CHROMIUM


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def playwright() -> AsyncIterator[Playwright]:
    async with async_playwright() as p:
        yield p


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def browser(playwright: Playwright, chromium_path: str) -> AsyncIterator[Browser]:
    browser = await playwright.chromium.launch(executable_path=chromium_path,
                                               args=CHROMIUM_ARGS)
    yield browser
    await browser.close()


# ---- the bot and Telegram, in the session loop (tests/bot/conftest.py has them per test loop)


@pytest_asyncio.fixture(loop_scope="session")
async def tg() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram(callback_ttl=CALLBACK_TTL) as fake:
        fake.add_user(ALICE, "Alice", language_code="en")
        fake.add_user(BOB, "Bob", language_code="en")
        yield fake


@pytest_asyncio.fixture(loop_scope="session")
async def app_bot(tg: FakeTelegram, db_path: str) -> AsyncIterator[BotApp]:
    """The bot with its Mini App served on 127.0.0.1 (and registered with the emulator)."""
    async with serving_app(tg, settings_for(tg, db_path)) as app:
        yield app


@dataclass(frozen=True)
class StoredTable:
    bot: BotApp
    table_id: int
    url: str   # where the person's app opens, from his game message


BotAt = Callable[..., Awaitable[StoredTable]]


@pytest_asyncio.fixture(loop_scope="session")
async def bot_at(tg: FakeTelegram, db_path: str) -> AsyncIterator[BotAt]:
    """`await bot_at(game, person)`: the game stored as the person's private table (he sits at
    seat 0, computers at the others; see tables.py), the bot started on it, and the URL his
    app opens at (`launch`: open_web_app's options). Ask for it before `phones`: the phones
    close before the bot stops."""
    async with contextlib.AsyncExitStack() as bots:
        async def start(game: Game, person: Person, **launch: object) -> StoredTable:
            await has_written(tg, person)
            table_id = await store_table(db_path, game, person)
            bot = await bots.enter_async_context(serving_app(tg, settings_for(tg, db_path)))
            message = await tg.wait_for(lambda: game_message(tg, person), timeout=WAIT_MS / 1000,
                                        what=f"{person.name}'s game message")
            return StoredTable(bot, table_id, launch_url(tg, person, message, **launch))
        yield start


# ---- phones


@dataclass(eq=False)   # one phone is one object: it may key a dict
class Phone:
    """One phone with the app open: its page, every frame its sockets received and sent, and
    what went wrong on it (console errors, uncaught exceptions, CSP violations)."""

    context: BrowserContext
    page: Page
    frames: list[dict] = field(default_factory=list)
    sent: list[dict] = field(default_factory=list)
    sockets: list[WebSocket] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    expected: list[re.Pattern[str]] = field(default_factory=list)

    def expect_problem(self, pattern: str) -> None:
        """A console error this test causes on purpose (e.g. a refused connection): not a
        fault of the page."""
        self.expected.append(re.compile(pattern))

    def unexpected_problems(self) -> list[str]:
        return [p for p in self.problems if not any(e.search(p) for e in self.expected)]

    def states(self) -> list[dict]:
        return [f for f in self.frames if f.get("type") == "state"]

    async def version(self) -> int:
        return int(await self.page.evaluate("document.body.dataset.version || '-1'"))

    async def newer_than(self, version: int) -> int:
        """Waits until the page shows a state newer than `version`; returns the new one."""
        await self.page.wait_for_function(
            "v => Number(document.body.dataset.version ?? -1) > v", arg=version,
            timeout=WAIT_MS)
        return await self.version()

    async def shown_on_table(self, label: str) -> None:
        """Waits until the table has shown the card named `label` (see PROBES)."""
        await self.page.wait_for_function("label => window.shownOnTable.has(label)", arg=label,
                                          timeout=WAIT_MS)

    async def close(self) -> None:
        await self.context.close()


OpenPhone = Callable[..., Awaitable[Phone]]


def _console_problem(message: ConsoleMessage) -> str | None:
    if message.type != "error":
        return None
    if message.location.get("url") == TELEGRAM_SCRIPT:
        return None   # its request is aborted here (see the module's docstring)
    return f"console error: {message.text} ({message.location.get('url')})"


@pytest_asyncio.fixture(loop_scope="session")
async def phones(browser: Browser) -> AsyncIterator[OpenPhone]:
    """`await phones(url)`: a new phone-size browser context (`viewport`: SMALL or TALL) with
    `url` opened in it. On teardown every phone is closed, and anything that went wrong on one
    fails the test. Its bot must stop after that: ask for the bot's fixture first."""
    phones: list[Phone] = []

    async def open_phone(url: str, *, locale: str = "en-US", color_scheme: str = "light",
                         viewport: dict[str, int] = SMALL) -> Phone:
        context = await browser.new_context(**{**PHONE, "viewport": viewport}, locale=locale,
                                            color_scheme=color_scheme)
        context.set_default_timeout(WAIT_MS)
        await context.route(TELEGRAM_SCRIPT, lambda route: route.abort())
        await context.add_init_script(PROBES)
        page = await context.new_page()
        p = Phone(context, page)
        phones.append(p)

        def on_socket(ws: WebSocket) -> None:
            p.sockets.append(ws)
            ws.on("framereceived", lambda payload: p.frames.append(json.loads(payload)))
            ws.on("framesent", lambda payload: p.sent.append(json.loads(payload)))

        page.on("websocket", on_socket)
        page.on("console", lambda m: (problem := _console_problem(m)) and p.problems.append(
            problem))
        page.on("pageerror", lambda error: p.problems.append(f"uncaught: {error}"))
        await page.goto(url)
        return p

    yield open_phone
    problems = [problem for p in phones for problem in p.unexpected_problems()]
    for p in phones:
        await p.close()
    assert not problems, "the page went wrong:\n" + "\n".join(problems)


@pytest.fixture
def phone(app_bot: BotApp, phones: OpenPhone) -> OpenPhone:
    """`phones` for the tests of `app_bot` (closed before it stops)."""
    return phones
