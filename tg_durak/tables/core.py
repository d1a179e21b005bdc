"""The core every table change goes through: the live tables and lobbies, their locks, and one
way to store a change, then plan, schedule and show what follows from it.

Each change runs under its table's lock: the engine applies (or refuses) it, `commit` writes the
new state and its log entries in one transaction, plans the computers' reactions, re-arms the
table's timer and hands the table to whatever shows it (`TableDisplay`).

On a database several processes share (`Store.shared`: PostgreSQL), a table's lock is the
database's: the lock's transaction takes it, the process then brings what it holds of the table
up to what is stored (memory is a cache the stored version validates, `tables.cache`), and every
write of the change joins that transaction, along with the table's next wake (`store.wakes`),
which any live process claims when its time has passed and its last process did not act.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Hashable, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from typing import Protocol

from engine import Event, EventKind, Game
from tg_durak.play.ratings import Outcome, Result
from tg_durak.play.rows import SeatStatus, TableChange, TableStatus
from tg_durak.storage import DatabaseDown, Store, StoreUnavailable
from tg_durak.tables.apps import OpenApps
from tg_durak.tables.cache import StoredTables
from tg_durak.tables.claims import claim_with_change
from tg_durak.tables.live import LiveLobby, LiveTable, snapshot
from tg_durak.tables.reactions import BRISK, next_bar_redraw, next_reaction, plan_reactions

log = logging.getLogger(__name__)

SAVE_RETRY_SECONDS = 1.0   # after the store refused a change, the table's next try
ROUND_ENDS = frozenset({EventKind.BEATEN, EventKind.TAKEN})
# A computer thinks at most about a second (tables.computers.ANSWER_WITHIN): if its process dies
# meanwhile, another process takes the table up this long after the move was due.
THINKING_LEASE_SECONDS = 2.0


class TableDisplay(Protocol):
    """Whatever shows a table's seats (the chat's messages, the Mini App): after every change,
    and with `only` one person's when nothing changed for the others, `bar` when only a clock
    moved; a lobby after each change of its seats or settings."""

    def show(self, live: LiveTable, only: int | None = None, bar: bool = False) -> None: ...

    def show_lobby(self, live: LiveLobby) -> None: ...


class Timer(Protocol):
    """Wakes the table service at each table's next due time (tables.scheduler)."""

    def arm(self, table_id: int, at: float | None) -> None: ...


def unheard(table_id: int) -> None:
    """Nobody hears of stored changes (one process, or no Mini App)."""


class _AfterCommit:
    """The display a core shows through: on a shared database, what a change shows under its
    lock is shown once the lock's transaction has committed (no screen or socket shows a state
    the database may yet refuse, and a reader who acts on it finds it stored). Outside a lock,
    and on SQLite (whose change is stored before it is shown), at once."""

    def __init__(self, display: TableDisplay) -> None:
        self._display = display
        self._held: ContextVar[tuple[asyncio.Task | None, list] | None] = ContextVar(
            "tg_durak_shown", default=None)

    @contextmanager
    def holding(self) -> Iterator[list[Callable[[], None]]]:
        """While the current task holds a lock: what it shows waits in the list it yields (an
        empty one inside another lock of the task's: that lock's commit shows it all)."""
        held = self._held.get()
        if held is not None and held[0] is asyncio.current_task():
            yield []
            return
        waiting: list[Callable[[], None]] = []
        token = self._held.set((asyncio.current_task(), waiting))
        try:
            yield waiting
        finally:
            self._held.reset(token)

    def _now_or_later(self, show: Callable[[], None]) -> None:
        held = self._held.get()
        if held is not None and held[0] is asyncio.current_task():
            held[1].append(show)
        else:
            show()

    def show(self, live: LiveTable, only: int | None = None, bar: bool = False) -> None:
        self._now_or_later(lambda: self._display.show(live, only, bar))

    def show_lobby(self, live: LiveLobby) -> None:
        self._now_or_later(lambda: self._display.show_lobby(live))


def lock_name(key: Hashable) -> str:
    """The database lock of a table (an int) or another key (a group chat's one open table)."""
    return f"tg_durak table {key}" if isinstance(key, int) else f"tg_durak {key!r}"


