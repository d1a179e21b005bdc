"""Load: the real bot process against the emulator, driven by simulated people at a human pace.

    python bench/load.py --tables M --seconds S [--group-tables G]
    python bench/load.py --restart-tables N
    python bench/load.py --workers N --db postgresql://... --steps 20,40,80 --seconds S
    python bench/load.py --workers 3 --db postgresql://... --tables M --seconds S --kill-after K
    python bench/load.py --workers 1,2,3 --db postgresql://... --tables M --seconds S

A load run starts `python -m tg_durak` (a temporary database, real timers: DURAK_TIME_SCALE=1)
against the emulator, which runs in this process and enforces Telegram's limits (1 message a
second per private chat, 20 a minute per group, 30 a second per bot). M private tables get one
person and one computer (normal) each, G group tables three people and a computer. People arrive
at a steady rate, open the bot, start their game and then tap every 1.5 ± 0.5 s: a random move
among the buttons their chat shows now (a card marked •, a target, Take, Pass, Transfer), Play
again after a private game ends, Rematch after a group game. Once every table runs, the taps of
the next S seconds are measured: tap -> answer and tap -> newer screen, Bot API requests by
method, 429s, the bot's CPU (from /proc) and memory, and the bot's own counters (publisher,
computer players, table service; read with SIGUSR1, see tg_durak/ops/stats.py).
With --inline the G tables are inline ones instead: two people in their own private chat, which
the bot is not in, one types @bot and picks the throw-in game, the other's Join opens its lobby,
two computers fill it; the public table lives in that message, edited by its inline_message_id
within the emulator's inline budget (20 edits a minute per chat): `inline_busiest_minute`.

With --workers N the bot runs as N `python -m tg_durak webhook` processes behind a round-robin
balancer that the emulator posts to (bench/fleet_bot.py, on tests/helpers/fleet.py), on a fresh
database of the PostgreSQL server --db names (Telegram's budgets shared in Redis), or on a new
SQLite file (one process: the comparison). --steps T1,T2,... adds private tables up to each count
in turn and measures a window at each, until two steps in a row miss answer p99 < 100 ms (or half
the taps do): the result is the step with the most taps a second that kept it, every step under
`steps`. --kill-after K kills one process (SIGKILL) K seconds into the window and reads the
tables' versions from the database until every table whose time came within 5 s of the kill
has moved: `failover`. The database's backends', Redis's and the whole machine's CPU are
measured too.

With --workers 1,2,3 (a list) the same load runs once per count, each on a fresh database: the
capacity figures. For each, the bot's own CPU seconds (user + system, read from /proc for every
bot process, not wall time) per tap, its computer players' per decision, and the database's and
Redis's per tap; then each count's CPU per tap over one worker's (`cpu_per_tap_vs_one`: what
spreading the same tables over more processes costs) and the tables one core carries at the
run's pace (`tables_per_core`). The JSON line's keys are the first count's, with `capacity`.

A restart run writes N running private tables into a fresh database through the store (each with
its game message in the emulator), starts the bot on it after a few seconds of "downtime" and
reports how long `resume` took to re-arm every table's timer (`rearm_s`, measured by the bot).

The last line printed is one JSON object, a contract other tools rely on: at least `tables`,
`taps`, `taps_per_s`, `p50_answer_ms`, `p99_answer_ms`, `p99_edit_ms`, `requests_per_tap`,
`kb_per_table`, `errors_429` (and `rearm_s` for a restart run). The lines before it say the
same for people. Everything runs on 127.0.0.1 and stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import math
import os
import random
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from fleet_bot import (
    CpuLedger,
    Failover,
    FleetBot,
    children_of,
    cpu_of,
    forget_redis,
    fresh_database,
    is_postgres,
    pids_named,
    unique_token,
)

from engine import Game, Rules, Variant
from tg_durak.emulator import (
    DEFAULT_TOKEN,
    Change,
    FakeTelegram,
    InlineButton,
    Message,
    RateLimits,
)
from tg_durak.i18n.translate import translator
from tg_durak.ops.stats import PREFIX as STATS_PREFIX
from tg_durak.play.options import PlaySettings
from tg_durak.play.rows import SeatRow, TableChange
from tg_durak.storage import Store
from tg_durak.tables.restart import HEARTBEAT_KEY

TELEGRAM = RateLimits(private_per_second=1, group_per_minute=20, global_per_second=30,
                      inline_per_minute=20)
BOT_USERNAME = "durak_test_bot"
TAP_EVERY = (1.0, 2.0)         # seconds between a person's taps: 1.5 ± 0.5
ARRIVALS_PER_S = 10.0          # people opening the bot, per second, before the measured window
ANSWER_TIMEOUT = 10.0          # a tap unanswered this long counts as unanswered
SETUP_TIMEOUT = 60.0           # a person's /start and Play, or a group's lobby, at most
EDIT_GRACE = 10.0              # after the window: how long taps may still wait for their screen
FIRST_USER = 100_000
FIRST_GROUP = -1_001_000_000_000
GROUP_PEOPLE = 3
INLINE_PEOPLE, INLINE_SEATS = 2, 4   # an inline table: two people and two computers
CARD_SHARE = 0.8               # a person plays a card rather than Take/Pass this often
MOVE_VERBS = frozenset("ctxXkps")   # callbacks.Verb values that make or prepare a move
CARD_VERBS = frozenset("cX")        # a card from the hand: legal only when marked •
CANCEL, PLAYABLE = "n", "•"
DOWNTIME = 5.0                 # seconds the restart run pretends the bot was down
MIDGAME_ENTRIES = 80           # a restarted table's log holds up to this many entries
POSTPONED_POLLS = 60           # half-seconds a restart run waits for the postponement's storing
MOVE_EVERY = 1.5               # seconds between two of its moves
# How long the bot process may take to come up: Python, aiogram (seconds of CPU) and, on a
# restart, every table re-armed. A guard against a hang, as long as a busy machine may need;
# ready_s says how long it took.
START_TIMEOUT = 300.0
P99_TARGET_MS = 100.0          # a stepped run's best step: the most taps a second under this
SETTLE = 3.0                   # seconds after a step's arrivals before its window opens
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"   # several processes share Telegram's budgets here
REDIS_CPU = CpuLedger()


# ---- the bot process --------------------------------------------------------------------------

class BotProcess:
    """`python -m tg_durak` against the emulator, its stderr in a file (the stats lines too)."""

    def __init__(self, tg: FakeTelegram, db_path: str, workdir: str,
                 env: dict[str, str] | None = None) -> None:
        self.tg = tg
        self.db_path = db_path
        self.env = env or {}   # more settings (bench/app_load.py: the Mini App's)
        self.log_path = Path(workdir) / "bot.log"
        self.proc: subprocess.Popen | None = None
        self.started_at = 0.0

    def start(self) -> None:
        env = {**os.environ, "BOT_TOKEN": self.tg.token, "TELEGRAM_API_URL": str(self.tg.url),
               "DURAK_DB": self.db_path, "DURAK_TIME_SCALE": "1", "DURAK_EDIT_INTERVAL": "1",
               "LOG_LEVEL": "WARNING", **self.env}
        self.started_at = time.monotonic()
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "tg_durak"], env=env,
                                         stdin=subprocess.DEVNULL, stdout=log, stderr=log)

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    async def ready(self, timeout: float) -> float:
        """Seconds from the start until the bot polls (resumed, idle); RuntimeError if it died."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not self.tg.polling:
            if self.proc is None or self.proc.poll() is not None:
                raise RuntimeError(f"the bot exited; its log:\n{self.log_tail()}")
            if loop.time() > deadline:
                raise RuntimeError(f"the bot did not start in {timeout}s:\n{self.log_tail()}")
            await asyncio.sleep(0.05)
        return time.monotonic() - self.started_at

    def cpu(self) -> tuple[float, float]:
        """CPU seconds so far: the bot's own, and its children's (the computer players)."""
        return (cpu_of(self.pid) or 0.0,
                sum(cpu_of(child) or 0.0 for child in children_of(self.pid)))

    def rss_kb(self) -> int:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    async def stats(self, timeout: float = 10.0) -> dict:
        """The bot's counters: SIGUSR1, then its next stats line."""
        before = self._stats_lines()
        os.kill(self.pid, signal.SIGUSR1)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            lines = self._stats_lines()
            if len(lines) > len(before):
                return json.loads(lines[-1][len(STATS_PREFIX):])
            await asyncio.sleep(0.05)
        return {}

    def _stats_lines(self) -> list[str]:
        text = self.log_path.read_text(errors="replace")
        return [line for line in text.splitlines() if line.startswith(STATS_PREFIX)]

    def log_tail(self, lines: int = 30) -> str:
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def problems(self) -> Counter[str]:
        """Tracebacks and log lines by level in the bot's stderr."""
        found: Counter[str] = Counter()
        for line in self.log_path.read_text(errors="replace").splitlines():
            if line.startswith("Traceback"):
                found["tracebacks"] += 1
            for level in ("WARNING", "ERROR", "CRITICAL"):
                if f" {level} " in line:
                    found[level.lower()] += 1
        return found

    async def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        for _ in range(100):
            if self.proc.poll() is not None:
                return
            await asyncio.sleep(0.1)
        self.proc.kill()
        self.proc.wait()


