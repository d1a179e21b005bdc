"""A bot that starts again: every running table and open lobby back in memory, the downtime
given back to the people (R10.4), every timer re-armed, every screen shown again; and the
heartbeat the downtime is counted from.

On a database several processes share, a starting process holds no table: each is read when
first needed, and the due ones are claimed from the store (tables.wake_claims). The others kept
the tables going meanwhile, so there is no downtime to give back, unless every process was down:
then the first to start gives it back, once, under a lock the others wait for.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from engine import Game
from tg_durak.ops.gc_tuning import paused
from tg_durak.play.rows import TableChange, TableRow
from tg_durak.storage import CorruptRow, Store
from tg_durak.tables.core import TableCore
from tg_durak.tables.languages import PlayerLanguages
from tg_durak.tables.live import LiveTable, revived, snapshot
from tg_durak.tables.lobbies import GroupLobbies

log = logging.getLogger(__name__)

HEARTBEAT_KEY = "alive_at"
ENDS_SHOWN_AGAIN_SECONDS = 60.0   # tables finished this long before the last heartbeat
# How long the screens drawn after a start may hold the loop before taps get their turn again:
# a table's first drawing replays its log for its history (about 0.4 ms for 120 moves).
REFRESH_SLICE_SECONDS = 0.01
# On a shared database: no process wrote the heartbeat for this long, so every one was down.
OUTAGE_SECONDS = 15.0
RESUME_LOCK = "tg_durak resume"


class Restart:
    def __init__(self, core: TableCore, store: Store, languages: PlayerLanguages,
                 lobbies: GroupLobbies) -> None:
        self.core = core
        self.store = store
        self.languages = languages
        self.lobbies = lobbies
        self._refreshing: asyncio.Task[None] | None = None   # screens after a start
        self._postponing: asyncio.Task[None] | None = None   # storing its postponement

    async def resume(self) -> int:
        """After a start: load running tables, give humans back the downtime (R10.4), re-arm.

        Every timer is armed before the postponement is stored: until it is, each postponed
        table's lock is held (a tap or a timer on it waits, nothing else stores it first) and
        the heartbeat waits, so a crash meanwhile gives the whole downtime back next time."""
        core = self.core
        if core.shared:
            return await self._resume_shared()
        started = time.perf_counter()
        now = core.clock()
        alive_at = await self.store.meta.get(HEARTBEAT_KEY)
        downtime = now - alive_at if isinstance(alive_at, int | float) else 0.0
        await self.lobbies.resume()
        with paused():
            lives = await self._load_running()
            moved = _postpone(lives, downtime)
            held = [core.process_lock(live.id) for live, _ in moved]
            for lock in held:
                await lock.acquire()   # free: no tap or timer knows the table yet
            for live in lives:
                core.plan(live, [])
                core.tables[live.id] = live
                if live.finished:   # stored as running: its end was refused before the stop
                    core.timer.arm(live.id, now)   # its wake stores it
                else:
                    core.schedule(live)
        core.counts["resumed"] = len(lives)
        core.counts["resume_s"] = time.perf_counter() - started   # every timer armed
        self._postponing = asyncio.create_task(self._store_postponement(moved, held, started))
        # Screens go out after the timers are set, a chunk at a time: the bot answers taps
        # meanwhile (Telegram's budget takes minutes to show them all anyway).
        self._refreshing = asyncio.create_task(self._refresh(lives))
        if isinstance(alive_at, int | float):
            await self._show_ends(alive_at - ENDS_SHOWN_AGAIN_SECONDS)
        return len(lives)

    async def _resume_shared(self) -> int:
        """On a shared database: the downtime given back after an outage of every process
        (R10.4), by the first to start; how many tables it moved."""
        core = self.core
        async with self.store.held(RESUME_LOCK):
            alive_at = await self.store.meta.get(HEARTBEAT_KEY)
            now = core.clock()
            downtime = now - alive_at if isinstance(alive_at, int | float) else 0.0
            moved = []
            if downtime > OUTAGE_SECONDS:
                moved = _postpone(await self._load_running(), downtime)
                await self.store.tables.record_many([
                    TableChange(live.id, old, [Game.entry_to_json(e)
                                               for e in live.game.log[old:]],
                                snapshot(live.game)) for live, old in moved])
            await self.store.meta.set(HEARTBEAT_KEY, now)
        core.counts["resumed"] = len(moved)
        return len(moved)

    async def _show_ends(self, since: float) -> None:
        """Tables that finished just before the bot stopped: a crash right after the last move
        may have kept their last screens from going out, so they are shown again (one that did
        go out costs Telegram nothing: it refuses an edit that changes nothing)."""
        for row in await self.store.tables.finished_since(since):
            try:
                self.core.display.show(await self._load(row))
            except (ValueError, CorruptRow):
                log.exception("table %s: its last screen cannot be shown", row.id)

    async def _load_running(self) -> list[LiveTable]:
        """Every running table, read from the store all at once; damaged ones left out."""
        rows = await self.store.tables.running()
        logs = await self.store.tables.running_logs()
        messages = await self.store.messages.running()
        await self.languages.load(s.user_id for row in rows for s in row.seats
                                  if s.user_id is not None)
        lives = []
        for row in rows:
            try:
                lives.append(revived(row, logs.get(row.id, []), messages.get(row.id, [])))
            except (ValueError, CorruptRow):
                log.exception("table %s cannot be resumed; left untouched", row.id)
        return lives

    async def _load(self, row: TableRow) -> LiveTable:
        live = revived(row, await self.store.tables.log(row.id),
                       await self.store.messages.of_table(row.id))
        self.core.plan(live, [])
        await self.languages.load(s.user for s in live.humans)
        return live

    async def _store_postponement(self, moved: list[tuple[LiveTable, int]],
                                  held: list[asyncio.Lock], started: float) -> None:
        """Store the postponed games in one transaction, one table at a time if that fails;
        then let go of their locks (`held`)."""
        try:
            await self.store.tables.record_many([
                TableChange(live.id, old, [Game.entry_to_json(e) for e in live.game.log[old:]],
                            snapshot(live.game)) for live, old in moved])
        except Exception:
            log.exception("postponing %d tables at once failed; one at a time", len(moved))
            for live, old in moved:
                await self.core.commit(live, old, [])
        finally:
            for lock in held:
                lock.release()
        self.core.counts["postponed_s"] = time.perf_counter() - started   # and stored

    async def postponed(self) -> None:
        """Wait until the downtime given back at the start is stored (or refused)."""
        if self._postponing is not None:
            await asyncio.shield(self._postponing)

    async def _refresh(self, lives: list[LiveTable]) -> None:
        """Show every resumed table's screens again, yielding to taps between slices.

        Not before the postponement is stored: its write takes a few trips to SQLite's thread,
        each of which would wait for a chunk, and the tables stay locked until it is done."""
        with contextlib.suppress(Exception):   # logged where it failed
            await self.postponed()
        core = self.core
        slice_ends = time.perf_counter() + REFRESH_SLICE_SECONDS
        for live in lives:
            if core.live(live.id) is live and not live.finished:
                core.display.show(live)
            if time.perf_counter() >= slice_ends:
                await asyncio.sleep(0)
                slice_ends = time.perf_counter() + REFRESH_SLICE_SECONDS

    async def heartbeat(self) -> None:
        # Not before the downtime given back is stored: a crash meanwhile gives it back again.
        await self.postponed()
        await self.store.meta.set(HEARTBEAT_KEY, self.core.clock())

    async def close(self) -> None:
        with contextlib.suppress(Exception):   # logged where it failed
            await self.postponed()
        if self._refreshing is not None:
            self._refreshing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._refreshing


def _postpone(lives: list[LiveTable], downtime: float) -> list[tuple[LiveTable, int]]:
    """Give people back the downtime (R10.4): every game's deadlines later, in memory; the
    tables whose game moved, with the version each was at."""
    moved = []
    if downtime > 0:
        for live in lives:
            old = live.game.version
            live.game.postpone(downtime)
            if live.game.version != old:
                moved.append((live, old))
    return moved
