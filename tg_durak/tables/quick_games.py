"""Quick games with people: the queue from the private chat's menu or the Mini App to a running
table, and the report one tap away after the game.

A person chooses a game (play/matching.py's `QuickGame`) and how long he waits before computers
may fill in; his entry is stored (the queue survives a restart and is shared by every process).
A table opens when enough people wait for the same game: the store claims them and writes the
table in one transaction (storage/quick_games.py), and the table then runs as a group's table
does, from each person's private message (or his Mini App), with the absent rules of every
table; it has no group message (its chat is the quick games' scope, `QUICK_CHAT`). A ticker
keeps each waiting message and app up to date (how many wait for his game; Start with computers
once his wait is over), looks for tables the queue allows (a match a report blocked may become
possible as people come), lets go of those the bot can no longer write to, and moves an app
whose person sat down (at a quick table another process opened) to his table.

One who sits down at another table leaves the queue at once (`Waiting.seated`, which the table
service calls: tables/seating.py); the ticker also lets go of one it finds seated (his seat was
stored, then the process stopped before it let him go), and the store never seats anyone who
sits elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from html import escape
from typing import Protocol

from engine import Game
from tg_durak.i18n.translate import DEFAULT_LOCALE, Translator, translator
from tg_durak.outbox.queue import Priority
from tg_durak.play.answers import OK, Answer, refused
from tg_durak.play.matching import (
    QUICK_CHAT,
    Pair,
    QueueEntry,
    QueuePlace,
    QuickGame,
    ReportReason,
    counts,
    match,
    places,
)
from tg_durak.play.rows import TableStatus, UserRow
from tg_durak.render.quick import (
    found_screen,
    left_screen,
    report_offer_screen,
    waiting_screen,
)
from tg_durak.render.screen import Screen
from tg_durak.storage import Store
from tg_durak.tables.languages import PlayerLanguages
from tg_durak.tables.live import LiveLobby, LiveTable, snapshot
from tg_durak.tables.moderation import Moderation
from tg_durak.tables.repeating import repeat
from tg_durak.tables.screens import ScreenOutbox
from tg_durak.tables.service import TableService

log = logging.getLogger(__name__)

TICK_SECONDS = 1.0   # how often the queue is looked at (scaled with the game's timers)
MIN_TICK_SECONDS = 0.05
STAMP_PER_SECOND = 1_000_000   # a waiting message's screens are stamped in microseconds
COMPUTER_LEVEL = "normal"
# The last tables (lobbies) a display acted on, remembered so that it acts once on each: a table
# is shown again only around its end (a lobby's notices are marked in the store anyway).
KEPT = 1024


class QueueOutbox(Protocol):
    """Where the waiting messages go (outbox.Publisher): `version` orders the screens of one
    message across processes."""

    def show(self, key: Hashable, chat_id: int, message_id: int | None, screen: Screen, *,
             priority: Priority = Priority.PLAYER, thread_id: int | None = None,
             version: int | None = None) -> None: ...


class QueueApps(Protocol):
    """The open Mini Apps that show the quick game rather than a table (webapp.sockets)."""

    def waiting_here(self) -> frozenset[int]:
        """The people whose app here shows them waiting in the queue."""
        ...

    def show_place(self, user_id: int, place: QueuePlace | None) -> None:
        """His app here shows his place in the queue (None: he waits no more); a place it
        shows already is not sent again."""
        ...

    def seat(self, user_id: int, holder: LiveTable | LiveLobby) -> None:
        """His app here that shows the quick game shows this table (or lobby) from now on."""
        ...


class NoQueueApps:
    """No Mini App is served: the queue is shown in the chat alone."""

    def waiting_here(self) -> frozenset[int]:
        return frozenset()

    def show_place(self, user_id: int, place: QueuePlace | None) -> None:
        pass

    def seat(self, user_id: int, holder: LiveTable | LiveLobby) -> None:
        pass


NO_QUEUE_APPS = NoQueueApps()


def waiting_key(user_id: int) -> tuple[str, str, int]:
    """The outbox's key of a person's waiting message (three parts: not a table's message,
    whose fresh ids the tables store)."""
    return ("quick", "waiting", user_id)


class Waiting:
    """The people in the queue as they see it: each one's waiting message in the chat and his
    open app, changed one at a time in this process; and the way out of the queue for one who
    sits down at another table (the table service calls `seated`, tables/seating.py). Built
    before the table service, which is handed it."""

    def __init__(self, store: Store, outbox: QueueOutbox, languages: PlayerLanguages,
                 apps: QueueApps, clock: Callable[[], float]) -> None:
        self.store = store
        self.outbox = outbox
        self.languages = languages
        self.apps = apps
        self.clock = clock
        # One change of the queue's screens at a time in this process: a table found is never
        # overdrawn by a waiting screen read before it.
        self.lock = asyncio.Lock()
        # What each waiting message was last drawn from: a tick redraws only what changed.
        self._drawn: dict[int, tuple] = {}

    def t(self, user_id: int) -> Translator:
        return translator(self.languages.of(user_id))

    async def seated(self, user_id: int) -> None:
        """He sat down at another table: he leaves the queue, and his waiting message says so
        (his app, which shows the queue, is moved to his table by the next tick)."""
        async with self.lock:
            entry = await self.store.quick.leave(user_id)
            if entry is not None:
                self.show(entry, left_screen(self.t(user_id)), self.clock())

    def show_waiting(self, queue: list[QueueEntry], read_at: float) -> None:
        """Each waiting app, and each waiting message whose count or offer changed since this
        process drew it."""
        drawn = {}
        found = places(queue, self.clock())
        for entry in queue:
            place = found[entry.user_id]
            self.apps.show_place(entry.user_id, place)
            if entry.message_id is None:
                continue
            state = (place, entry.message_id, self.languages.of(entry.user_id))
            drawn[entry.user_id] = state
            if self._drawn.get(entry.user_id) != state:
                self.show(entry, waiting_screen(place, self.t(entry.user_id)), read_at,
                          Priority.WATCHER)
        self._drawn = drawn

    def show(self, entry: QueueEntry, screen: Screen, as_of: float,
             priority: Priority = Priority.PLAYER) -> None:
        """His waiting message (if he has one: not if he waits in the app) shows `screen`,
        drawn from the queue as it was at `as_of`: among several processes
        (outbox.redis_gate) a screen read before another process seated him never overwrites
        its "Table found"."""
        if entry.message_id is None:
            return
        self.outbox.show(waiting_key(entry.user_id), entry.chat_id, entry.message_id, screen,
                         priority=priority, version=round(as_of * STAMP_PER_SECOND))


class QuickGames:
    def __init__(self, tables: TableService, waiting: Waiting, moderation: Moderation) -> None:
        self.tables = tables
        self.core = tables.core
        self.store = tables.store
        self.waiting = waiting
        self.moderation = moderation
        self._ticking: asyncio.Task[None] | None = None

    # ---- a person's taps ---------------------------------------------------------------------

    async def join(self, user: UserRow, name: str, game: QuickGame, wait: int,
                   message: tuple[int, int] | None) -> Answer:
        """He waits for `game` (his message, `message`, shows it; None: his Mini App does);
        `wait` seconds later he may start with computers. A table opens at once if enough
        people wait."""
        core = self.core
        if await core.running_table_of(user.id) is not None:
            return refused("play.already")
        if message is None and not user.reachable:
            # His table runs from his private message whenever his app is closed, and the
            # queue lets go of those the bot cannot write to.
            return refused("quick.open_bot")
        now = core.clock()
        chat_id, message_id = (user.id, None) if message is None else message
        entry = QueueEntry(user.id, game, name, chat_id, message_id, joined_at=now,
                           wait_until=now + wait * core.time_scale)
        waiting = self.waiting
        async with waiting.lock:
            await self.store.quick.join(entry)
            if not await self._match(game):
                waiting.show_waiting(*await self._read_queue())
        return Answer("quick.joined")

    async def leave(self, user_id: int) -> Answer:
        waiting = self.waiting
        async with waiting.lock:
            entry = await self.store.quick.leave(user_id)
            if entry is None:
                return refused("quick.not_waiting")
            waiting.show(entry, left_screen(waiting.t(user_id)), self.core.clock())
            waiting.apps.show_place(user_id, None)
            waiting.show_waiting(*await self._read_queue())
        return Answer("quick.left")

    async def start_now(self, user_id: int) -> Answer:
        """His wait is over: his table opens now, with whoever else waits for his game and may
        sit with him, computers in the seats left."""
        async with self.waiting.lock:
            entry = await self.store.quick.entry(user_id)
            if entry is None:
                return refused("quick.not_waiting")
            if entry.wait_until > self.core.clock():
                return refused("quick.too_soon")
            if not await self._match(entry.game, first=user_id):
                return refused("quick.not_waiting")
        return OK

    async def place_of(self, user_id: int) -> QueuePlace | None:
        """His place in the queue, if he waits (what his app shows when it opens)."""
        queue, _ = await self._read_queue()
        return places(queue, self.core.clock()).get(user_id)

    # ---- the queue ---------------------------------------------------------------------------

    async def _match(self, game: QuickGame, first: int | None = None) -> bool:
        """Claim a table for `game` from the queue (with `first`: his, now) and start it;
        whether one opened. Under the queue's lock."""
        core = self.core
        waiting = self.waiting

        def pick(queue: Sequence[int], blocked: frozenset[Pair]) -> tuple[int, ...] | None:
            return match(queue, game.players, blocked, first)

        rules = game.options.to_rules(game.players, core.time_scale)
        started = Game.new(rules, secrets.randbits(63), core.clock())
        claimed = await self.store.quick.claim(
            game, pick, snapshot=snapshot(started), level=COMPUTER_LEVEL,
            language=DEFAULT_LOCALE)
        if claimed is None:
            return False
        row, entries = claimed
        await waiting.languages.load(e.user_id for e in entries)
        live = core.tables[row.id] = LiveTable(row, started)   # the lock finds it current
        for entry in entries:   # before the start: it finds their apps open at the table
            waiting.apps.seat(entry.user_id, live)
        async with core.lock(row.id):
            core.add(live)
        found_at = core.clock()   # after the claim: later than any read that still saw them
        for entry in entries:
            waiting.show(entry, found_screen(game, waiting.t(entry.user_id)), found_at)
        log.info("quick game %s: table %s for %d people", game.key, row.id, len(entries))
        return True

    async def tick(self) -> None:
        """Once a tick: those the bot cannot reach and those now playing elsewhere leave the
        queue, the tables the queue allows open, every waiting message and app shows the queue
        as it is, and an app whose person no longer waits shows his table, if he has one."""
        waiting = self.waiting
        async with waiting.lock:
            for user_id in await self.store.quick.unplayable():
                entry = await self.store.quick.leave(user_id)
                person = await self.store.users.get(user_id)
                if entry is not None and person is not None and person.reachable:
                    waiting.show(entry, left_screen(waiting.t(user_id)), self.core.clock())
            queue, read_at = await self._read_queue()
            opened = False
            # Under maintenance no table opens: those waiting wait on (the handlers refuse a
            # new Find or Start with its notice).
            closed = await self.moderation.maintenance_left() is not None
            for key, count in counts([] if closed else queue).items():
                game = QuickGame.of_key(key)
                if count >= game.players:
                    opened = await self._match(game) or opened
            if opened:
                queue, read_at = await self._read_queue()
            waiting.show_waiting(queue, read_at)
            gone = waiting.apps.waiting_here() - {entry.user_id for entry in queue}
        for user_id in sorted(gone):
            await self._follow(user_id)

    async def _follow(self, user_id: int) -> None:
        """His app showed him waiting, and he waits no more: it shows his table (one another
        process opened for him, or one he sat down at elsewhere), else the quick game's choice
        again."""
        holder = await self.core.find_for(user_id)
        if holder is None:
            self.waiting.apps.show_place(user_id, None)
            return
        self.waiting.apps.seat(user_id, holder)
        if isinstance(holder, LiveTable):   # his open app may make him present there
            await self.tables.apps_changed(holder.id)

    async def _read_queue(self) -> tuple[list[QueueEntry], float]:
        """The queue, and when it was read: the time its screens are stamped with."""
        read_at = self.core.clock()
        return await self.store.quick.waiting(), read_at

    def start(self) -> None:
        pause = max(MIN_TICK_SECONDS, TICK_SECONDS * self.core.time_scale)
        self._ticking = asyncio.create_task(
            repeat(self.tick, pause, "the quick games' queue could not be looked at", log))

    async def close(self) -> None:
        if self._ticking is not None:
            self._ticking.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticking

    # ---- after the game ----------------------------------------------------------------------

    async def report(self, reporter: int, table_id: int, reported: int,
                     reason: ReportReason) -> Answer:
        """One tap after a quick game: the two are never matched again, and the operator
        counts it. Only a finished quick table's players report each other."""
        row = await self.store.tables.get(table_id)
        people = {} if row is None else {s.user_id: s.name for s in row.seats
                                         if s.user_id is not None}
        if (row is None or row.chat_id != QUICK_CHAT or reporter == reported
                or reporter not in people or reported not in people):
            return refused("tap.unknown")
        if row.status in (TableStatus.LOBBY, TableStatus.RUNNING):
            return refused("quick.report_later")
        await self.store.quick.report(reporter, reported, table_id, reason)
        return Answer("quick.reported", {"name": escape(people[reported])}, alert=True)


class QuickGameEnds:
    """A display beside the chat's (tables/displays.py): when a quick table ends, each of its
    people is offered the report, once."""

    def __init__(self, outbox: ScreenOutbox, languages: PlayerLanguages) -> None:
        self.outbox = outbox
        self.languages = languages
        # The tables whose report was offered: the last few (a table ends once, and is let go).
        self._offered: deque[int] = deque(maxlen=KEPT)

    def show(self, live: LiveTable, only: int | None = None, bar: bool = False) -> None:
        if live.row.chat_id != QUICK_CHAT or not live.finished or live.id in self._offered:
            return
        self._offered.append(live.id)
        humans = live.humans
        for seat in humans:
            others = [s for s in humans if s.user_id != seat.user_id]
            if others:
                t = translator(self.languages.of(seat.user))
                self.outbox.show(("quick report", live.id, seat.user), seat.user, None,
                                 report_offer_screen(live.id, others, t),
                                 priority=Priority.WATCHER)

    def show_lobby(self, live: LiveLobby) -> None:
        """A quick game has no lobby."""