# ---- people -----------------------------------------------------------------------------------

@dataclass(eq=False)
class Tap:
    """One tap and what became of it (times on the monotonic clock)."""

    at: float
    version: float          # the table version the tapped screen showed
    game: bool              # a move on the game message (not Play again, Join, Rematch)
    again: bool = False     # he had already tapped this same screen (it was not redrawn since)
    query: object = None    # the emulator's CallbackQuery
    answered_at: float | None = None
    outcome: str = "unanswered"   # applied, stale, refused
    edited_at: float | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)


def _flat(message: Message | None) -> list[InlineButton]:
    if message is None:
        return []
    return [b for row in message.buttons for b in row if b.callback_data]


def _is_game(message: Message) -> bool:
    return any(b.callback_data.startswith(("m:", "u:again")) for b in _flat(message))


def _version(message: Message) -> float:
    """The table version the message shows; a finished game's screen is newer than any."""
    for b in _flat(message):
        if b.callback_data.startswith("m:"):
            return int(b.callback_data.split(":")[2])
    return math.inf


def _verb(button: InlineButton) -> str:
    return button.callback_data.split(":")[3]


def choose(message: Message, rng: random.Random) -> InlineButton | None:
    """A random legal move among the buttons shown; None if the screen offers none."""
    moves = [b for b in _flat(message) if b.callback_data.startswith("m:")
             and _verb(b) in MOVE_VERBS
             and (_verb(b) not in CARD_VERBS or b.text.startswith(PLAYABLE))]
    if not moves:
        cancel = [b for b in _flat(message) if b.callback_data.startswith("m:")
                  and _verb(b) == CANCEL]
        return cancel[0] if cancel else None
    cards = [b for b in moves if _verb(b) in CARD_VERBS | {"t"}]
    if cards and (len(cards) == len(moves) or rng.random() < CARD_SHARE):
        return rng.choice(cards)
    return rng.choice([b for b in moves if b not in cards] or cards)


@dataclass(eq=False)
class Person:
    user_id: int
    rng: random.Random
    group: GroupTable | None = None
    message_id: int | None = None       # his game message
    greeted: asyncio.Event = field(default_factory=asyncio.Event)
    playing: asyncio.Event = field(default_factory=asyncio.Event)
    pending: Tap | None = None          # awaiting its answer
    unseen: list[Tap] = field(default_factory=list)   # applied, awaiting a newer screen
    last_tapped: tuple[int, int] | None = None   # (message, edit count) of his last game tap

    @property
    def name(self) -> str:
        return f"P{self.user_id}"


@dataclass(eq=False)
class GroupTable:
    chat_id: int
    people: list[Person]
    message_id: int | None = None       # the lobby, then the public table
    inline: bool = False                # in its people's own chat, through inline mode