class TableCore:
    def __init__(self, store: Store, timer: Timer, display: TableDisplay, *,
                 clock: Callable[[], float], time_scale: float, open_apps: OpenApps,
                 foresee: Callable[[LiveTable], None],
                 committed: Callable[[int], None] = unheard) -> None:
        """`committed(table_id)` hears each change after its transaction committed (the other
        processes' Mini Apps are told of it, webapp.relay). `foresee(live)` asks, as each
        computer's pause begins, for its decision (tables.decisions)."""
        self.store = store
        self.timer = timer
        self.display = _AfterCommit(display)
        self.clock = clock
        self.time_scale = time_scale
        self.tables: dict[int, LiveTable] = {}
        self.lobbies: dict[int, LiveLobby] = {}
        # per table id; ("chat", chat_id) guards a group chat's one open table
        self._locks: defaultdict[object, asyncio.Lock] = defaultdict(asyncio.Lock)
        # Taps by outcome, resume times and computers' think times (stats).
        self.counts: defaultdict[str, float] = defaultdict(float)
        self.open_apps = open_apps
        self.shared = store.shared
        self.stored = StoredTables(self, store)
        self._armed: set[int] = set()   # tables armed under their lock: their wake is stored
        self._committed = committed
        self._foresee = foresee

    @asynccontextmanager
    async def lock(self, key: Hashable) -> AsyncIterator[None]:
        """Hold the table `key` (or a chat's key) for one change. On a shared database also
        the database's lock, in a transaction that the change's writes join: what this process
        holds of the table is brought up to the stored version first, its next wake is stored
        last, and the update being handled is claimed in it (`tables.claims`)."""
        async with self._locks[key]:
            if not self.shared:
                yield
                return
            with self.display.holding() as shown:
                async with self.store.held(lock_name(key)):
                    await claim_with_change(self.store)
                    if isinstance(key, int):
                        await self.stored.refresh(key)
                    try:
                        yield
                    finally:
                        self.stored.moved.discard(key)
                    if isinstance(key, int) and key in self._armed:
                        self._armed.discard(key)
                        await self.store.wakes.set(key, self.wake_of(key))
        for show in shown:
            show()
        if isinstance(key, int):
            self._committed(key)

    def process_lock(self, key: Hashable) -> asyncio.Lock:
        """The lock of `key` within this process alone (a start holds the tables it resumes
        before any tap or timer can know them; one process only)."""
        return self._locks[key]

    def arm(self, table_id: int, at: float | None) -> None:
        """The table's timer in this process; on a shared database its wake is stored too, at
        the end of the lock (the time any process takes it up if this one does not)."""
        self.timer.arm(table_id, at)
        if self.shared:
            self._armed.add(table_id)

    def wake_of(self, table_id: int) -> float | None:
        """When another process should take the table up if this one has not acted by then: a
        lobby's expiry; a table's deadline or computer move (or a retry of a refused save),
        and a thinking computer's move a lease later; None once it is over."""
        lobby = self.lobbies.get(table_id)
        if lobby is not None:
            return lobby.row.expires_at
        live = self.tables.get(table_id)
        return None if live is None else live.wake_at

    def taken_over(self, live: LiveTable) -> bool:
        """Another process changed the table since this one last did (found under its lock):
        its timers are that process's now."""
        return live.id in self.stored.moved

    def disarm(self, table_id: int) -> None:
        """This process's timer of the table cancelled, its stored wake left as it is (a table
        another process changed since is that process's to wake)."""
        self.timer.arm(table_id, None)
        self._armed.discard(table_id)

    # ---- finding tables, on any process ---------------------------------------------------

    async def find(self, table_id: int) -> LiveTable | LiveLobby | None:
        """The running table or open lobby; on a shared database read from the store when
        this process does not hold it yet (its lock validates it), or holds it as a lobby that
        another process has started or closed since: callers tell a lobby from a table before
        they take its lock."""
        holder = self.held(table_id)
        if self.shared and isinstance(holder, LiveLobby):
            state = await self.store.tables.state(table_id)
            if state is None or state[1] != TableStatus.LOBBY:
                self.lobbies.pop(table_id, None)
                holder = None
        if holder is None and self.shared:
            holder = await self.stored.load(table_id)
        return holder

    async def find_for(self, user_id: int) -> LiveTable | LiveLobby | None:
        """The running table where the user still plays, or the lobby where he sits (on a
        shared database, as stored: what memory holds may have ended elsewhere)."""
        if self.shared:
            table_id = await self.store.tables.seated_at(user_id)
            return None if table_id is None else await self.find(table_id)
        return self.live_for(user_id) or self.lobby_for(user_id)

    async def find_in_chat(self, chat_id: int) -> list[LiveTable | LiveLobby]:
        """The chat's open lobby and running tables."""
        if self.shared:
            row = await self.store.lobbies.open_in_chat(chat_id)
            if row is not None:
                await self.find(row.id)
            for held in [h for h in self.lobbies.values() if h.row.chat_id == chat_id]:
                await self.find(held.id)   # one started or closed elsewhere is let go
        open_here: list[LiveTable | LiveLobby] = [*self.lobbies.values(), *self.tables.values()]
        return [holder for holder in open_here if holder.row.chat_id == chat_id]

    # ---- finding tables --------------------------------------------------------------------

    def live(self, table_id: int) -> LiveTable | None:
        """The running table, if this process holds it."""
        return self.tables.get(table_id)

    def live_for(self, user_id: int) -> LiveTable | None:
        """The running table where the user still plays, if any."""
        return next((t for t in self.tables.values()
                     if not t.finished and t.seat_of(user_id) is not None), None)

    def lobby_for(self, user_id: int) -> LiveLobby | None:
        return next((lobby for lobby in self.lobbies.values()
                     if lobby.lobby.seat_of(user_id) is not None), None)

    async def running_table_of(self, user_id: int) -> int | None:
        """The table (a lobby too) where the user has a seat, if any."""
        holder = await self.find_for(user_id)
        return None if holder is None else holder.id

    def held(self, table_id: int) -> LiveTable | LiveLobby | None:
        return self.tables.get(table_id) or self.lobbies.get(table_id)

    def add(self, live: LiveTable) -> None:
        """A table starts running here: its computers planned, shown, its timer armed. Under
        its lock (on a shared database that stores its first wake)."""
        live.in_app = self.open_apps.seats_in_app(live)
        self.plan(live, [])
        self.tables[live.id] = live
        self.display.show(live)
        self.schedule(live)

    def apps_changed(self, live: LiveTable) -> None:
        """Under the table's lock: who has the app open at the table may have changed. A person
        the bot cannot write to plays while his app is open and is away while it is closed:
        then the computers plan anew and the seats are shown."""
        before = live.away
        live.in_app = self.open_apps.seats_in_app(live)
        if live.away != before:
            self.plan(live, [])
            self.schedule(live)
            self.display.show(live)

    def forget(self, live: LiveTable | LiveLobby) -> None:
        """A finished table (a closed lobby) leaves memory; later taps on it are answered from
        the store."""
        self.tables.pop(live.id, None)
        self.lobbies.pop(live.id, None)
        if not self.shared:   # a lock still held stores the table's last wake (none) with it
            self._locks.pop(live.id, None)

    # ---- changing a table ------------------------------------------------------------------

    async def commit(self, live: LiveTable, old_version: int, events: list[Event]) -> bool:
        """Store what changed since `old_version` in one transaction, then show and schedule.

        False if the store refused it (a full disk, a lock held too long): the game goes back
        to `old_version`, which is what the store still holds, and the table's timer tries
        again in SAVE_RETRY_SECONDS (not at once: the store is unlikely to be back so soon).
        """
        game = live.game
        entries = [Game.entry_to_json(e) for e in game.log[old_version:]]
        status = TableStatus.FINISHED if live.finished else TableStatus.RUNNING
        results = self.results(live) if live.finished else []
        change = TableChange(live.id, old_version, entries, snapshot(game), status, results)
        try:
            if self.shared:
                # It joins the lock's transaction, in this task: a cancellation rolls both back.
                await self.store.tables.record(change)
            else:
                await self._record_to_its_end(live, change, events)
        except Exception as exc:
            if isinstance(exc, StoreUnavailable):   # no traceback: a refusal, not a fault
                # A database that does not answer the store logged once.
                log.log(logging.INFO if isinstance(exc, DatabaseDown) else logging.WARNING,
                        "table %s: not saved (%s); back to version %s", live.id, exc,
                        old_version)
            else:
                log.exception("table %s: saving failed; back to version %s", live.id,
                              old_version)
            # The transaction rolled back: replaying the log is the stored state, without a read
            # from a store in trouble. The table keeps who is away, blocked or choosing, and the
            # computers' reactions (one that was refused is tried again).
            live.game = game.rewound(old_version)
            self.display.show(live)
            live.wake_at = self.clock() + SAVE_RETRY_SECONDS
            self.arm(live.id, live.wake_at)
            return False
        self._stored(live, events)
        return True

    async def _record_to_its_end(self, live: LiveTable, change: TableChange,
                                 events: list[Event]) -> None:
        """One process's store writes a change with others' (storage.group_commit), and does
        so whether its caller is cancelled or not. So a stop's cancellation waits for it, and
        shows it if it landed, before it goes on: the chat never shows less than the store
        holds, and the lock is held until then."""
        saving = asyncio.ensure_future(self.store.tables.record(change))
        try:
            await asyncio.shield(saving)
        except asyncio.CancelledError:
            await asyncio.wait([saving])
            if not saving.cancelled() and saving.exception() is None:
                self._stored(live, events)
            raise

    def _stored(self, live: LiveTable, events: list[Event]) -> None:
        """The change is stored: shown, and the table's next reactions and timer planned."""
        self.plan(live, events)
        live.note(events)
        if any(e.kind in ROUND_ENDS for e in events):
            live.round_from = None
        self.display.show(live)
        self.schedule(live)
        if live.finished:
            self.forget(live)

    def results(self, live: LiveTable) -> list[Result]:
        """Each person's outcome and place (R8.2: the order of leaving; the durak last)."""
        game = live.game
        order = game.finished_order
        out = []
        for seat in live.humans:
            if seat.status != SeatStatus.PLAYING:
                outcome = Outcome.RESIGNED
            elif seat.seat == game.durak:
                outcome = Outcome.DURAK
            elif game.is_over and game.durak is None:
                outcome = Outcome.DRAW
            else:
                outcome = Outcome.SAFE
            place = order.index(seat.seat) + 1 if seat.seat in order else len(order) + 1
            out.append((seat.user, outcome, place))
        return out

    def plan(self, live: LiveTable, events: list[Event], at: float | None = None) -> None:
        """The computers' next moves after a change made `at` (None: now) (R10.3); a time-out
        makes a person away again (R10.2)."""
        live.back -= {e.seat for e in events if e.kind == EventKind.TIMEOUT}
        people = {s.seat for s in live.people} - live.away
        now, before = self.clock() if at is None else at, live.reactions
        live.reactions = plan_reactions(live.game, people, before, events, now,
                                        BRISK if live.watched else 1.0)
        for seat, reaction in live.reactions.items():
            if before.get(seat) is not reaction:
                live.planned_at[seat] = now

    def schedule(self, live: LiveTable) -> None:
        """Arm the table's timer at its earliest due time: a deadline, a computer's move, a
        timer bar's redraw; and have each computer whose pause has begun think meanwhile, so
        that its search does not add to the pause (R10.3)."""
        if live.finished:
            live.wake_at = None
            self.arm(live.id, None)
            return
        times = [live.game.next_deadline]
        reaction = next_reaction(live.reactions, live.thinking)
        if reaction is not None:
            times.append(reaction.at)
        leases = [live.reactions[seat].at + THINKING_LEASE_SECONDS
                  for seat in live.thinking if seat in live.reactions]
        live.wake_at = min((t for t in (*times, *leases) if t is not None), default=None)
        live.bar_at = next_bar_redraw(live.game, self.clock())
        times.append(live.bar_at)
        self.arm(live.id, min((t for t in times if t is not None), default=None))
        self._foresee(live)
