"""TableService: the one owner of table changes, built from a small core and its collaborators.

Handlers and the scheduler reach a table only through these parts, each given what it needs:

- `core`: the live tables and lobbies, their locks, the one way a change is stored and followed
  (plan the computers, schedule the timer, show the seats);
- `moves`: a person's tap, a deadline, a computer's decision;
- `lobbies`: a group's lobby from /new to its start, and Rematch;
- `absences`: away, out of reach, leaving, removed, resigning;
- `chats`: what the outbox and Telegram report about chats (sent messages, 403, migration);
- `restart`: resuming after a start, the postponement and the heartbeat;
- `forgetting`: /forgetme, a person erased once his seat is given up;
- `screens`: the chat's messages of every table; `displays` hands each change to them and to
  whatever else shows tables (the Mini App's sockets and the other processes' relay, handed to
  the constructor by the composition root).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable, Sequence

from engine import Game
from tg_durak.outbox.reports import OutboxReport, OutboxReports
from tg_durak.play.options import PlaySettings
from tg_durak.play.rows import SeatRow, TableKind, TableStatus
from tg_durak.storage import AlreadySeated, DatabaseDown, Store, StoreUnavailable
from tg_durak.tables.absences import Absences
from tg_durak.tables.apps import NO_APPS, OpenApps
from tg_durak.tables.chats import ChatLifecycle
from tg_durak.tables.core import TableCore, TableDisplay, unheard
from tg_durak.tables.decisions import Computers, Decisions
from tg_durak.tables.displays import Displays
from tg_durak.tables.languages import PlayerLanguages
from tg_durak.tables.live import LiveLobby, LiveTable, snapshot
from tg_durak.tables.lobbies import GroupLobbies
from tg_durak.tables.moves import Moves
from tg_durak.tables.privacy import Forgetting
from tg_durak.tables.restart import Restart
from tg_durak.tables.scheduler import Scheduler
from tg_durak.tables.screens import NO_LINKS, ChatLinks, ChatScreens, ScreenOutbox
from tg_durak.tables.seating import NO_QUEUE, Seating
from tg_durak.tables.wake_claims import LATE_SECONDS, WakeClaims

log = logging.getLogger(__name__)


class TableService:
    def __init__(
        self,
        store: Store,
        outbox: ScreenOutbox,
        computers: Computers,
        *,
        links: ChatLinks = NO_LINKS,
        displays: Sequence[TableDisplay] = (),
        open_apps: OpenApps = NO_APPS,
        committed: Callable[[int], None] = unheard,
        reports: OutboxReports | None = None,
        seating: Seating = NO_QUEUE,
        time_scale: float = 1.0,
        clock: Callable[[], float] = time.time,
        make_scheduler: Callable[..., Scheduler] = Scheduler,
    ) -> None:
        """`links`: where the chat's screens link to. The Mini App's side, where it is served:
        `displays` show every change beside the chat's messages, `open_apps` tells whose app
        is open, `committed(table_id)` hears each stored change. `reports`: what the outbox
        met while sending, acted on once the service runs (`resume`). `seating`: the quick
        games' queue, which each person seated leaves. `make_scheduler(wake, clock)` builds
        the tables' timer (tests wind a manual one)."""
        self.store = store
        self.languages = PlayerLanguages(store.users)
        self.screens = ChatScreens(outbox, self.languages, clock, links)
        self.displays = Displays([self.screens, *displays])
        self.scheduler = make_scheduler(self._wake, clock)
        decisions = Decisions(computers)
        self.core = TableCore(store, self.scheduler, self.displays, clock=clock,
                              time_scale=time_scale, open_apps=open_apps,
                              foresee=decisions.foresee, committed=committed)
        self.seating = seating
        self.lobbies = GroupLobbies(self.core, self.screens, store, self.languages, seating)
        self.absences = Absences(self.core, self.screens, store, self.lobbies)
        self.moves = Moves(self.core, store, decisions, self.absences)
        self.chats = ChatLifecycle(self.core, self.screens, store, self.lobbies, self.absences)
        self.restart = Restart(self.core, store, self.languages, self.lobbies)
        self.forgetting = Forgetting(self.core, store, self.absences, self.lobbies)
        # Several processes on one database: the due tables nobody acted on, claimed from it.
        self.wake_claims = WakeClaims(store, self.wake_claimed, clock) if store.shared else None
        self.reports = reports
        self._reading: asyncio.Task[None] | None = None

    async def resume(self) -> int:
        """After a start: the tables resumed (tables.restart), then the due ones claimed from a
        shared database as long as the service runs."""
        resumed = await self.restart.resume()
        if self.wake_claims is not None:
            self.wake_claims.start()
        if self.reports is not None:
            self._reading = self.reports.serve(self._act_on)
        return resumed

    async def _act_on(self, report: OutboxReport) -> None:
        try:
            await self.chats.heard(report)
        except StoreUnavailable as exc:   # the next report may get through
            # A database that does not answer the store logged once.
            log.log(logging.INFO if isinstance(exc, DatabaseDown) else logging.WARNING,
                    "acting on %s failed: %s", report, exc)
        except Exception:
            log.exception("acting on %s failed", report)

    async def stop_reading_reports(self) -> None:
        """After the outbox's last screens went out: what it reported meanwhile is acted on
        (a fresh message's id is stored, or the next start would send another)."""
        if self._reading is not None:
            self._reading.cancel()
            await asyncio.gather(self._reading, return_exceptions=True)
        if self.reports is not None:
            for report in self.reports.waiting():
                await self._act_on(report)

    def stats(self) -> dict[str, float]:
        """What the service counted (ops/stats.py): taps by outcome, tables, timers, tables
        another process had changed."""
        core = self.core
        claimed = {} if self.wake_claims is None else {"claimed": self.wake_claims.claimed}
        return {**core.counts, "running": len(core.tables), "timers": self.scheduler.armed,
                "reread": core.stored.reread, **claimed}

    async def running_table_of(self, user_id: int) -> int | None:
        return await self.core.running_table_of(user_id)

    def live(self, table_id: int) -> LiveTable | None:
        return self.core.live(table_id)

    async def _wake(self, table_id: int) -> None:
        """The scheduler's call: a lobby's expiry, or a table's deadline, computer or bar."""
        holder = self.core.held(table_id)
        if isinstance(holder, LiveLobby):
            await self.lobbies.expire(table_id)
        elif holder is not None:
            await self.moves.wake(holder)

    async def wake_claimed(self, table_id: int) -> None:
        """A table this process claimed from the store (tables.wake_claims): its time passed
        and the process that changed it last did not act, so this one does."""
        holder = await self.core.find(table_id)
        if isinstance(holder, LiveLobby):
            await self.lobbies.expire(table_id)
        elif holder is not None:
            await self.moves.wake(holder, claimed=True)

    async def start_private(
        self, user_id: int, name: str, settings: PlaySettings,
        message: tuple[int, int] | None = None,
    ) -> int | None:
        """A game against computer players; None if the user has a seat at a table already
        (a lobby too, or one another process gives him at the same moment).

        `message` (chat, message id) is edited into the game; otherwise a new one is sent.
        """
        core = self.core
        if await core.running_table_of(user_id) is not None:
            return None
        game = Game.new(settings.to_rules(core.time_scale), secrets.randbits(63), core.clock())
        seats = [SeatRow(0, user_id, name, None)] + [
            SeatRow(i, None, "", settings.level) for i in range(1, settings.bots + 1)
        ]
        unplayable: list[int] = []
        while True:
            try:   # seated elsewhere meanwhile (a lobby, a quick game), maybe by another process
                row = await self.store.tables.create(
                    user_id, TableKind.PRIVATE, TableStatus.RUNNING, settings.to_dict(), seats,
                    snapshot(game), one_table=True, unplayable=unplayable)
                break
            except AlreadySeated as seated:
                # A table whose record is damaged holds no seat, as running_table_of says.
                if seated.table_id in unplayable or await core.find(seated.table_id) is not None:
                    return None
                unplayable.append(seated.table_id)
        live = core.tables[row.id] = LiveTable(row, game)   # the lock finds it current
        async with core.lock(row.id):   # on a shared database: stored with its first wake
            if message is not None:
                await self.store.messages.set(row.id, user_id, *message)
                live.messages[user_id] = message
            core.add(live)
        await self.seating.seated(user_id)
        return row.id

    async def apps_changed(self, table_id: int) -> None:
        """A Mini App opened or closed at the table: who is away may have changed."""
        core = self.core
        live = core.live(table_id)
        if live is None:
            return
        async with core.lock(table_id):
            if core.live(table_id) is live:
                core.apps_changed(live)

    async def app_closed(self, table_id: int, user_id: int) -> None:
        """His app closed: his chat message is brought up to date once (it waited meanwhile)."""
        await self.apps_changed(table_id)
        live = self.core.live(table_id)
        if live is None:
            return
        seat = live.seat_of(user_id)
        if seat is not None and seat not in live.in_app:
            self.displays.show(live, only=user_id)

    async def change_locale(self, user_id: int) -> None:
        """A player switched language (stored already): his game message follows at once."""
        live = await self.core.find_for(user_id)
        if isinstance(live, LiveTable):
            self.displays.show(live, only=user_id)

    async def close(self) -> None:
        if self.wake_claims is not None:
            await self.wake_claims.close()
            await self._hand_over()
        await self.restart.close()
        await self.scheduler.close()

    async def _hand_over(self) -> None:
        """A stopping process's timers die with it: the tables it holds are made due for the
        others at their own time, not LATE_SECONDS after it."""
        held = [*self.core.tables, *self.core.lobbies]
        try:
            await self.store.wakes.hand_over(held, LATE_SECONDS)
        except Exception:   # then they are taken up that much later
            log.warning("could not hand %d tables over to the other processes", len(held))