class Crowd:
    """Every simulated person, the taps they made, and the Changes that answer them."""

    def __init__(self, tg: FakeTelegram) -> None:
        self.tg = tg
        self.stale_text = translator("en")("tap.stale")   # the answer to an outdated screen
        self.people: dict[int, Person] = {}
        self.groups: dict[int, GroupTable] = {}
        self.taps: list[Tap] = []
        self.setup_failures: Counter[str] = Counter()
        self.level = "normal"   # the computers' strength at new tables (--level)
        self.inline = False     # new group tables are inline ones (--inline)

    def add(self, person: Person) -> None:
        self.tg.add_user(person.user_id, person.name, language_code="en")
        self.people[person.user_id] = person

    async def watch(self) -> None:
        """Read every Change as it comes (answers, new messages, edits)."""
        queue = self.tg.subscribe()
        while True:
            self.on_change(await queue.get(), time.monotonic())

    def on_change(self, change: Change, now: float) -> None:
        group = self.groups.get(change.chat_id)
        if group is not None:
            self._group_change(group, change)
            return
        person = self.people.get(change.chat_id)
        if person is None:
            return
        if change.kind == "answer":
            self._answered(person, change, now)
        elif change.kind in ("message", "edit") and change.detail.from_bot:
            self._shown(person, change.detail, now)

    def _answered(self, person: Person, change: Change, now: float) -> None:
        tap = person.pending
        if tap is None or tap.query.answer is None:
            return
        person.pending = None
        tap.answered_at = now
        answer = change.detail
        if answer.text is None:
            tap.outcome = "applied"
            if tap.game:
                person.unseen.append(tap)
        else:
            tap.outcome = "stale" if answer.text == self.stale_text else "refused"
        tap.done.set()

    def _shown(self, person: Person, message: Message, now: float) -> None:
        if any(b.callback_data.startswith("u:quick") for b in _flat(message)):
            person.greeted.set()
        if not _is_game(message):
            return
        if person.message_id is None or message.message_id >= person.message_id:
            person.message_id = message.message_id
            person.playing.set()
        version = _version(message)
        waiting = []
        for tap in person.unseen:
            if version > tap.version:
                tap.edited_at = now
            else:
                waiting.append(tap)
        person.unseen = waiting

    def _group_change(self, group: GroupTable, change: Change) -> None:
        message = change.detail
        if change.kind in ("message", "edit") and isinstance(message, Message) and \
                message.from_bot and any(b.callback_data.startswith("g:") for b in _flat(message)):
            group.message_id = message.message_id

    # ---- what a person does ---------------------------------------------------------------

    async def press(self, person: Person, chat_id: int, message: Message, button: InlineButton,
                    game: bool) -> Tap:
        tap = Tap(time.monotonic(), _version(message), game)
        person.pending = tap
        tap.query = self.tg.state.press(person.user_id, chat_id, message.message_id,
                                        button.callback_data)
        self.taps.append(tap)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(tap.done.wait(), ANSWER_TIMEOUT)
        if person.pending is tap:
            person.pending = None
        return tap

    async def open_bot(self, person: Person) -> bool:
        """/start, until the greeting comes (a reply lost to a 429 is asked for again)."""
        for _ in range(3):
            await self.tg.send_text(person.user_id, "/start")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(person.greeted.wait(), SETUP_TIMEOUT / 3)
                return True
        self.setup_failures["no greeting"] += 1
        return False

    async def start_private(self, person: Person) -> None:
        if not await self.open_bot(person):
            return
        await asyncio.sleep(1.1)   # a person reads the greeting (and the chat's budget refills)
        greeting = next(m for m in reversed(self.tg.messages(person.user_id))
                        if any(b.callback_data.startswith("u:quick") for b in _flat(m)))
        play = next(b for b in _flat(greeting) if b.callback_data.startswith("u:quick"))
        if self.level != "normal":
            # He picks the strength in the setup (s:level:...), then starts from it: Quick
            # play would use the stored settings, which a newcomer's are not yet.
            level = InlineButton("level", callback_data=f"s:level:{self.level}")
            await self.press(person, person.user_id, greeting, level, game=False)
            await asyncio.sleep(1.1)   # the chat's budget refills for the setup's redrawing
            play = InlineButton("start", callback_data="s:start:")
        await self.press(person, person.user_id, greeting, play, game=False)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(person.playing.wait(), SETUP_TIMEOUT)
            return
        self.setup_failures["no game message"] += 1

    async def start_group(self, group: GroupTable) -> None:
        """Everyone opens the bot; the host sends /new, two join, the host adds a computer: the
        fourth seat starts the table."""
        opened = await asyncio.gather(*(self.open_bot(p) for p in group.people))
        if not all(opened):
            return
        if group.inline:
            await self._start_inline(group)
            return
        host, *guests = group.people
        await self.tg.send_text(host.user_id, f"/new@{BOT_USERNAME}", chat_id=group.chat_id)
        if not await self._lobby_shown(group):
            return
        for guest in guests:
            await self._lobby_tap(group, guest, "j")
        await self._lobby_tap(group, host, "c", self.level)
        await self._all_playing(group)

    async def _start_inline(self, group: GroupTable) -> None:
        """The host types @bot in their chat and picks the throw-in game; the guest's Join opens
        its lobby (with the host seated: the bot can write to him), the host adds computers
        until the last seat starts the table."""
        host, guest = group.people
        try:
            asked = await self.tg.inline_query(host.user_id, "", group.chat_id,
                                               timeout=SETUP_TIMEOUT)
        except TimeoutError:
            self.setup_failures["no inline results"] += 1
            return
        message = self.tg.state.inline.choose(asked, str(Variant.THROW_IN))
        group.message_id = message.message_id
        await self.press(guest, group.chat_id, message, _flat(message)[0], game=False)
        for _ in range(INLINE_SEATS - len(group.people)):
            if not await self._lobby_drawn(group, "c") \
                    or not await self._lobby_tap(group, host, "c", self.level):
                return
        await self._all_playing(group)

    async def rematch(self, group: GroupTable) -> None:
        """The host taps Rematch on the finished table: everyone is seated again at once (an
        inline table's rematch is a lobby in the same message, which the host starts)."""
        for person in group.people:
            person.playing.clear()
        if await self._lobby_tap(group, group.people[0], "r"):
            if group.inline and await self._lobby_drawn(group, "go"):
                await self._lobby_tap(group, group.people[0], "go")
            await self._all_playing(group)

    async def _lobby_drawn(self, group: GroupTable, verb: str) -> bool:
        """Whether the lobby message shows the button `verb` (within the setup's time)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + SETUP_TIMEOUT
        while loop.time() < deadline:
            message = self.tg.message(group.chat_id, group.message_id or 0)
            if any(b.callback_data.startswith("g:") and b.callback_data.split(":")[2] == verb
                   for b in _flat(message)):
                return True
            await asyncio.sleep(0.1)
        self.setup_failures[f"no lobby button {verb}"] += 1
        return False

    async def _lobby_shown(self, group: GroupTable) -> bool:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + SETUP_TIMEOUT
        while group.message_id is None and loop.time() < deadline:
            await asyncio.sleep(0.1)
        if group.message_id is None:
            self.setup_failures["no lobby"] += 1
        return group.message_id is not None

    async def _lobby_tap(self, group: GroupTable, person: Person, verb: str, value: str = ""
                         ) -> bool:
        message = self.tg.message(group.chat_id, group.message_id)
        found = [b for b in _flat(message) if b.callback_data.split(":")[2:] == [verb, value]]
        if not found:
            self.setup_failures[f"no lobby button {verb}"] += 1
            return False
        await self.press(person, group.chat_id, message, found[0], game=False)
        return True

    async def _all_playing(self, group: GroupTable) -> None:
        waits = [asyncio.wait_for(p.playing.wait(), SETUP_TIMEOUT) for p in group.people]
        try:
            await asyncio.gather(*waits)
        except TimeoutError:
            self.setup_failures["group did not start"] += 1

    async def play(self, person: Person, until: float) -> None:
        """Tap at a human pace until `until`: a move, Play again, or (the host) Rematch."""
        await person.playing.wait()
        while time.monotonic() < until:
            await asyncio.sleep(person.rng.uniform(*TAP_EVERY))
            message = self.tg.message(person.user_id, person.message_id)
            if _version(message) == math.inf:
                await self._after_game(person, message)
                continue
            button = choose(message, person.rng)
            if button is not None:
                screen = (message.message_id, message.edit_count)
                again, person.last_tapped = person.last_tapped == screen, screen
                tap = await self.press(person, person.user_id, message, button, game=True)
                tap.again = again

    async def _after_game(self, person: Person, message: Message) -> None:
        group = person.group
        if group is None:
            again = next(b for b in _flat(message) if b.callback_data.startswith("u:again"))
            await self.press(person, person.user_id, message, again, game=False)
        elif person is group.people[0] and group.message_id is not None:
            finished = self.tg.message(group.chat_id, group.message_id)
            if any(b.callback_data.split(":")[2:3] == ["r"] for b in _flat(finished)):
                await self.rematch(group)


# ---- measuring --------------------------------------------------------------------------------

def _share(items: list, counted: Callable[[object], bool]) -> float | None:
    return round(sum(map(counted, items)) / len(items), 3) if items else None


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q / 100 * len(ordered)) - 1)]


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value * 1000, 1)


def _latencies(taps: Iterable[Tap], end: float) -> dict:
    taps = list(taps)
    answers = [t.answered_at - t.at for t in taps if t.answered_at is not None]
    applied = [t for t in taps if t.outcome == "applied"]
    # A screen not seen by the end stands for at least the time waited (censored, not dropped).
    edits = [(t.edited_at if t.edited_at is not None else end) - t.at for t in applied]
    out = {}
    for name, values in (("answer", answers), ("edit", edits)):
        for q in (50, 95, 99):
            out[f"p{q}_{name}_ms"] = _ms(_percentile(values, q))
    out["max_edit_ms"] = _ms(max(edits, default=None))
    out["edits_unseen"] = sum(t.edited_at is None for t in applied)
    return out


def _requests(tg: FakeTelegram, start: float, end: float) -> tuple[Counter[str], int, int]:
    """Requests by method in the window (getUpdates left out), 429s in it and in the whole run."""
    by_method: Counter[str] = Counter()
    in_window = total = 0
    for call in tg.calls:
        if call.error_code == 429:
            total += 1
            in_window += start <= call.time < end
        if call.method != "getUpdates" and start <= call.time < end:
            by_method[call.method] += 1
    return by_method, in_window, total


def _delta(before: dict, after: dict) -> dict:
    """after - before for every number (nested by component); one not counted before yet
    counts from 0."""
    out = {}
    for key, value in after.items():
        old = before.get(key, 0)
        if isinstance(value, dict) and isinstance(old, dict):
            out[key] = _delta(old, value)
        elif isinstance(value, int | float) and isinstance(old, int | float):
            out[key] = round(value - old, 6)
    return out


class LagMonitor:
    """How late this process's own event loop runs (the load generator skewing the figures)."""

    STEP = 0.05

    def __init__(self) -> None:
        self.lags: list[float] = []

    async def run(self) -> None:
        while True:
            before = time.monotonic()
            await asyncio.sleep(self.STEP)
            self.lags.append(time.monotonic() - before - self.STEP)


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# ---- the load run -----------------------------------------------------------------------------

