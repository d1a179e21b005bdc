"""The Mini App's pictures for the docs, taken in Debian's Chromium at phone size (360×640 CSS
pixels at device scale 2) from the real bot against the emulator:

    PYTHONPATH=. python bench/screenshots.py [--out docs/images]

- mini-app-light.png, mini-app-dark.png: Alice's private game against the computer, mid-round,
  in Telegram's light and dark themes;
- mini-app-group-ru.png: a group's table of four seats (three people and a computer) in
  Russian, dark;
- mini-app-six-ru-{360,390}-{light,dark}.png: six at a table (a person and five computers, the
  whole deck dealt), in Russian, at 360×640 and 390×844, in both themes: the person is to beat
  a card thrown in;
- mini-app-quick.png: the app opened with no table, the quick game with people: Alice
  chooses a game for three (waiting for it beside another person: `QuickLook(waiting=True)`);
- local-web.png: `python -m tg_durak local --web`, the emulator's Telegram-like page, with the
  private chat of a game (a desktop window).

The timers run at real speed (TIME_SCALE 1): nothing moves while a picture is taken. Emoji
(🤖) need a colour emoji font, as on a phone: Debian's fonts-noto-color-emoji.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from playwright.async_api import Browser, Page, async_playwright

from tests.browser.tables import (
    Person,
    has_written,
    launch_url,
    six_players_mid_round,
    store_table,
)
from tests.browser.tables import game_message as app_message
from tg_durak.app import BotApp
from tg_durak.config import Settings
from tg_durak.emulator import DARK_THEME, LIGHT_THEME, FakeTelegram
from tg_durak.emulator.models import Message
from tg_durak.local_web import free_port, running

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run", "--disable-sync"]
SMALL, TALL = {"width": 360, "height": 640}, {"width": 390, "height": 844}
PHONE = {"viewport": SMALL, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
GROUP = -1001234567890
WAIT_MS = 60_000


def game_message(tg: FakeTelegram, user_id: int) -> Message | None:
    for m in reversed(tg.messages(user_id)):
        if any(b.callback_data and b.callback_data.startswith("m:")
               for row in m.buttons for b in row):
            return m
    return None


def web_app_button(message: Message) -> str:
    return next(b.text for row in message.buttons for b in row if b.web_app)


async def press_lobby(tg: FakeTelegram, user_id: int, message: Message, verb: str,
                      value: str | None = None) -> None:
    """A tap on the lobby's button of `verb` (render/callbacks.py LobbyVerb), whatever its
    language."""
    current = tg.message(message.chat_id, message.message_id)
    for row in current.buttons:
        for b in row:
            parts = (b.callback_data or "").split(":")
            if parts[0] == "g" and parts[2] == verb and value in (None, parts[3]):
                await tg.press(user_id, current, b)
                return
    raise LookupError(f"no lobby button {verb!r}: {current.buttons}")


async def settled(page: Page) -> None:
    """Connected, drawn, and no card still flying."""
    await page.wait_for_function(
        "() => document.body.dataset.connected === '1' && document.getAnimations().length === 0",
        timeout=WAIT_MS)


async def mid_round(page: Page) -> None:
    """Plays the first playable card if she leads, then waits for a card on the table and the
    computer's answer to it: the table mid-round."""
    await page.wait_for_function("() => document.body.dataset.input === '1'", timeout=WAIT_MS)
    leads = await page.locator("#pairs .pair").count() == 0
    if leads:
        await page.locator("#hand .card.playable").first.click()
        await page.wait_for_function(
            "() => document.querySelector('#pairs .pair.beaten') || "
            "document.querySelector('#seats .seat[data-role=taking]')", timeout=WAIT_MS)
    else:
        await page.wait_for_function("() => document.querySelector('#pairs .pair')",
                                     timeout=WAIT_MS)
    await settled(page)


async def phone_page(browser: Browser, url: str, dark: bool, locale: str,
                     viewport: dict[str, int] = SMALL) -> Page:
    context = await browser.new_context(**{**PHONE, "viewport": viewport}, locale=locale,
                                        color_scheme="dark" if dark else "light")
    await context.route("https://telegram.org/**", lambda route: route.abort())
    page = await context.new_page()
    await page.goto(url)
    return page


