"""`python -m tg_durak local`: play in this terminal, no Telegram token needed (`--web`: in a
browser, tg_durak/local_web.py).

The real bot runs against the Bot API emulator on 127.0.0.1; this client is the phone. It shows
your private chat's latest message with its buttons numbered: type a number to tap a button, or
a command such as /play, /rules, /lang; `q` or Ctrl-C quits.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import math
import os
import signal
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from tg_durak.i18n.translate import Translator, pick_locale, translator

# The bot and the emulator are imported where the game starts (`play`): `python -m tg_durak
# --help` builds this command's options, and aiogram takes seconds to import.
if TYPE_CHECKING:
    from tg_durak.emulator import Change, FakeTelegram, InlineButton, Message
    from tg_durak.storage import Store

USER_ID = 1001
NUMBER_BLOCK = 10   # numbers a message holds: a hand may change size without moving the next
# How long a tap waits for the bot's answer before the terminal gives up on it.
PRESS_TIMEOUT = 30.0


class ChatOrder:
    """In which order the chat's messages arrived and last changed, as the terminal saw it.

    Message dates count whole seconds: too coarse to tell a menu from the game message sent in
    the same second.
    """

    def __init__(self) -> None:
        self._count = 0
        self.arrived: dict[int, int] = {}
        self.changed: dict[int, int] = {}
        self.numbers = Numbers()

    def note(self, change: Change) -> None:
        from tg_durak.emulator.models import ChangeKind  # loaded with the game: see above

        if change.message_id is None or change.kind not in (ChangeKind.MESSAGE, ChangeKind.EDIT):
            return
        self._count += 1
        self.changed[change.message_id] = self._count
        if change.kind == ChangeKind.MESSAGE:
            self.arrived[change.message_id] = self._count


@dataclass(frozen=True)
class Page:
    """What the player sees, and the button each number on it taps."""

    text: str
    buttons: dict[int, tuple[Message, InlineButton]]


def _taps(message: Message) -> list[list[InlineButton]]:
    return [[b for b in row if b.callback_data is not None] for row in message.buttons]


def shown_messages(messages: list[Message], order: ChatOrder) -> list[Message]:
    """The newest bot message and, above it, the most recently changed earlier one with buttons
    (the game message keeps changing while a /rules or /lang answer arrives below it) — unless
    the newest has buttons of its own and that earlier one has not changed since: an old menu.
    """
    if not messages:
        return []
    *earlier, newest = messages
    live = [m for m in earlier if any(_taps(m))]
    if not live:
        return [newest]
    latest = max(live, key=lambda m: (order.changed.get(m.message_id, 0), m.message_id))
    if any(_taps(newest)) and (order.changed.get(latest.message_id, 0)
                               < order.arrived.get(newest.message_id, 0)):
        return [newest]
    return [latest, newest]


# Marks the bot puts before a label (playable, chosen, on/off, transfer): the same button with or
# without one.
MARKS = "•✅⬜⇄ "


def _count(message: Message) -> int:
    return sum(map(len, _taps(message)))


def _identity(button: InlineButton) -> str:
    return button.text.lstrip(MARKS)


class Numbers:
    """Which number taps which button: what a person typed must mean what he saw.

    Each message with buttons holds a block of numbers (1-10, 11-20, ...; more blocks if it has
    more than ten buttons) for as long as it lives, and gets it back when it returns to the
    screen. A new message takes the lowest block that no message on this screen holds, nor one
    that has just left it with at least as many buttons (the game he was playing, not the
    greeting whose Play brought the game): a menu shown alone mid-game never takes the game's
    numbers, which the game has again when it comes back. Inside its block each button
    keeps its number while it is there (a card keeps its number as the hand shrinks; a drawn card
    takes a free one, but not one that a button had on the screen just before: a 5 typed for the
    card that has just left taps nothing rather than the Pass that came), and a button whose
    label is a number n gets the block's n-th number when free: typing 2 for two opponents taps
    "2".
    """

    def __init__(self) -> None:
        self.blocks: dict[int, int] = {}   # message id -> its first number
        self.keys: dict[tuple[int, str], int] = {}   # (message id, label) -> its number
        self.last_shown: dict[int, int] = {}   # message id -> its buttons
        self.last_numbers: dict[int, set[int]] = {}   # message id -> the numbers it showed

    def number(self, shown: list[Message]) -> dict[int, dict[int, int]]:
        """For each shown message, its buttons' numbers: position in the message -> number."""
        shown = [m for m in shown if any(_taps(m))]
        now = {m.message_id for m in shown}
        biggest = max((_count(m) for m in shown if m.message_id not in self.blocks), default=0)
        taken: set[int] = set()
        reserved = {self.blocks[i] for i, count in self.last_shown.items()
                    if i not in now and count >= biggest}
        continuing = sorted(shown, key=lambda m: (m.message_id not in self.last_shown,
                                                  m.message_id not in self.blocks))
        numbered: dict[int, dict[int, int]] = {}
        for message in continuing:
            buttons = [b for row in _taps(message) for b in row]
            span = [NUMBER_BLOCK * k for k in range(max(1, -(-len(buttons) // NUMBER_BLOCK)))]
            first = self.blocks.get(message.message_id)
            if first is None or any(first + k in taken or first + k in reserved for k in span):
                first = 1
                while any(first + k in taken or first + k in reserved for k in span):
                    first += NUMBER_BLOCK
            taken.update(first + k for k in span)
            self.blocks[message.message_id] = first
            numbered[message.message_id] = self._within(message.message_id, buttons, first,
                                                        first + NUMBER_BLOCK * len(span))
        self.last_shown = {m.message_id: _count(m) for m in shown}
        return numbered

    def _within(self, message_id: int, buttons: list[InlineButton], low: int, high: int
                ) -> dict[int, int]:
        """Each button's number in [low, high): kept, else its own value, else the lowest free one
        (one that no button had just before, while there is such)."""
        given: dict[int, int] = {}
        used: set[int] = set()

        def give(position: int, number: int | None) -> None:
            if position not in given and number is not None and low <= number < high \
                    and number not in used:
                given[position] = number
                used.add(number)

        labels = [_identity(b) for b in buttons]
        for position, label in enumerate(labels):
            give(position, self.keys.get((message_id, label)))
        # A screen with none of the buttons before is new to him: it numbers from the start.
        just_left = self.last_numbers.get(message_id, set()) if given else set()
        for position, label in enumerate(labels):
            if label.isascii() and label.isdigit():
                give(position, low - 1 + int(label))
        free = iter(sorted((n for n in range(low, high) if n not in used),
                           key=lambda n: (n in just_left, n)))
        for position in range(len(buttons)):
            if position not in given:
                give(position, next(free))
        for position, label in enumerate(labels):
            self.keys[message_id, label] = given[position]
        self.last_numbers[message_id] = set(given.values())
        return given


def render_screen(messages: list[Message], order: ChatOrder, t: Translator,
                  notice: str | None) -> Page:
    """The shown messages as text, each button with the number that taps it (`Numbers`)."""
    shown = shown_messages([m for m in messages if m.from_bot], order)
    numbered = order.numbers.number(shown)
    lines: list[str] = [] if shown else ["…", ""]
    buttons: dict[int, tuple[Message, InlineButton]] = {}
    for message in shown:
        lines += [message.text, ""]
        numbers = numbered.get(message.message_id, {})
        position = 0
        for row in (row for row in _taps(message) if row):
            cells = []
            for button in row:
                number = numbers[position]
                buttons[number] = (message, button)
                cells.append(f"[{number}] {button.text}")
                position += 1
            lines.append("  ".join(cells))
        lines.append("")
    if notice:
        lines.append(f"» {notice}")
    lines.append(t("terminal.keys"))
    return Page("\n".join(lines), buttons)


def read_lines(loop: asyncio.AbstractEventLoop, lines: asyncio.Queue[str | None]) -> None:
    """Hands the typed lines to the event loop, then None when input ends.

    Runs in a daemon thread: a read waiting for a line must not keep the program alive once
    the player has pressed Ctrl-C or typed q (a thread of the loop's executor would, until Enter).
    """
    with contextlib.suppress(RuntimeError):  # the loop is closed: we are leaving anyway
        for line in iter(sys.stdin.readline, ""):
            loop.call_soon_threadsafe(lines.put_nowait, line)
        loop.call_soon_threadsafe(lines.put_nowait, None)


class Terminal:
    """The phone: draws the chat, taps buttons, sends what is typed.

    Its own lines speak the language the bot keeps for the player in `store` (the one chosen
    with /lang); `t`, from --lang, until the bot has saved one.
    """

    def __init__(self, tg: FakeTelegram, t: Translator, out: TextIO = sys.stdout,
                 store: Store | None = None, press_timeout: float = PRESS_TIMEOUT) -> None:
        self.tg = tg
        self.t = t
        self.out = out
        self.store = store
        self.press_timeout = press_timeout
        self.order = ChatOrder()
        self.screen = Page("", {})
        self.notice: str | None = None
        self.clear = out.isatty()

    async def follow_language(self) -> None:
        user = await self.store.users.get(USER_ID) if self.store else None
        if user is not None and user.language and user.language != self.t.locale:
            self.t = translator(user.language)

    async def draw(self) -> None:
        await self.follow_language()
        self.screen = render_screen(self.tg.messages(USER_ID), self.order, self.t, self.notice)
        if self.clear:
            self.out.write("\033[2J\033[H")
        else:
            self.out.write("\n" + "─" * 40 + "\n")
        self.out.write(self.screen.text + "\n")
        self.out.flush()

    async def handle(self, line: str) -> bool:
        """One line typed by the player; False when he wants to leave."""
        line = line.strip()
        if line in ("q", "quit", "exit"):
            return False
        self.notice = None
        if line.isdigit():
            await self.press(int(line))
        elif line:
            await self.tg.send_text(USER_ID, line)
        return True

    async def press(self, number: int) -> None:
        """Taps the button `number` labels on the screen the player is looking at."""
        tap = self.screen.buttons.get(number)
        if tap is None:
            self.notice = self.t("terminal.no_button", number=number)
        else:
            try:
                answer = await self.tg.press(USER_ID, *tap, timeout=self.press_timeout)
            except TimeoutError:
                self.notice = self.t("terminal.no_answer")
            except LookupError:  # deleted since the screen was drawn
                self.notice = self.t("terminal.gone")
            else:
                self.notice = answer.text
                return  # the answer is a change in the chat: the screen redraws with it
        await self.draw()

    async def run(self) -> None:
        """Greet the bot, then act on each typed line until q or the end of input."""
        lines: asyncio.Queue[str | None] = asyncio.Queue()
        threading.Thread(target=read_lines, args=(asyncio.get_running_loop(), lines),
                         name="stdin", daemon=True).start()
        await self.tg.send_text(USER_ID, "/start")
        while (line := await lines.get()) is not None and await self.handle(line):
            pass

    async def redraw_on_changes(self) -> None:
        queue = self.tg.subscribe(USER_ID)
        try:
            while True:
                self.order.note(await queue.get())
                await asyncio.sleep(0.05)  # let a burst of edits settle
                while not queue.empty():
                    self.order.note(queue.get_nowait())
                await self.draw()
        finally:
            self.tg.unsubscribe(queue)


async def play(db_path: str, time_scale: float, language: str, name: str) -> None:
    from tg_durak.app import BotApp
    from tg_durak.config import Settings
    from tg_durak.emulator import FakeTelegram

    async with FakeTelegram() as tg:
        tg.add_user(USER_ID, name, language_code=language)
        # The emulator has no flood limits: redraw faster than Telegram's ~1 edit/s allows.
        app = BotApp(Settings(token=tg.token, db_path=db_path, api_url=tg.url,
                              time_scale=time_scale, log_level="WARNING", edit_interval=0.2,
                              web_port=0))   # its health and metrics: out of the way
        await app.start()
        term = Terminal(tg, translator(pick_locale(language)), store=app.store)
        redraw = asyncio.create_task(term.redraw_on_changes())
        session = asyncio.create_task(term.run())
        # Ctrl-C ends the session only, whatever it is waiting for, so that the bot still stops
        # in order below; another Ctrl-C meanwhile finds nothing left to cancel.
        with contextlib.suppress(NotImplementedError):  # no signal handlers on Windows
            asyncio.get_running_loop().add_signal_handler(signal.SIGINT, session.cancel)
        try:
            with contextlib.suppress(asyncio.CancelledError):
                await session
        finally:
            session.cancel()
            redraw.cancel()
            await asyncio.gather(session, redraw, return_exceptions=True)
            await app.stop()


def speed(text: str) -> float:
    """The --speed option: a factor, more than 0."""
    value = float(text)
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"{text} is not a speed; try 2 or 0.5")
    return value


def _login_name() -> str:
    """The --name default. Read when the game starts, not when the options are built (for every
    command): a container's user may have no name, and the bot must start there all the same."""
    try:
        return getpass.getuser().capitalize() or "Player"
    except (OSError, KeyError):
        return "Player"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`python -m tg_durak local`'s options (tg_durak/__main__.py builds the command line)."""
    parser.add_argument("--db",
                        help="SQLite file to keep games in (default: a fresh temporary one)")
    parser.add_argument("--speed", type=speed, default=1.0,
                        help="how fast the game runs: 2 is twice as fast (every timer and "
                             "computer pause halved), 0.5 half as fast; default 1, real time")
    parser.add_argument("--lang",
                        default=pick_locale(os.environ.get("LANG", "en").split(".")[0]),
                        help="your Telegram language: en, ru, uk or pl")
    parser.add_argument("--name", help="your first name at the table (default: your login name)")
    parser.add_argument("--web", action="store_true",
                        help="play in a browser instead: a Telegram-like page where you are "
                             "Alice, Bob, Carol or Dave, with a group of the four")
    parser.add_argument("--port", type=int, default=0,
                        help="with --web: the page's port (default: a free one)")


def run(args: argparse.Namespace) -> int:
    """Play until the player quits; 0."""
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or str(Path(tmp) / "durak-local.sqlite3")
        # Ctrl-C during start-up, before play() takes it over, ends the program just as quietly.
        with contextlib.suppress(KeyboardInterrupt):
            if args.web:
                from tg_durak.local_web import play_web

                asyncio.run(play_web(db, 1 / args.speed, args.lang, args.port))
            else:
                name = _login_name() if args.name is None else args.name
                asyncio.run(play(db, 1 / args.speed, args.lang, name))
    print()  # the shell's prompt on a line of its own, not after the ^C echoed on the last one
    return 0