async def _arrive(crowd: Crowd, tables: list[Person | GroupTable]) -> None:
    async def one(index: int, table: Person | GroupTable) -> None:
        await asyncio.sleep(index / ARRIVALS_PER_S)
        if isinstance(table, GroupTable):
            await crowd.start_group(table)
        else:
            await crowd.start_private(table)
    await asyncio.gather(*(one(i, t) for i, t in enumerate(tables)))


def _cast(crowd: Crowd, private: int, groups: int, seed: int) -> list[Person | GroupTable]:
    """`private` more private tables and `groups` more group tables, numbered on from the
    crowd's people and groups so far (a stepped run adds some at each step)."""
    tables: list[Person | GroupTable] = []
    first = len(crowd.people)
    user_id = FIRST_USER + first
    for _ in range(private):
        person = Person(user_id, random.Random(seed * 1_000_003 + user_id))
        crowd.add(person)
        tables.append(person)
        user_id += 1
    for _ in range(groups):
        g = len(crowd.groups)
        people = []
        for _ in range(INLINE_PEOPLE if crowd.inline else GROUP_PEOPLE):
            people.append(Person(user_id, random.Random(seed * 1_000_003 + user_id)))
            crowd.add(people[-1])
            user_id += 1
        if crowd.inline:   # their own chat, without the bot
            chat_id = crowd.tg.add_dialog(people[0].user_id, people[1].user_id).id
        else:
            chat_id = FIRST_GROUP - g
            crowd.tg.add_group(chat_id, f"Table {g + 1}", members=[p.user_id for p in people],
                               creator=people[0].user_id)
        group = GroupTable(chat_id, people, inline=crowd.inline)
        for person in people:
            person.group = group
        crowd.groups[group.chat_id] = group
        tables.append(group)
    # Arrivals interleave private and group tables, so both kinds meet the same load.
    random.Random(seed + first).shuffle(tables)
    return tables


@contextlib.contextmanager
def _workdir(keep: str | None) -> Iterator[str]:
    """A temporary folder for the database and the bot's log, or `keep` (left in place)."""
    if keep is not None:
        Path(keep).mkdir(parents=True, exist_ok=True)
        yield keep
        return
    with tempfile.TemporaryDirectory(prefix="durak-load-") as workdir:
        yield workdir


@dataclass(frozen=True)
class Deployment:
    """How the bot runs: one polling process (workers None, as always), or `workers` webhook
    processes behind a balancer (bench/fleet_bot.py); on a SQLite file in the run's folder (db
    None), another SQLite path, or a fresh database on the PostgreSQL server `db` names (with
    Telegram's budgets shared in Redis). `kill_after`: SIGKILL process `kill_process` that many
    seconds into the (last) window and measure the failover."""

    workers: int | None = None
    db: str | None = None
    redis: str = DEFAULT_REDIS
    kill_after: float | None = None
    kill_process: int = 0
    route: str = "round-robin"   # or "chat": each chat's updates to one process

    @property
    def postgres(self) -> bool:
        return self.db is not None and is_postgres(self.db)


@contextlib.contextmanager
def _database(deployment: Deployment, workdir: str, keep: str | None) -> Iterator[str]:
    """The run's database: a new SQLite file, or a new database on the PostgreSQL server."""
    if deployment.db is None:
        yield str(Path(workdir) / "durak.sqlite3")
    elif deployment.postgres:
        with fresh_database(deployment.db, keep=keep is not None) as url:
            yield url
    elif Path(deployment.db).exists():
        raise SystemExit(f"--db {deployment.db} exists: a run starts on an empty database")
    else:
        yield deployment.db


def _bot(tg: FakeTelegram, db: str, workdir: str, deployment: Deployment
         ) -> BotProcess | FleetBot:
    if deployment.workers is None:
        return BotProcess(tg, db, workdir)
    redis = deployment.redis if deployment.postgres else None
    return FleetBot(tg, db, workdir, deployment.workers, redis, route=deployment.route)


async def load_run(private: int, groups: int, seconds: float, seed: int,
                   keep: str | None = None, profile: str | None = None,
                   deployment: Deployment | None = None,
                   steps: list[tuple[int, int]] | None = None, level: str = "normal",
                   idle: float = 0.0, inline: bool = False) -> dict:
    """One run: every table of `steps` (default: just `private` and `groups`) in turn, a window
    of `seconds` measured at each; the computers at `level`. `idle`: first a window that long
    with no table, the bot's CPU share then (`idle_bot_cpu_share`: what its processes cost
    with nothing to do). `inline`: the group tables are inline ones."""
    deployment = deployment or Deployment()
    # Telegram's budgets in Redis are named by the bot's id: a token of the run's own.
    token = unique_token() if deployment.workers is not None else DEFAULT_TOKEN
    with _workdir(keep) as workdir, _database(deployment, workdir, keep) as db:
        async with FakeTelegram(token, rate_limits=TELEGRAM, bot_username=BOT_USERNAME) as tg:
            bot = _bot(tg, db, workdir, deployment)
            bot.start()
            try:
                return await _drive(tg, bot, steps or [(private, groups)], seconds, seed,
                                    profile, deployment, db, level, idle, inline)
            finally:
                await bot.stop()
                if isinstance(bot, FleetBot) and bot.fleet.redis_url is not None:
                    await forget_redis(bot.fleet.redis_url, token)


async def _drive(tg: FakeTelegram, bot: BotProcess | FleetBot, steps: list[tuple[int, int]],
                 seconds: float, seed: int, profile: str | None, deployment: Deployment,
                 db: str, level: str = "normal", idle: float = 0.0,
                 inline: bool = False) -> dict:
    crowd = Crowd(tg)
    crowd.level = level
    crowd.inline = inline
    if inline:
        tg.set_inline()   # BotFather's /setinline
    background = [asyncio.create_task(crowd.watch())]
    players: list[asyncio.Task] = []
    try:
        ready_s = await bot.ready(START_TIMEOUT)
        rss_idle = bot.rss_kb()
        idle_figures = await _idle_cpu(bot, idle) if idle else {}
        results = []
        for index, (private, groups) in enumerate(steps):
            had = len(crowd.people)
            have_private = sum(p.group is None for p in crowd.people.values())
            tables = _cast(crowd, private - have_private, groups - len(crowd.groups), seed)
            arrived = asyncio.create_task(_arrive(crowd, tables))
            # Nobody stops tapping before the last window ends; a window opens once every
            # table runs.
            players += [asyncio.create_task(crowd.play(p, math.inf))
                        for p in list(crowd.people.values())[had:]]
            await arrived
            if len(steps) > 1:
                await asyncio.sleep(SETTLE)   # the arrivals' own work (greetings, new games)
            last = index == len(steps) - 1
            results.append(await _window(
                tg, bot, crowd, seconds, profile if last else None,
                deployment if last else Deployment(), db,
                players if last else [], {
                    "private": private, "groups": groups, "ready_s": ready_s,
                    "rss_idle": rss_idle, "deployment": deployment,
                    "csv": "taps.csv" if len(steps) == 1 else f"taps-{private + groups}.csv"}))
            if _saturated(results) and not last:
                # More tables would only queue longer: the steps left are not run.
                for task in players:
                    task.cancel()
                break
        # A stepped run reports its steps even when the first one saturated the bot.
        return {**(_stepped(results) if len(steps) > 1 else results[0]), **idle_figures}
    finally:
        for task in background + players:
            task.cancel()


async def _idle_cpu(bot: BotProcess | FleetBot, seconds: float) -> dict:
    """The bot processes' CPU share over `seconds` with no table: their timers, the wake polls,
    the heartbeat, the relay's subscription."""
    before, start = bot.cpu()[0], time.monotonic()
    await asyncio.sleep(seconds)
    return {"idle_bot_cpu_share": round((bot.cpu()[0] - before) / (time.monotonic() - start), 4),
            "idle_seconds": seconds}