@asynccontextmanager
async def serving_mini_app(tg: FakeTelegram, db: str) -> AsyncIterator[BotApp]:
    """The bot on `db` with its Mini App on a free port, registered with the emulator."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    tg.set_web_app(url)
    app = BotApp(Settings(token=tg.token, db_path=db, api_url=tg.url, time_scale=1.0,
                          log_level="WARNING", webapp_url=url, web_port=port))
    await app.start()
    try:
        yield app
    finally:
        await app.stop()


async def private_shots(browser: Browser, out: Path, db: str) -> None:
    async with FakeTelegram() as tg:
        tg.add_user(501, "Alice", language_code="en")
        tg.add_user(502, "Bob", language_code="en")
        async with serving_mini_app(tg, db):
            for user, theme, dark, name in ((501, LIGHT_THEME, False, "mini-app-light.png"),
                                            (502, DARK_THEME, True, "mini-app-dark.png")):
                await tg.send_text(user, "/start")
                greeting = await tg.wait_for(lambda u=user: tg.last_message(u))
                await tg.press(user, greeting, "▶ Play")
                message = await tg.wait_for(lambda u=user: game_message(tg, u))
                page = await phone_page(browser, tg.open_web_app(
                    user, message, web_app_button(message), theme=theme), dark, "en-US")
                await mid_round(page)
                await page.screenshot(path=out / name)
                await page.context.close()


RU_PEOPLE = ((601, "Алиса"), (602, "Борис"), (603, "Вера"))


async def group_shot(browser: Browser, out: Path, db: str) -> None:
    async with FakeTelegram() as tg:
        for user, name in RU_PEOPLE:
            tg.add_user(user, name, language_code="ru")
        tg.add_group(GROUP, "Клуб", members=[u for u, _ in RU_PEOPLE], creator=601)
        async with serving_mini_app(tg, db):
            for user, _ in RU_PEOPLE:
                await tg.send_text(user, "/start")
            await tg.send_text(601, "/new@durak_test_bot", chat_id=GROUP)
            lobby = await tg.wait_for(lambda: tg.last_message(GROUP))
            for user, _ in RU_PEOPLE[1:]:
                await press_lobby(tg, user, lobby, "j")
            await press_lobby(tg, 601, lobby, "c")   # the fourth seat: a full lobby starts
            message = await tg.wait_for(lambda: game_message(tg, 602))
            page = await phone_page(browser, tg.open_web_app(
                602, message, web_app_button(message), theme=DARK_THEME), True, "ru-RU")
            await settled(page)
            await page.wait_for_function("() => document.querySelector('#pairs .pair')",
                                         timeout=WAIT_MS)
            await settled(page)
            await page.screenshot(path=out / "mini-app-group-ru.png")
            await page.context.close()


async def quiet(page: Page, seconds: float = 1.5) -> None:
    """Until the table has not changed for `seconds` (the computers threw in all they would)."""
    version = None
    while version != await page.evaluate("document.body.dataset.version"):
        version = await page.evaluate("document.body.dataset.version")
        await asyncio.sleep(seconds)
    await settled(page)


async def six_players_shots(browser: Browser, out: Path, db: str) -> None:
    person = Person(601, "Алиса", "ru")
    async with FakeTelegram() as tg:
        await has_written(tg, person)
        await store_table(db, six_players_mid_round(time.time()), person)
        async with serving_mini_app(tg, db):
            message = await tg.wait_for(lambda: app_message(tg, person))
            for size, viewport in (("360", SMALL), ("390", TALL)):
                for theme, dark, look in ((LIGHT_THEME, False, "light"),
                                          (DARK_THEME, True, "dark")):
                    page = await phone_page(browser, launch_url(tg, person, message, theme=theme),
                                            dark, "ru-RU", viewport)
                    await page.wait_for_function("() => document.body.dataset.input === '1'",
                                                 timeout=WAIT_MS)
                    await quiet(page)
                    await page.screenshot(path=out / f"mini-app-six-ru-{size}-{look}.png")
                    await page.context.close()


@dataclass(frozen=True)
class QuickLook:
    """One picture of the quick game in the app: its file, language, theme, size, and whether
    the person waits (with another, for a game of three) or is still choosing."""

    name: str
    language: str = "en"
    dark: bool = False
    viewport: tuple[int, int] = (SMALL["width"], SMALL["height"])
    waiting: bool = False


QUICK_NAMES = {"en": ("Alice", "Bob"), "ru": ("Алиса", "Борис"), "uk": ("Аліса", "Богдан"),
               "pl": ("Alicja", "Bartek")}


async def quick_shots(browser: Browser, out: Path, db: str, looks: Sequence[QuickLook]) -> None:
    async with FakeTelegram() as tg:
        people = 700
        async with serving_mini_app(tg, db):
            for look in looks:
                me, other = people + 1, people + 2
                people += 2
                for user, name in zip((me, other), QUICK_NAMES[look.language], strict=True):
                    tg.add_user(user, name, language_code=look.language)
                    await tg.send_text(user, "/start")
                    await tg.wait_for(lambda u=user: tg.last_message(u))
                link = f"https://t.me/{tg.state.bot.username}?startapp"
                pages = []
                for user in (other, me) if look.waiting else (me,):
                    width, height = look.viewport
                    page = await phone_page(
                        browser, tg.open_start_app(user, link, user,
                                                   theme=DARK_THEME if look.dark else LIGHT_THEME),
                        look.dark, look.language, {"width": width, "height": height})
                    await page.locator(".home-option").first.wait_for(timeout=WAIT_MS)
                    await page.locator(".home-option").nth(3).click()   # three players
                    await page.wait_for_function(
                        "() => document.querySelectorAll('.home-option')[3]"
                        ".getAttribute('aria-pressed') === 'true'", timeout=WAIT_MS)
                    if look.waiting:
                        await page.locator(".home .action").click()
                        await page.locator(".home-waiting").wait_for(timeout=WAIT_MS)
                    pages.append(page)
                page = pages[-1]
                if look.waiting:
                    await page.locator(".home-seat.taken").nth(1).wait_for(timeout=WAIT_MS)
                # an empty seat breathes for ever: the picture is taken with it at rest
                await page.screenshot(path=out / look.name, animations="disabled")
                for page in pages:   # out of the queue: the next picture's people wait alone
                    if look.waiting:
                        await page.locator(".home .action.quiet").click()
                        await page.locator(".home-option").first.wait_for(timeout=WAIT_MS)
                    await page.context.close()


async def local_web_shot(browser: Browser, out: Path, db: str) -> None:
    async with running(db, time_scale=1.0, language="en") as pieces:
        tg = pieces.tg
        await tg.send_text(501, "/start")
        greeting = await tg.wait_for(lambda: tg.last_message(501))
        await tg.press(501, greeting, "▶ Play")
        await tg.wait_for(lambda: game_message(tg, 501))
        context = await browser.new_context(viewport={"width": 1100, "height": 760},
                                            device_scale_factor=1)
        page = await context.new_page()
        # Alice's window, her private chat with the bot open (the client's own URL parameters)
        await page.goto(f"{pieces.url}?as=alice#chat=501")   # (it polls: never network-idle)
        await page.get_by_text("Trump").last.wait_for(timeout=WAIT_MS)
        await page.screenshot(path=out / "local-web.png")
        await context.close()


async def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                await private_shots(browser, out, f"{tmp}/private.sqlite3")
                await group_shot(browser, out, f"{tmp}/group.sqlite3")
                await six_players_shots(browser, out, f"{tmp}/six.sqlite3")
                await quick_shots(browser, out, f"{tmp}/quick.sqlite3",
                                  [QuickLook("mini-app-quick.png", waiting=False)])
                await local_web_shot(browser, out, f"{tmp}/local.sqlite3")
            finally:
                await browser.close()
    for png in sorted(out.glob("*.png")):
        print(f"{png}: {png.stat().st_size // 1024} KB")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/images"))
    asyncio.run(main(parser.parse_args().out))
