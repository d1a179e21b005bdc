"""The core every table change goes through: the live tables and lobbies, their locks, and one
way to store a change, then plan, schedule and show what follows from it.

Each change runs under its table's lock: the engine applies (or refuses) it, `commit` writes the
new state and its log entries in one transaction, plans the computers' reactions, re-arms the
table's timer and hands the table to whatever shows it (`TableDisplay`).
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Protocol

from engine import Event, EventKind, Game
from tg_durak.play.records import TableChange
from tg_durak.storage import Store
from tg_durak.tables.live import LiveLobby, LiveTable, snapshot
from tg_durak.tables.reactions import next_bar_redraw, next_reaction, plan_reactions

log = logging.getLogger(__name__)

SAVE_RETRY_SECONDS = 1.0   # after the store refused a change, the table's next try
ROUND_ENDS = frozenset({EventKind.BEATEN, EventKind.TAKEN})


class TableDisplay(Protocol):
    """Whatever shows a table's seats (the chat's messages, the Mini App): after every change,
    and with `only` one person's when nothing changed for the others, `bar` when only a clock
    moved; a lobby after each change of its seats or settings."""

    def show(self, live: LiveTable, only: int | None = None, bar: bool = False) -> None: ...

    def show_lobby(self, live: LiveLobby) -> None: ...


class Timer(Protocol):
    """Wakes the table service at each table's next due time (tables.scheduler)."""

    def arm(self, table_id: int, at: float | None) -> None: ...


class TableCore:
    def __init__(self, store: Store, timer: Timer, display: TableDisplay, *,
                 clock: Callable[[], float], time_scale: float) -> None:
        self.store = store
        self.timer = timer
        self.display = display
        self.clock = clock
        self.time_scale = time_scale
        self.tables: dict[int, LiveTable] = {}
        self.lobbies: dict[int, LiveLobby] = {}
        # per table id; ("chat", chat_id) guards a group chat's one open table
        self._locks: defaultdict[object, asyncio.Lock] = defaultdict(asyncio.Lock)
        self.counts: Counter[str] = Counter()   # taps by outcome, resume times (stats)
        # The seats of a table whose Mini App is open already (a lobby's, as it starts).
        self.open_apps: Callable[[LiveTable], set[int]] = lambda live: set()

    def lock(self, key: object) -> asyncio.Lock:
        return self._locks[key]

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

    def running_table_of(self, user_id: int) -> int | None:
        """The table (a lobby too) where the user has a seat, if any."""
        holder = self.live_for(user_id) or self.lobby_for(user_id)
        return None if holder is None else holder.id

    def holder(self, table_id: int) -> LiveTable | LiveLobby | None:
        return self.tables.get(table_id) or self.lobbies.get(table_id)

    def add(self, live: LiveTable) -> None:
        """A table starts running here: its computers planned, shown, its timer armed."""
        live.in_app = self.open_apps(live)
        self.plan(live, [])
        self.tables[live.id] = live
        self.display.show(live)
        self.schedule(live)

    def forget(self, live: LiveTable | LiveLobby) -> None:
        """A finished table (a closed lobby) leaves memory; later taps on it are answered from
        the store."""
        self.tables.pop(live.id, None)
        self.lobbies.pop(live.id, None)
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
        status = "finished" if live.finished else "running"
        results = self.results(live) if live.finished else []
        try:
            await self.store.tables.record(TableChange(live.id, old_version, entries,
                                                       snapshot(game), status, results))
        except Exception:
            log.exception("table %s: saving failed; back to version %s", live.id, old_version)
            # The transaction rolled back: replaying the log is the stored state, without a read
            # from a store in trouble. The table keeps who is away, blocked or choosing, and the
            # computers' reactions (one that was refused is tried again).
            live.game = game.rewound(old_version)
            self.display.show(live)
            self.timer.arm(live.id, self.clock() + SAVE_RETRY_SECONDS)
            return False
        self.plan(live, events)
        live.note(events)
        if any(e.kind in ROUND_ENDS for e in events):
            live.round_from = None
        self.display.show(live)
        self.schedule(live)
        if live.finished:
            self.forget(live)
        return True

    def results(self, live: LiveTable) -> list[tuple[int, str, int]]:
        """Each person's outcome and place (R8.2: the order of leaving; the durak last)."""
        game = live.game
        order = game.finished_order
        out = []
        for seat in live.humans:
            if seat.status != "playing":
                outcome = "resigned"   # left the table, or was removed from it
            elif seat.seat == game.durak:
                outcome = "durak"
            elif game.is_over and game.durak is None:
                outcome = "draw"
            else:
                outcome = "safe"
            place = order.index(seat.seat) + 1 if seat.seat in order else len(order) + 1
            out.append((seat.user_id, outcome, place))
        return out

    def plan(self, live: LiveTable, events: list[Event]) -> None:
        """The computers' next moves after a change (R10.3); a time-out makes a person away
        again (R10.2)."""
        live.back -= {e.seat for e in events if e.kind == EventKind.TIMEOUT}
        people = {s.seat for s in live.people} - live.away
        now, before = self.clock(), live.reactions
        live.reactions = plan_reactions(live.game, people, before, events, now)
        for seat, reaction in live.reactions.items():
            if before.get(seat) is not reaction:
                live.planned_at[seat] = now

    def schedule(self, live: LiveTable) -> None:
        """Arm the table's timer at its earliest due time: a deadline, a computer's move, a
        timer bar's redraw."""
        if live.finished:
            self.timer.arm(live.id, None)
            return
        times = [live.game.next_deadline]
        reaction = next_reaction(live.reactions, live.thinking)
        if reaction is not None:
            times.append(reaction.at)
        live.bar_at = next_bar_redraw(live.game, self.clock())
        times.append(live.bar_at)
        self.timer.arm(live.id, min((t for t in times if t is not None), default=None))