async def _window(tg: FakeTelegram, bot: BotProcess | FleetBot, crowd: Crowd, seconds: float,
                  profile: str | None, deployment: Deployment, db: str,
                  stop_after: list[asyncio.Task], run: dict) -> dict:
    """Measure `seconds` of the load as it runs (killing a process on the way if the deployment
    says so); the players in `stop_after` stop before the window's screens are waited for."""
    # The emulator keeps every request and answer: this process must not stop for a full
    # garbage collection over them in the middle of the window (it did, for 0.6 s, and
    # for 0.1 s with its heap frozen), so nothing is collected until the window ends.
    gc.freeze()
    gc.disable()
    lag = LagMonitor()
    lag_task = asyncio.create_task(lag.run())
    try:
        running = sum(p.playing.is_set() for p in crowd.people.values())
        stats_before = await bot.stats()
        profiler = _profile(bot, profile, seconds)
        system_before = await _system_cpu(bot)
        cpu_before, own_before = bot.cpu(), _own_cpu()
        start, wall_start = time.monotonic(), time.time()
        first_tap = len(crowd.taps)
        failover = None
        if deployment.kill_after is not None and isinstance(bot, FleetBot):
            failover = asyncio.create_task(_kill_later(bot, db, deployment))
        await asyncio.sleep(seconds)
        end, wall_end = time.monotonic(), time.time()
        cpu_after, own_after = bot.cpu(), _own_cpu()
        system_after = await _system_cpu(bot)
        rss_busy = bot.rss_kb()
    finally:
        gc.enable()
        lag_task.cancel()
    stats_after = await bot.stats()
    if profiler is not None:
        await asyncio.to_thread(profiler.wait)
    failed_over = None if failover is None else await failover
    for task in stop_after:
        task.cancel()
    window = [t for t in crowd.taps[first_tap:] if t.at < end]
    await _grace(crowd, window)
    _write_taps(Path(bot.log_path).with_name(run["csv"]), window, start)
    result = _report(tg, bot, crowd, window, {
        **run, "seconds": end - start, "start": start, "end": end,
        "wall": (wall_start, wall_end), "running_people": running,
        "rss": (run["rss_idle"], rss_busy), "cpu": (cpu_before, cpu_after),
        "own_cpu": own_after - own_before, "stats": (stats_before, stats_after),
        "lag": lag.lags,
    })
    used = {name: system_after[name] - system_before[name] for name in system_after}
    shares = {f"{name}_cpu_share": round(seconds_used / (end - start), 2)
              for name, seconds_used in used.items()}
    ours = sum(result[key] for key in ("bot_cpu_share", "computer_cpu_share", "load_cpu_share"))
    ours += shares.get("database_cpu_share", 0) + shares.get("redis_cpu_share", 0)
    # What the machine's other processes took meanwhile: on a shared machine, the cores the
    # run did not have.
    shares["others_cpu_share"] = round(max(0.0, shares["machine_cpu_share"] - ours), 2)
    return {**result, **shares, **{f"{name}_cpu_s": round(s, 3) for name, s in used.items()},
            **_deployed(run["deployment"]),
            **({} if failed_over is None else {"failover": failed_over})}


async def _kill_later(bot: FleetBot, db: str, deployment: Deployment) -> dict:
    assert deployment.kill_after is not None
    await asyncio.sleep(deployment.kill_after)
    return await Failover(db).run(bot, deployment.kill_process)


async def _system_cpu(bot: BotProcess | FleetBot) -> dict[str, float]:
    """CPU seconds so far of what else the run needs: the machine's cores in all (busy time, of
    every process, others' too), the database's backends and Redis (a whole server: others'
    use of it counts too) when several processes share them."""
    found = {"machine": _machine_busy()}
    if isinstance(bot, FleetBot):
        found["database"] = await bot.database_cpu()
        found["redis"] = REDIS_CPU.read(pids_named("redis-server"))
    return found


def _machine_busy() -> float:
    """Busy CPU seconds of the whole machine, every core (/proc/stat; idle and iowait not)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _deployed(deployment: Deployment) -> dict:
    """How the bot ran, for the result."""
    return {
        "workers": deployment.workers,
        "database": "postgresql" if deployment.postgres else "sqlite",
        "delivery": "polling" if deployment.workers is None else "webhook",
        "route": None if deployment.workers is None else deployment.route,
        "cores": os.cpu_count(),
    }


STEP_KEYS = ("tables", "people_playing", "taps_per_s", "applied_per_s", "stale_share",
             "p50_answer_ms", "p95_answer_ms", "p99_answer_ms", "p99_edit_ms",
             "bot_cpu_ms_per_tap", "bot_cpu_share", "computer_cpu_share", "database_cpu_share",
             "redis_cpu_share", "load_cpu_share", "machine_cpu_share", "others_cpu_share",
             "load_loop_lag_p99_ms",
             "errors_429", "machine_load")


def _met(result: dict) -> bool:
    return result["p99_answer_ms"] is not None and result["p99_answer_ms"] < P99_TARGET_MS


def _saturated(results: list[dict]) -> bool:
    """Past what the bot sustains: half the taps over the target, or the last two steps over it.
    One step over it alone is not enough on a shared machine: another process's burst makes a
    single window's few slowest taps, and p99 at 20 tables is about its two slowest."""
    last = results[-1]
    return ((last["p50_answer_ms"] or 0) > P99_TARGET_MS
            or (len(results) >= 2 and not _met(last) and not _met(results[-2])))


def _stepped(results: list[dict]) -> dict:
    """A stepped run: the step with the most taps a second whose answer p99 stayed under
    P99_TARGET_MS, among those before the run was saturated (its keys are the run's), every step
    in brief under `steps`."""
    met = []
    for i in range(len(results)):
        if _saturated(results[:i + 1]):
            break
        if _met(results[i]):
            met.append(i)
    best = max(met, key=lambda i: results[i]["taps_per_s"]) if met else None
    # The kill is in the last step's window, which need not be the best step: its failover is
    # the run's, whichever step is reported.
    failover = next(({"failover": r["failover"]} for r in results if "failover" in r), {})
    return {
        **results[0 if best is None else best],
        **failover,
        "steps": [{key: r.get(key) for key in STEP_KEYS} for r in results],
        "best_step": best,
        "taps_per_s_at_p99_under_target": None if best is None else results[best]["taps_per_s"],
        "p99_target_ms": P99_TARGET_MS,
    }


