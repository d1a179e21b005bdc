"""`python -m tg_durak local`: play in this terminal, no Telegram token needed.

The real bot runs against the Bot API emulator on 127.0.0.1; this client is the phone. It shows
your private chat's latest message with its buttons numbered: type a number to tap a button, or
a command such as /play, /rules, /lang; `q` quits.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import os
import sys
import tempfile
from pathlib import Path

from tg_durak.app import BotApp
from tg_durak.config import Settings
from tg_durak.emulator import FakeTelegram
from tg_durak.i18n import pick_locale

USER_ID = 1001


def render_chat(tg: FakeTelegram, chat_id: int, notice: str | None) -> tuple[str, list]:
    """The chat as text with numbered buttons, and the buttons in that order.

    It shows the newest bot message and, above it, the most recently changed earlier one that
    has buttons (the game message keeps changing while a /lang or /rules answer arrives below).
    """
    messages = [m for m in tg.messages(chat_id) if m.from_bot]
    if not messages:
        return "…", []
    *earlier, newest = messages
    live = [m for m in earlier if m.buttons]
    shown = [newest]
    if live:
        shown.insert(0, max(live, key=lambda m: (m.edit_date or m.date, m.message_id)))
    lines: list[str] = []
    buttons = []
    for message in shown:
        lines += [message.text, ""]
        for row in message.buttons:
            cells = []
            for button in row:
                if button.callback_data is None:
                    continue
                buttons.append((message, button))
                cells.append(f"[{len(buttons)}] {button.text}")
            lines.append("  ".join(cells))
        lines.append("")
    if notice:
        lines.append(f"» {notice}")
    lines.append("number = tap · /command · q = quit")
    return "\n".join(lines), buttons


class Terminal:
    def __init__(self, tg: FakeTelegram, out=sys.stdout) -> None:
        self.tg = tg
        self.out = out
        self.buttons: list = []
        self.notice: str | None = None
        self.clear = out.isatty()

    def draw(self) -> None:
        text, self.buttons = render_chat(self.tg, USER_ID, self.notice)
        if self.clear:
            self.out.write("\033[2J\033[H")
        else:
            self.out.write("\n" + "─" * 40 + "\n")
        self.out.write(text + "\n")
        self.out.flush()

    async def handle(self, line: str) -> bool:
        """One line typed by the player; False when he wants to leave."""
        line = line.strip()
        if line in ("q", "quit", "exit"):
            return False
        self.notice = None
        if line.isdigit() and 1 <= int(line) <= len(self.buttons):
            message, button = self.buttons[int(line) - 1]
            answer = await self.tg.press(USER_ID, message, button, timeout=30)
            self.notice = answer.text
        elif line:
            await self.tg.send_text(USER_ID, line)
        return True

    async def redraw_on_changes(self) -> None:
        queue = self.tg.subscribe(USER_ID)
        try:
            while True:
                await queue.get()
                await asyncio.sleep(0.05)  # let a burst of edits settle
                while not queue.empty():
                    queue.get_nowait()
                self.draw()
        finally:
            self.tg.unsubscribe(queue)


async def play(db_path: str, time_scale: float, language: str, name: str) -> None:
    async with FakeTelegram() as tg:
        tg.add_user(USER_ID, name, language_code=language)
        # The emulator has no flood limits: redraw faster than Telegram's ~1 edit/s allows.
        app = BotApp(Settings(token=tg.token, db_path=db_path, api_url=tg.url,
                              time_scale=time_scale, log_level="WARNING", edit_interval=0.2))
        await app.start()
        term = Terminal(tg)
        redraw = asyncio.create_task(term.redraw_on_changes())
        loop = asyncio.get_running_loop()
        try:
            await tg.send_text(USER_ID, "/start")
            while True:
                line = await loop.run_in_executor(None, sys.stdin.readline)
                if not line or not await term.handle(line):
                    break
        finally:
            redraw.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await redraw
            await app.stop()


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m tg_durak local", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--db", help="SQLite file to keep games in (default: a fresh temporary one)")
    p.add_argument("--speed", type=float, default=1.0,
                   help="multiply every game timer by this (e.g. 0.5 for a faster game)")
    p.add_argument("--lang", default=pick_locale(os.environ.get("LANG", "en").split(".")[0]),
                   help="your Telegram language: en, ru, uk or pl")
    p.add_argument("--name", default=getpass.getuser().capitalize() or "Player")
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        db = a.db or str(Path(tmp) / "durak-local.sqlite3")
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(play(db, a.speed, a.lang, a.name))
    return 0