def _profile(bot: BotProcess, path: str | None, seconds: float) -> subprocess.Popen | None:
    """py-spy sampling the bot through the window: a flame graph (.svg), else collapsed stacks
    (one line per stack with its sample count, for reading as text); only samples that hold
    the GIL count, so the figures are CPU, not waiting."""
    if path is None:
        return None
    kind = "flamegraph" if path.endswith(".svg") else "raw"
    return subprocess.Popen(["py-spy", "record", "--pid", str(bot.pid), "--output", path,
                             "--format", kind, "--duration", str(max(1, int(seconds))),
                             "--rate", "200", "--gil", "--nonblocking"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _write_taps(path: Path, taps: list[Tap], start: float) -> None:
    """Every tap of the window: when (s into it), its answer and its newer screen (ms)."""
    lines = ["at_s,answer_ms,screen_ms,outcome,game"]
    for t in taps:
        answer = "" if t.answered_at is None else f"{(t.answered_at - t.at) * 1000:.1f}"
        screen = "" if t.edited_at is None else f"{(t.edited_at - t.at) * 1000:.1f}"
        lines.append(f"{t.at - start:.3f},{answer},{screen},{t.outcome},{int(t.game)}")
    path.write_text("\n".join(lines) + "\n")


async def _grace(crowd: Crowd, window: list[Tap]) -> None:
    """Let the window's applied taps see their newer screens (bounded)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + EDIT_GRACE
    while loop.time() < deadline and any(
            t.outcome == "applied" and t.edited_at is None and t.game for t in window):
        await asyncio.sleep(0.2)


def _report(tg: FakeTelegram, bot: BotProcess, crowd: Crowd, window: list[Tap], run: dict
            ) -> dict:
    seconds = run["seconds"]
    game_taps = [t for t in window if t.game]
    outcomes = Counter(t.outcome for t in game_taps)
    by_method, window_429, total_429 = _requests(tg, *run["wall"])
    requests = sum(by_method.values())
    (bot_before, workers_before), (bot_after, workers_after) = run["cpu"]
    tables = run["private"] + run["groups"]
    rss_idle, rss_busy = run["rss"]
    lags = run["lag"]
    taps = len(game_taps)
    stats_before, stats_after = run["stats"]
    decisions = _decisions(stats_before, stats_after)
    return {
        "tables": tables,
        "private_tables": run["private"],
        "group_tables": run["groups"],
        "people_playing": run["running_people"],
        "seconds": round(seconds, 1),
        "taps": taps,
        "taps_per_s": round(taps / seconds, 1),
        "applied_per_s": round(outcomes["applied"] / seconds, 1),
        "stale_share": round(outcomes["stale"] / taps, 3) if taps else None,
        # The same, of the first taps on each screen: a second tap on a screen Telegram's
        # budget has not redrawn yet mostly names a move his first tap already used.
        "stale_share_first_taps": _share(
            [t for t in game_taps if not t.again], lambda t: t.outcome == "stale"),
        "taps_on_a_tapped_screen": round(sum(t.again for t in game_taps) / taps, 3)
        if taps else None,
        "outcomes": dict(outcomes),
        **_latencies(game_taps, run["end"] + EDIT_GRACE),
        "requests_per_tap": round(requests / taps, 2) if taps else None,
        "requests_by_method": dict(by_method.most_common()),
        "requests_per_s": round(requests / seconds, 1),
        "errors_429": total_429,
        "errors_429_window": window_429,
        "bot_cpu_ms_per_tap": round((bot_after - bot_before) / taps * 1000, 2) if taps else None,
        "computer_cpu_ms_per_decision": _per(workers_after - workers_before, decisions),
        "computer_decisions": decisions,
        "bot_cpu_share": round((bot_after - bot_before) / seconds, 2),
        "computer_cpu_share": round((workers_after - workers_before) / seconds, 2),
        "load_cpu_share": round(run["own_cpu"] / seconds, 2),
        "load_loop_lag_p99_ms": _ms(_percentile(lags, 99)),
        "load_loop_lag_max_ms": _ms(max(lags, default=None)),
        "kb_per_table": round((rss_busy - rss_idle) / tables, 1) if tables else None,
        "bot_rss_mb": round(rss_busy / 1024, 1),
        "ready_s": round(run["ready_s"], 2),
        "machine_load": round(os.getloadavg()[0], 2),   # other processes competing for the cores
        **_bot_figures(_delta(stats_before, stats_after), stats_after),
        "setup_failures": dict(crowd.setup_failures),
        # The most edits of any inline table's chat in 60 s (the emulator allows 20).
        "inline_busiest_minute": max((crowd.tg.busiest_minute(g.chat_id)
                                      for g in crowd.groups.values() if g.inline), default=None),
        "bot_log": dict(bot.problems()),

        "bot": _delta(stats_before, stats_after),
        "bot_now": stats_after,
    }


def _per(cpu_s: float, count: float) -> float | None:
    """Milliseconds of CPU per one of `count`."""
    return round(cpu_s / count * 1000, 2) if count else None


def _decisions(before: dict, after: dict) -> int:
    """The computer players' decisions in the window (every process's, from their counters)."""
    return int(_delta(before, after).get("computers", {}).get("decisions", 0))


def _bot_figures(delta: dict, now: dict) -> dict:
    """The bot's own counters that the issue asks for, by name: the window's counts, and the
    running figures (rates, percentiles, maxima) as they stand at its end."""
    publisher, tables = delta.get("publisher", {}), delta.get("tables", {})
    computers, searches = now.get("computers", {}), delta.get("computers", {})
    return {
        "edits_coalesced": publisher.get("coalesced"),
        "edits_dropped": publisher.get("dropped"),
        "computer_moves": tables.get("computer_moves"),
        "computers_late": tables.get("computer_late"),   # moved over 3 s after their cue
        "computer_slowest_s": now.get("tables", {}).get("computer_slowest_s"),
        "computer_decisions_per_s": computers.get("decisions_per_s"),
        "computer_queue_wait_p99_ms": computers.get("queue_wait_p99_ms"),
        "computer_mean_budget_s": computers.get("mean_budget_s"),
        # --level hard: the window's searches, those given less than the whole budget, played
        # as normal, and raced in the compiled kernel; the p99 of a search's time in the worker
        # and from the ask to the answer (the queue's wait too), over the pool's recent ones.
        "hard_decisions": searches.get("hard_decisions"),
        "computer_answered_late": searches.get("answered_late"),   # over 1 s after the ask
        "hard_shed": searches.get("shed"),
        "hard_as_normal": searches.get("normal_instead"),
        "hard_in_kernel": searches.get("kernel_decisions"),
        "hard_think_p99_ms": computers.get("hard_think_p99_ms"),
        "hard_answer_p99_ms": computers.get("hard_answer_p99_ms"),
    }


# ---- the capacity run -------------------------------------------------------------------------

IDLE_SECONDS = 15.0   # a capacity run's window with no table, before the tables arrive
# Each count's figure over one worker's: the ratio's key, the figure's, and how it is read.
RATIOS = {"cpu_per_tap_vs_one": ("bot_cpu_ms_per_tap", "CPU a tap"),
          "cpu_per_tap_beyond_idle_vs_one": ("bot_cpu_ms_per_tap_beyond_idle", "beyond idle"),
          "cpu_per_move_vs_one": ("bot_cpu_ms_per_move", "a move")}
CAPACITY_KEYS = ("workers", "tables", "seconds", "taps", "taps_per_s", "p99_answer_ms",
                 "computer_decisions", "bot_cpu_ms_per_tap", "computer_cpu_ms_per_decision",
                 "bot_cpu_share", "computer_cpu_share", "database_cpu_share", "redis_cpu_share",
                 "machine_cpu_share", "others_cpu_share", "machine_load", "errors_429",
                 "idle_bot_cpu_share")


async def capacity_run(counts: list[int], private: int, groups: int, seconds: float, seed: int,
                       keep: str | None, deployment: Deployment, level: str,
                       rounds: int = 1, idle: float = IDLE_SECONDS) -> dict:
    """The same load on `counts` webhook processes in turn, each on a fresh database, after
    `idle` seconds with no table (the processes' idle cost); with `rounds` over 1, the whole
    turn again and again, and each count's ratio to one worker the median of the rounds' (one
    round's ratio moves by ±0.15 on this shared machine)."""
    results = []
    for round_no in range(1, rounds + 1):
        runs = []
        for count in counts:
            kept = None if keep is None else str(
                Path(keep) / (f"round-{round_no}" if rounds > 1 else "") / f"workers-{count}")
            runs.append(await load_run(private, groups, seconds, seed, kept,
                                       deployment=replace(deployment, workers=count),
                                       level=level, idle=idle))
        results.append(_capacity(runs))
    if rounds == 1:
        return results[0]
    medians = {ratio: {str(count): round(statistics.median(result[ratio][str(count)]
                                                           for result in results), 3)
                       for count in counts}
               for ratio in RATIOS}
    return {**results[0], **medians,
            "rounds": [{key: result[key] for key in ("capacity", *RATIOS)}
                       for result in results]}


def _capacity(runs: list[dict]) -> dict:
    """Each run's CPU per tap and per decision (the database's and Redis's per tap too), each
    count's CPU per tap over the first's, and the tables a core carries at the run's pace."""
    rows = []
    for run in runs:
        row = {key: run.get(key) for key in CAPACITY_KEYS}
        for part in ("database", "redis"):
            row[f"{part}_cpu_ms_per_tap"] = _per(run.get(f"{part}_cpu_s", 0.0), run["taps"])
        # A table's CPU a second, in all: its process, its computers, the database and Redis.
        load = (run["bot_cpu_share"] + run["computer_cpu_share"]
                + run.get("database_cpu_share", 0) + run.get("redis_cpu_share", 0))
        row["tables_per_core"] = round(run["tables"] / load, 1) if load else None
        # The taps' own CPU: the window's less what the processes cost idle meanwhile.
        busy = run["bot_cpu_ms_per_tap"] * run["taps"] / 1000
        row["bot_cpu_ms_per_tap_beyond_idle"] = _per(
            busy - run.get("idle_bot_cpu_share", 0.0) * run["seconds"], run["taps"])
        # A tap's CPU holds the computers' moves too (each a change with its screens), and how
        # many follow a tap varies from run to run: the crowd taps only while a move is his, so
        # a run whose computers moved later makes fewer taps in the same window. CPU per move
        # (a person's tap or a computer's move) is the steadier unit to compare runs by.
        row["computer_moves"] = run.get("computer_moves")
        row["bot_cpu_ms_per_move"] = _per(busy, run["taps"] + (run.get("computer_moves") or 0))
        # Tables another process had changed, read again under the lock: round robin's cost.
        rereads = run.get("bot", {}).get("tables", {}).get("reread", 0)
        row["rereads_per_tap"] = round(rereads / run["taps"], 3) if run["taps"] else None
        row["route"] = run.get("route")
        rows.append(row)
    return {**runs[0], "capacity": rows,
            **{ratio: _versus_first(rows, key) for ratio, (key, _) in RATIOS.items()}}


def _versus_first(rows: list[dict], key: str) -> dict[str, float]:
    """Each row's `key` over the first row's, by its worker count."""
    one = rows[0][key]
    return {str(row["workers"]): round(row[key] / one, 3)
            for row in rows if one and row[key] is not None}


def _ratios(result: dict) -> str:
    """Each count's figures over one worker's, as a line reads them."""
    return ", ".join(f"{label} {result[ratio]}" for ratio, (_, label) in RATIOS.items()) + (
        " (over one worker's)")


def _capacity_summary(result: dict) -> str:
    lines = []
    for number, each in enumerate(result.get("rounds", []), 1):
        lines.append(f"round {number}: {_ratios(each)}")
    if "rounds" in result:
        lines.append(f"medians of {len(result['rounds'])} rounds: {_ratios(result)}; round 1:")
    for row in result["capacity"]:
        lines.append(
            f"{row['workers']} worker(s): {row['taps']} taps in {row['seconds']} s "
            f"({row['taps_per_s']}/s, answer p99 {row['p99_answer_ms']} ms), bot CPU "
            f"{row['bot_cpu_ms_per_tap']} ms a tap "
            f"(x{result['cpu_per_tap_vs_one'].get(str(row['workers']))} of one worker's; "
            f"beyond idle {row['bot_cpu_ms_per_tap_beyond_idle']} ms, "
            f"x{result['cpu_per_tap_beyond_idle_vs_one'].get(str(row['workers']))}; idle "
            f"{row['idle_bot_cpu_share']} of a core; {row['bot_cpu_ms_per_move']} ms a move"
            f" of {row['taps']} taps and {row['computer_moves']} computer moves, "
            f"x{result['cpu_per_move_vs_one'].get(str(row['workers']))}), "
            f"computers {row['computer_cpu_ms_per_decision']} ms a decision "
            f"({row['computer_decisions']}), PostgreSQL {row['database_cpu_ms_per_tap']} ms and "
            f"Redis {row['redis_cpu_ms_per_tap']} ms a tap; {row['rereads_per_tap']} re-reads "
            f"a tap; {row['tables_per_core']} tables a core; machine load "
            f"{row['machine_load']}, others {row['others_cpu_share']} of a core")
    return "\n".join(lines)


# ---- the restart run --------------------------------------------------------------------------

def _midgame(rules: Rules, rng: random.Random, now: float) -> Game:
    """A game some way in: up to MIDGAME_ENTRIES random moves (and deadlines) made before `now`."""
    while True:
        steps = rng.randrange(MIDGAME_ENTRIES)
        at = now - steps * MOVE_EVERY
        game = Game.new(rules, rng.getrandbits(63), at)
        for _ in range(steps):
            movers = game.acting_seats
            if not movers:
                at = game.next_deadline
                if at is None or at > now:
                    break
                game.advance(at)
                continue
            seat = rng.choice(movers)
            game.apply(seat, rng.choice(game.legal_actions(seat)), at)
            at += MOVE_EVERY
        if not game.is_over:
            return game


async def _write_tables(tg: FakeTelegram, db_path: str, count: int, seed: int) -> int:
    """`count` running private tables, each with its game message and some moves in its log, as
    a running bot leaves them; how many log entries they hold in all."""
    settings = PlaySettings()
    rules = settings.to_rules(1.0)
    rng = random.Random(seed)
    store = await Store.open(db_path)
    entries = 0
    try:
        for i in range(count):
            user_id = FIRST_USER + i
            tg.add_user(user_id, f"P{user_id}")
            await tg.send_text(user_id, "/start")   # opens the chat: the bot may write there
            message = tg.api.call("sendMessage", {"chat_id": user_id, "text": "…"})
            game = _midgame(rules, rng, time.time())
            seats = [SeatRow(0, user_id, f"P{user_id}"), SeatRow(1, None, "", settings.level)]
            start = Game.replay({**game.to_dict(), "log": []})
            row = await store.tables.create(user_id, "private", "running", settings.to_dict(),
                                            seats, start.to_dict(log=False))
            await store.tables.record(TableChange(
                row.id, 0, [Game.entry_to_json(e) for e in game.log], game.to_dict(log=False)))
            await store.messages.set(row.id, user_id, user_id, message["message_id"])
            entries += game.version
        await store.meta.set(HEARTBEAT_KEY, time.time() - DOWNTIME)
    finally:
        await store.close()
    tg.state.updates.clear()   # the /starts above were the setup's, not the bot's to answer
    return entries


async def restart_run(count: int, seed: int, keep: str | None = None) -> dict:
    with _workdir(keep) as workdir:
        async with FakeTelegram(bot_username=BOT_USERNAME) as tg:
            idle = BotProcess(tg, str(Path(workdir) / "empty.sqlite3"), workdir)
            idle.start()
            try:
                await idle.ready(START_TIMEOUT)
                rss_idle = idle.rss_kb()
            finally:
                await idle.stop()
            db_path = str(Path(workdir) / "durak.sqlite3")
            written = time.monotonic()
            entries = await _write_tables(tg, db_path, count, seed)
            write_s = time.monotonic() - written
            tg.rate_limits = TELEGRAM
            bot = BotProcess(tg, db_path, workdir)
            bot.start()
            try:
                ready_s = await bot.ready(START_TIMEOUT)
                rss = bot.rss_kb()
                stats = await bot.stats()
                for _ in range(POSTPONED_POLLS):   # stored after every timer is armed
                    if "postponed_s" in stats.get("tables", {}):
                        break
                    await asyncio.sleep(0.5)
                    stats = await bot.stats()
            finally:
                await bot.stop()
            tables = stats.get("tables", {})
            return {
                "tables": count, "taps": 0, "taps_per_s": 0.0, "p50_answer_ms": None,
                "p99_answer_ms": None, "p99_edit_ms": None, "requests_per_tap": None,
                "kb_per_table": round((rss - rss_idle) / count, 1) if count else None,
                "errors_429": _requests(tg, 0, math.inf)[2],
                "rearm_s": tables.get("resume_s"),
                # and the downtime given back stored (timers run and taps wait meanwhile)
                "postponed_s": tables.get("postponed_s"),
                "resumed": tables.get("resumed"), "timers": tables.get("timers"),
                "log_entries": entries, "ready_s": round(ready_s, 2),
                "write_s": round(write_s, 1),
                "bot_rss_mb": round(rss / 1024, 1), "bot_log": dict(bot.problems()),
                "machine_load": round(os.getloadavg()[0], 2),
            }


# ---- the command line -------------------------------------------------------------------------

def _summary(result: dict) -> str:
    if "rearm_s" in result:
        return (f"{result['tables']} running tables re-armed in {result['rearm_s']} s "
                f"(bot ready after {result['ready_s']} s, {result['kb_per_table']} KB a table)")
    return (f"{result['tables']} tables ({result['group_tables']} group), "
            f"{result['taps_per_s']} taps/s, answer p50/p99 {result['p50_answer_ms']}/"
            f"{result['p99_answer_ms']} ms, tap->screen p50/p99 {result['p50_edit_ms']}/"
            f"{result['p99_edit_ms']} ms (worst {result['max_edit_ms']}), stale "
            f"{result['stale_share']}, {result['requests_per_tap']} requests a tap, bot CPU "
            f"{result['bot_cpu_ms_per_tap']} ms a tap ({result['bot_cpu_share']} of a core), "
            f"{result['kb_per_table']} KB a table, 429s {result['errors_429']}")


def report(result: dict, summary: str, keep: str | None) -> None:
    """The run for people (`summary`), then the JSON line other tools read (kept in `keep`)."""
    line = json.dumps(result, separators=(",", ":"))
    if keep is not None:
        (Path(keep) / "result.json").write_text(line + "\n")
    print(summary)
    print(line)


def _worker_counts(parser: argparse.ArgumentParser, text: str | None) -> list[int]:
    """--workers N, or N1,N2,... for a capacity run (empty: one polling process)."""
    if text is None:
        return []
    try:
        counts = [int(x) for x in text.split(",")]
    except ValueError:
        parser.error(f"--workers: a number or rising numbers, e.g. 1,2,3, not {text!r}")
    if counts != sorted(set(counts)) or counts[0] < 1:
        parser.error("--workers: 1 or more, several rising, e.g. 1,2,3")
    return counts


def _deployment(parser: argparse.ArgumentParser, args: argparse.Namespace,
                workers: int | None) -> Deployment:
    deployment = Deployment(workers, args.db, args.redis, args.kill_after,
                            args.kill_process, args.route)
    if deployment.workers is not None and deployment.workers < 1:
        parser.error("--workers: 1 or more")
    if (deployment.workers or 1) > 1 and not deployment.postgres:
        parser.error("several processes share a PostgreSQL database: give --db postgresql://...")
    if deployment.kill_after is not None and not (
            (deployment.workers or 1) > 1 and 0 <= deployment.kill_process < deployment.workers):
        parser.error("--kill-after needs --workers 2 or more and --kill-process below it")
    if deployment.postgres and deployment.workers is None:
        parser.error("PostgreSQL is for webhook processes: give --workers N")
    return deployment


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=0, help="private tables (one person each)")
    parser.add_argument("--group-tables", type=int, default=0,
                        help="group tables (three people and a computer each)")
    parser.add_argument("--inline", action="store_true",
                        help="the group tables are inline ones: two people and two computers in "
                             "the people's own chat, through inline mode")
    parser.add_argument("--seconds", type=float, default=30.0, help="the measured window")
    parser.add_argument("--restart-tables", type=int, default=None,
                        help="instead: N running tables in a database, and the time to resume")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", metavar="FILE",
                        help="sample the bot with py-spy through the window: FILE.svg is a flame "
                             "graph, any other name collapsed stacks")
    parser.add_argument("--keep", metavar="DIR",
                        help="keep the database, the bot's log (bot.log), every tap of the window "
                             "(taps.csv) and the result in DIR")
    parser.add_argument("--workers", metavar="N",
                        help="N webhook processes behind a round-robin balancer (the emulator "
                             "posts to it) instead of one polling process; N1,N2,...: the same "
                             "load on each count in turn, the CPU per tap and per decision of "
                             "each (capacity)")
    parser.add_argument("--db", metavar="URL",
                        help="postgresql://...: a fresh database on that server for the run "
                             "(dropped after unless --keep), Telegram's budgets in --redis; or "
                             "a SQLite path that does not exist yet (one process). Default: a "
                             "SQLite file in the run's folder")
    parser.add_argument("--redis", default=DEFAULT_REDIS,
                        help="where several processes on PostgreSQL share Telegram's budgets")
    parser.add_argument("--steps", metavar="T1,T2,...",
                        help="instead of --tables: private tables added up to each count in "
                             "turn, a window measured at each; the result is the step with the "
                             f"most taps a second at answer p99 < {P99_TARGET_MS:g} ms")
    parser.add_argument("--kill-after", type=float, metavar="S",
                        help="SIGKILL one process S seconds into the (last) window and measure "
                             "how long its tables wait (needs --workers 2 or more, PostgreSQL)")
    parser.add_argument("--level", choices=("normal", "hard"), default="normal",
                        help="the computers' strength (hard: a search of up to 0.3 s a move in "
                             "each process's pool of computer players)")
    parser.add_argument("--route", choices=("round-robin", "chat"), default="round-robin",
                        help="how the balancer spreads the updates over --workers: in turn, or "
                             "each chat's to one process (for comparison)")
    parser.add_argument("--kill-process", type=int, default=0, metavar="I",
                        help="which process --kill-after kills (0-based)")
    parser.add_argument("--idle", type=float, default=IDLE_SECONDS, metavar="SECONDS",
                        help="with --workers N1,N2,...: the window with no table before each "
                             "count's load (its idle cost)")
    parser.add_argument("--rounds", type=int, default=1, metavar="R",
                        help="with --workers N1,N2,...: the turn over the counts R times, "
                             "each ratio to one worker the median of the rounds'")
    args = parser.parse_args(argv)
    counts = _worker_counts(parser, args.workers)
    if args.rounds < 1 or (args.rounds > 1 and len(counts) < 2):
        parser.error("--rounds: 1 or more, and more than 1 only with --workers N1,N2,...")
    deployment = _deployment(parser, args, counts[0] if counts else None)
    if len(counts) > 1:
        if not deployment.postgres:
            parser.error("a capacity run compares processes on one PostgreSQL: give --db")
        if args.steps or args.kill_after is not None or args.restart_tables is not None:
            parser.error("--workers N1,N2,...: one load (--tables, --group-tables) each, no "
                         "--steps, --kill-after or --restart-tables")
        if args.tables + args.group_tables == 0:
            parser.error("give --tables and/or --group-tables")
        result = asyncio.run(capacity_run(counts, args.tables, args.group_tables, args.seconds,
                                          args.seed, args.keep, deployment, args.level,
                                          args.rounds, args.idle))
        report(result, _capacity_summary(result), args.keep)
        return 0
    steps = None
    if args.steps is not None:
        counts = [int(x) for x in args.steps.split(",")]
        if counts != sorted(counts) or counts[0] <= 0:
            parser.error("--steps: rising table counts above 0, e.g. 100,200,300")
        steps = [(count, args.group_tables) for count in counts]
    if args.restart_tables is not None:
        if deployment != Deployment():
            parser.error("a restart run is one polling process on SQLite")
        result = asyncio.run(restart_run(args.restart_tables, args.seed, args.keep))
    elif steps is not None or args.tables + args.group_tables > 0:
        result = asyncio.run(load_run(args.tables, args.group_tables, args.seconds, args.seed,
                                      args.keep, args.profile, deployment, steps, args.level,
                                      inline=args.inline))
    else:
        parser.error("give --tables and/or --group-tables, --steps, or --restart-tables")
    report(result, _summary(result), args.keep)
    return 0


if __name__ == "__main__":
    sys.exit(main())
