"""TableService: the one place a table changes — lock, engine, store, schedule, publish.

Handlers turn a tap into a `Tap` and call `tap`; the scheduler calls `_wake` when a deadline, a
computer player's move or a timer-bar redraw is due. Both take the table's lock, let the engine
apply or refuse, write the new state and its log entries in one transaction, re-arm the table's
timer and hand every player's new screen to the publisher. What a tap means is `taps`' business,
when computers move is `wakeups`', which language a player reads is `PlayerLanguages`'.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from engine import Action, Event, EventKind, Game, IllegalMove, PlayerView
from tg_durak.i18n.translate import Translator, translator
from tg_durak.ops.gc_tuning import paused
from tg_durak.outbox.publisher import Priority, Publisher, Screen
from tg_durak.play.history import History
from tg_durak.play.options import PlaySettings
from tg_durak.play.records import MessageRow, SeatRow, TableChange, TableRow
from tg_durak.play.stale_taps import ShownScreens, rewound, round_start, still_meant
from tg_durak.play.taps import Choose, Choosing, Position, Reply, Tap
from tg_durak.render.game import GameScreenInput, SeatInfo, game_screen
from tg_durak.storage import CorruptRow, Store
from tg_durak.tables.absences import AbsentPlayers
from tg_durak.tables.chats import ChatLifecycle
from tg_durak.tables.computers import ComputerPlayers
from tg_durak.tables.languages import PlayerLanguages
from tg_durak.tables.lobbies import GroupTables, LiveLobby
from tg_durak.tables.reactions import Reaction, next_bar_redraw, next_reaction, plan_reactions
from tg_durak.tables.scheduler import Scheduler

log = logging.getLogger(__name__)

AWAY_LEVEL = "normal"  # who plays for a player marked away (R10.2)
HEARTBEAT_KEY = "alive_at"
SAVE_RETRY_SECONDS = 1.0   # after the store refused a change, the table's next try
ENDS_SHOWN_AGAIN_SECONDS = 60.0   # tables finished this long before the last heartbeat
ROUND_ENDS = frozenset({EventKind.BEATEN, EventKind.TAKEN})
REFRESH_CHUNK = 200   # screens drawn after a start before taps get their turn again


@dataclass(slots=True)   # one per running table: no attribute dict
class LiveTable:
    row: TableRow
    game: Game
    history: History = field(init=False)  # what the screens tell of the last moves
    choosing: dict[int, Choosing] = field(default_factory=dict)
    # user -> (chat, message) of his game message; None -> the group's public message
    messages: dict[int | None, tuple[int, int]] = field(default_factory=dict)
    reactions: dict[int, Reaction] = field(default_factory=dict)  # computer seat -> its next move
    planned_at: dict[int, float] = field(default_factory=dict)  # when each was planned (R10.3)
    thinking: set[int] = field(default_factory=set)  # seats whose decision is under way
    bar_at: float | None = None
    resigned: int | None = None
    # The version the current round began at (stale taps); None: not known yet (after a
    # restart or the round's end), found from the log when a stale tap first needs it.
    round_from: int | None = 0
    shown: ShownScreens = field(default_factory=ShownScreens)   # what late taps are read against
    # People's seats: tapped again while the engine still counts them away (R10.2); whose
    # private chat refuses the bot (403); whose absence the group was told of.
    back: set[int] = field(default_factory=set)
    unreachable: set[int] = field(default_factory=set)
    told_unreachable: set[int] = field(default_factory=set)
    group_gone: bool = False  # the bot left the group: no group message any more
    # What each seat sees and may do, built once per version of the game (and set of seats
    # away); each person's last screen with what it was drawn from, so that a change leaving
    # his screen as it was (a stale or refused tap) draws nothing.
    _seen: dict[int, tuple[PlayerView, tuple[Action, ...]]] = field(default_factory=dict)
    _seen_at: tuple = ()
    drawn: dict[int, tuple[GameScreenInput, Translator, Screen]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.history = History(self.game.table)  # after a restart: no moves, the table as it is
        # The live game is the table's state: the stored snapshot is not kept beside it.
        self.row = replace(self.row, snapshot=None)

    @property
    def id(self) -> int:
        return self.row.id

    def seat_of(self, user_id: int) -> int | None:
        """The user's seat, unless he left it or was removed from it."""
        return next((s.seat for s in self.people if s.user_id == user_id), None)

    @property
    def humans(self) -> list[SeatRow]:
        return [s for s in self.row.seats if s.user_id is not None]

    @property
    def people(self) -> list[SeatRow]:
        """The persons still at the table (those who left or were removed are not)."""
        return [s for s in self.humans if s.status == "playing"]

    @property
    def away(self) -> frozenset[int]:
        """People's seats a computer plays meanwhile: after two time-outs in a row until the
        person taps again (R10.2), and while his private chat refuses the bot."""
        mine = {s.seat for s in self.people}
        return frozenset(((self.game.away - self.back) | self.unreachable) & mine)

    @property
    def seat_infos(self) -> tuple[SeatInfo, ...]:
        return tuple(SeatInfo(s.name, s.user_id is None, s.level, left=s.status != "playing")
                     for s in self.row.seats)

    def seen_by(self, seat: int) -> tuple[PlayerView, tuple[Action, ...]]:
        """What `seat` may see (everyone a computer plays for meanwhile marked away) and do."""
        game, away = self.game, self.away
        stamp = (game, game.version, away)
        if stamp != self._seen_at:
            self._seen, self._seen_at = {}, stamp
        seen = self._seen.get(seat)
        if seen is None:
            view = game.view(seat)
            seen = self._seen[seat] = (replace(view, away=away) if away else view,
                                       tuple(game.legal_actions(seat)))
        return seen

    def view(self, seat: int) -> PlayerView:
        return self.seen_by(seat)[0]

    @property
    def nobody_left(self) -> bool:
        """No person is still playing (all out, left or removed): their places are settled,
        the computers' fight is nobody's."""
        active = self.game.active_seats
        return not any(s.seat in active for s in self.people)

    @property
    def finished(self) -> bool:
        return self.game.is_over or self.resigned is not None or self.nobody_left


def _snapshot(game: Game) -> dict:
    return game.to_dict(log=False)


def _live(row: TableRow, entries: list, messages: list[MessageRow]) -> LiveTable:
    """A stored table brought back to life: its game from the snapshot and the log."""
    if row.snapshot is None:
        raise ValueError(f"table {row.id} has no snapshot")
    if len(entries) != row.version:
        raise ValueError(f"table {row.id} is at version {row.version} with {len(entries)} "
                         "log entries")
    live = LiveTable(row, Game.from_dict({**row.snapshot, "log": entries}), round_from=None)
    for m in messages:
        live.messages[m.user_id] = (m.chat_id, m.message_id)
    return live


def _on_turn(game: Game) -> int | None:
    """The seat whose clock runs (R10.2): the attacker to lead, else the defender facing the
    attack; None while the others may only throw in."""
    if game.turn_due is None:
        return None
    return game.defender if game.attacks else game.attacker


class TableService(GroupTables, AbsentPlayers, ChatLifecycle):
    def __init__(
        self,
        store: Store,
        publisher: Publisher,
        computers: ComputerPlayers,
        *,
        time_scale: float = 1.0,
        clock: Callable[[], float] = time.time,
        make_scheduler: Callable[..., Scheduler] = Scheduler,
    ) -> None:
        """`make_scheduler(wake, clock)` builds the tables' timer (tests wind a manual one)."""
        self.store = store
        self.publisher = publisher
        self.computers = computers
        self.time_scale = time_scale
        self.clock = clock
        self.scheduler = make_scheduler(self._wake, clock)
        self.languages = PlayerLanguages(store)
        self._tables: dict[int, LiveTable] = {}
        # per table id; ("chat", chat_id) guards a group chat's one open table
        self._locks: defaultdict[object, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._lobbies: dict[int, LiveLobby] = {}
        self._counts: Counter[str] = Counter()   # taps by outcome, resume time (`stats`)
        self._refreshing: asyncio.Task[None] | None = None   # screens after a start
        self._postponing: asyncio.Task[None] | None = None   # storing its postponement

    def stats(self) -> dict[str, float]:
        """What the service counted (tg_durak/stats.py): taps by outcome, tables, timers."""
        return {**self._counts, "running": len(self._tables), "timers": self.scheduler.armed}

    # ---- players' languages --------------------------------------------------------------

    def remember_locale(self, user_id: int, locale: str) -> None:
        self.languages.remember(user_id, locale)

    async def change_locale(self, user_id: int, locale: str) -> None:
        """A player switched language: his game message follows at once."""
        self.languages.remember(user_id, locale)
        live = self._live_for(user_id)
        if live is not None:
            self._publish(live, only=user_id)

    # ---- starting and finding games ------------------------------------------------------

    def _live_for(self, user_id: int) -> LiveTable | None:
        return next((t for t in self._tables.values()
                     if not t.finished and t.seat_of(user_id) is not None), None)

    def running_table_of(self, user_id: int) -> int | None:
        """The table (a lobby too) where the user has a seat, if any."""
        live = self._live_for(user_id)
        if live is not None:
            return live.id
        return next((lobby.id for lobby in self._lobbies.values()
                     if lobby.lobby.seat_of(user_id) is not None), None)

    async def start_private(
        self, user_id: int, name: str, settings: PlaySettings,
        message: tuple[int, int] | None = None,
    ) -> int | None:
        """A game against computer players; None if the user is already playing one.

        `message` (chat, message id) is edited into the game; otherwise a new one is sent.
        """
        if self.running_table_of(user_id) is not None:
            return None
        rules = settings.to_rules(self.time_scale)
        now = self.clock()
        game = Game.new(rules, secrets.randbits(63), now)
        seats = [SeatRow(0, user_id, name, None)] + [
            SeatRow(i, None, "", settings.level) for i in range(1, settings.bots + 1)
        ]
        row = await self.store.tables.create(
            user_id, "private", "running", settings.to_dict(), seats, _snapshot(game)
        )
        live = LiveTable(row, game)
        self._plan(live, [])
        if message is not None:
            await self.store.messages.set(row.id, user_id, *message)
            live.messages[user_id] = message
        self._tables[row.id] = live
        self._publish(live)
        self._schedule(live)
        return row.id

    async def resume(self) -> int:
        """After a start: load running tables, give humans back the downtime (R10.4), re-arm.

        Every timer is armed before the postponement is stored: until it is, each postponed
        table's lock is held (a tap or a timer on it waits, nothing else stores it first) and
        the heartbeat waits, so a crash meanwhile gives the whole downtime back next time."""
        started = time.perf_counter()
        now = self.clock()
        alive_at = await self.store.meta.get(HEARTBEAT_KEY)
        downtime = now - alive_at if isinstance(alive_at, int | float) else 0.0
        await self._resume_lobbies()
        with paused():
            lives = await self._load_running()
            moved = self._postpone(lives, downtime)
            held = [self._locks[live.id] for live, _ in moved]
            for lock in held:
                await lock.acquire()   # free: no tap or timer knows the table yet
            for live in lives:
                self._plan(live, [])
                self._tables[live.id] = live
                if live.finished:   # stored as running: its end was refused before the stop
                    self.scheduler.arm(live.id, now)   # `_wake` stores it
                else:
                    self._schedule(live)
        self._counts["resumed"] = len(lives)
        self._counts["resume_s"] = time.perf_counter() - started   # every timer armed
        self._postponing = asyncio.create_task(self._store_postponement(moved, held, started))
        # Screens go out after the timers are set, a chunk at a time: the bot answers taps
        # meanwhile (Telegram's budget takes minutes to show them all anyway).
        self._refreshing = asyncio.create_task(self._refresh(lives))
        if isinstance(alive_at, int | float):
            await self._show_ends(alive_at - ENDS_SHOWN_AGAIN_SECONDS)
        return len(lives)

    async def _show_ends(self, since: float) -> None:
        """Tables that finished just before the bot stopped: a crash right after the last move
        may have kept their last screens from going out, so they are shown again (one that did
        go out costs Telegram nothing: it refuses an edit that changes nothing)."""
        for row in await self.store.tables.finished_since(since):
            try:
                self._publish(await self._load(row))
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
                lives.append(_live(row, logs.get(row.id, []), messages.get(row.id, [])))
            except (ValueError, CorruptRow):
                log.exception("table %s cannot be resumed; left untouched", row.id)
        return lives

    async def _load(self, row: TableRow) -> LiveTable:
        live = _live(row, await self.store.tables.log(row.id),
                     await self.store.messages.of_table(row.id))
        self._plan(live, [])
        await self.languages.load(s.user_id for s in live.humans)
        return live

    @staticmethod
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

    async def _store_postponement(self, moved: list[tuple[LiveTable, int]],
                                  held: list[asyncio.Lock], started: float) -> None:
        """Store the postponed games in one transaction, one table at a time if that fails;
        then let go of their locks (`held`)."""
        try:
            await self.store.tables.record_many([
                TableChange(live.id, old, [Game.entry_to_json(e) for e in live.game.log[old:]],
                            _snapshot(live.game)) for live, old in moved])
        except Exception:
            log.exception("postponing %d tables at once failed; one at a time", len(moved))
            for live, old in moved:
                await self._commit(live, old, [])
        finally:
            for lock in held:
                lock.release()
        self._counts["postponed_s"] = time.perf_counter() - started   # and stored

    async def postponed(self) -> None:
        """Wait until the downtime given back at the start is stored (or refused)."""
        if self._postponing is not None:
            await asyncio.shield(self._postponing)

    async def _refresh(self, lives: list[LiveTable]) -> None:
        """Show every resumed table's screens again, yielding to taps between chunks.

        Not before the postponement is stored: its write takes a few trips to SQLite's thread,
        each of which would wait for a chunk, and the tables stay locked until it is done."""
        with contextlib.suppress(Exception):   # logged where it failed
            await self.postponed()
        for done, live in enumerate(lives, 1):
            if self._tables.get(live.id) is live and not live.finished:
                self._publish(live)
            if done % REFRESH_CHUNK == 0:
                await asyncio.sleep(0)

    async def refreshed(self) -> None:
        """Wait until the screens of the tables resumed at the start have been handed out."""
        if self._refreshing is not None:
            await asyncio.shield(self._refreshing)

    async def heartbeat(self) -> None:
        # Not before the downtime given back is stored: a crash meanwhile gives it back again.
        await self.postponed()
        await self.store.meta.set(HEARTBEAT_KEY, self.clock())

    # ---- taps ----------------------------------------------------------------------------

    async def tap(self, user_id: int, table_id: int, version: int, pressed: Tap) -> Reply:
        """A tap on the message that showed `version` of the table.

        A stale, foreign, forged or refused tap changes nothing; the reply says why.
        """
        reply = await self._tap(user_id, table_id, version, pressed)
        self._counts[f"tap:{reply.key or 'ok'}"] += 1
        return reply

    async def _tap(self, user_id: int, table_id: int, version: int, pressed: Tap) -> Reply:
        live = self._tables.get(table_id)
        if live is None:
            return await self._reply_for_closed(table_id)
        seat = live.seat_of(user_id)
        if seat is None:
            return Reply("tap.not_seated", alert=True)
        async with self._locks[live.id]:
            game = live.game
            if live.finished:
                self._publish(live, only=user_id)
                return Reply("tap.game_over")
            if seat in live.away:
                await self._come_back(live, seat)
            choosing = live.choosing.get(seat, Choosing())
            now = Position(*live.seen_by(seat), choosing)
            if version == game.version:
                outcome = pressed.outcome(now)
            else:
                if live.round_from is None:
                    live.round_from = round_start(game)
                outcome = still_meant(game, live.round_from, version, pressed, now,
                                      live.shown.at(seat, version, choosing))
                if outcome is None:
                    self._publish(live, only=user_id)
                    return Reply("tap.stale")
            if isinstance(outcome, Choose):
                live.choosing[seat] = outcome.state
                outcome = outcome.reply
            if isinstance(outcome, Reply):
                self._publish(live, only=user_id)
                return outcome
            return await self._play(live, seat, outcome)

    async def _reply_for_closed(self, table_id: int) -> Reply:
        """A tap on a table that is not running here: over, unknown, or unreadable."""
        try:
            row = await self.store.tables.get(table_id)
        except CorruptRow:
            return Reply("tap.broken", alert=True)
        if row is None:
            return Reply("tap.unknown_table", alert=True)
        return Reply("tap.game_over")

    async def _play(self, live: LiveTable, seat: int, action: Action) -> Reply:
        game = live.game
        old = game.version
        try:
            events = game.apply(seat, action, self.clock())
        except IllegalMove as exc:
            return Reply(f"illegal.{exc.code}", alert=True)
        live.choosing.pop(seat, None)
        if not await self._commit(live, old, events):
            return Reply("error.not_saved", alert=True)
        return Reply()

    async def resign(self, user_id: int) -> bool:
        """He gives up his game: a private one ends; at a group's table the others play on,
        a computer in his seat (as after /leave), or one person could end everyone's game."""
        live = self._live_for(user_id)
        if live is None:
            return False
        if live.row.kind == "group":
            return not (await self.leave_game(user_id)).alert
        async with self._locks[live.id]:
            if live.finished:
                return False
            seat = live.seat_of(user_id)
            results = [(s.user_id, "resigned" if s.seat == seat else "safe", 0)
                       for s in live.humans]
            # Stored first: a refusal (StoreUnavailable, answered politely by the handlers)
            # leaves the game running in memory as in the store.
            await self.store.tables.finish(live.id, "aborted", results)
            live.resigned = seat
            self.scheduler.arm(live.id, None)
            self._publish(live)
            self._forget(live)
        return True

    def _forget(self, live: LiveTable) -> None:
        """A finished table leaves memory; later taps on it are answered from the store."""
        self._tables.pop(live.id, None)
        self._locks.pop(live.id, None)

    # ---- the clock and the computer players ---------------------------------------------

    async def _wake(self, table_id: int) -> None:
        """The scheduler's call: a deadline, a computer's move or a timer-bar redraw is due.

        Each computer seat thinks on its own (one decision in flight per seat, several seats
        at once), out of the lock, so others may move meanwhile; `_react` then re-checks it.
        A lobby's only timer is its expiry.
        """
        if table_id in self._lobbies:
            await self._expire(table_id)
            return
        live = self._tables.get(table_id)
        if live is None:
            return
        if live.finished:   # the end the last person's leaving brought was refused: again
            async with self._locks[table_id]:
                if self._tables.get(table_id) is live:
                    await self._commit(live, live.game.version, [])
            return
        async with self._locks[table_id]:
            reaction = await self._catch_up(live)
        while reaction is not None:
            action = await self._think(live, reaction)
            async with self._locks[table_id]:
                reaction = await self._react(live, reaction, action)

    async def _catch_up(self, live: LiveTable) -> Reaction | None:
        """Apply the deadlines that have passed; claim a computer's reaction if one is due."""
        game, now = live.game, self.clock()
        old = game.version
        events = game.advance(now)
        if game.version != old and (not await self._commit(live, old, events) or live.finished):
            return None
        reaction = next_reaction(live.reactions, live.thinking)
        if reaction is not None and reaction.at <= now:
            live.thinking.add(reaction.seat)
            self._schedule(live)   # the other seats' reactions keep their own times
            return reaction
        if live.bar_at is not None and live.bar_at <= now and self.publisher.has_spare_budget():
            self._publish(live, low_priority=True)
        self._schedule(live)
        return None

    async def _think(self, live: LiveTable, reaction: Reaction) -> Action:
        """The seat's move in the table as it is now; a forced move costs no worker's time."""
        game, seat = live.game, reaction.seat
        legal = game.legal_actions(seat)
        if len(legal) == 1:
            return legal[0]
        level = live.row.seats[seat].level or AWAY_LEVEL
        try:
            return await self.computers.choose(level, game.view(seat), legal,
                                               f"{game.seed}/{game.version}/{seat}")
        except Exception:
            log.exception("table %s: computer player failed; it plays its first move", live.id)
            return legal[0]

    async def _react(self, live: LiveTable, reaction: Reaction, action: Action
                     ) -> Reaction | None:
        """Play a decision if it still stands; the reaction to think again about, if any.

        Meanwhile the table may have changed. A change that concerned the seat has planned a
        new reaction (with its own pause) and this decision is dropped; one that did not leaves
        the reaction in place: its decision is played if still legal, else the seat thinks
        again at once about the table as it is (its pause ran from the change it reacts to).
        """
        seat = reaction.seat
        live.thinking.discard(seat)
        if live.finished or self._tables.get(live.id) is not live:
            return None
        game, now = live.game, self.clock()
        if live.reactions.get(seat) is not reaction:
            self._schedule(live)
            return None
        old = game.version
        due = game.next_deadline
        if due is not None and due <= now:
            await self._commit(live, old, game.advance(now))  # the deadline came first
            return None
        if action not in game.legal_actions(seat):
            live.thinking.add(seat)
            return reaction
        for_person = live.row.seats[seat].user_id is not None
        self._count_reaction(now - live.planned_at.get(seat, now), game.rules.bot_delay[1])
        await self._commit(live, old, game.apply(seat, action, now, auto=for_person))
        return None

    def _count_reaction(self, took: float, window: float) -> None:
        """A computer's move `took` seconds after the change it reacts to (R10.3: `window`)."""
        counts = self._counts
        counts["computer_moves"] += 1
        counts["computer_late"] += took > window
        counts["computer_slowest_s"] = max(counts["computer_slowest_s"], took)

    def _plan(self, live: LiveTable, events: list[Event]) -> None:
        live.back -= {e.seat for e in events if e.kind == EventKind.TIMEOUT}   # away again
        people = {s.seat for s in live.people} - live.away
        now, before = self.clock(), live.reactions
        live.reactions = plan_reactions(live.game, people, before, events, now)
        for seat, reaction in live.reactions.items():
            if before.get(seat) is not reaction:
                live.planned_at[seat] = now

    def _schedule(self, live: LiveTable) -> None:
        if live.finished:
            self.scheduler.arm(live.id, None)
            return
        times = [live.game.next_deadline]
        reaction = next_reaction(live.reactions, live.thinking)
        if reaction is not None:
            times.append(reaction.at)
        live.bar_at = next_bar_redraw(live.game, self.clock())
        times.append(live.bar_at)
        self.scheduler.arm(live.id, min((t for t in times if t is not None), default=None))

    # ---- writing and showing --------------------------------------------------------------

    async def _commit(self, live: LiveTable, old_version: int, events: list[Event]) -> bool:
        """Store what changed since `old_version` in one transaction, then show and schedule.

        False if the store refused it (a full disk, a lock held too long): the game goes back
        to `old_version`, which is what the store still holds, and the table's timer tries
        again in SAVE_RETRY_SECONDS (not at once: the store is unlikely to be back so soon).
        """
        game = live.game
        entries = [Game.entry_to_json(e) for e in game.log[old_version:]]
        status = "finished" if live.finished else "running"
        results = self._results(live) if live.finished else []
        try:
            await self.store.tables.record(TableChange(live.id, old_version, entries,
                                                       _snapshot(game), status, results))
        except Exception:
            log.exception("table %s: saving failed; back to version %s", live.id, old_version)
            # The transaction rolled back: replaying the log is the stored state, without a read
            # from a store in trouble. The table keeps who is away, blocked or choosing, and the
            # computers' reactions (one that was refused is tried again).
            live.game = rewound(game, old_version)
            self._publish(live)
            self.scheduler.arm(live.id, self.clock() + SAVE_RETRY_SECONDS)
            return False
        self._plan(live, events)
        live.history.note(events)
        if any(e.kind in ROUND_ENDS for e in events):
            live.round_from = None
        self._publish(live)
        self._schedule(live)
        if live.finished:
            self._forget(live)
        return True

    def _results(self, live: LiveTable) -> list[tuple[int, str, int]]:
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

    def _publish(self, live: LiveTable, only: int | None = None,
                 low_priority: bool = False) -> None:
        game = live.game
        common = {  # what every seat's screen shows alike
            "table_id": live.id, "version": game.version, "seats": live.seat_infos,
            "last": tuple(live.history.recent), "played_by": live.history.played_by(game.table),
            "now": self.clock(), "resigned": live.resigned, "closed": live.finished,
            "leave": live.row.kind == "group"}
        # Under a tight budget whoever the game waits for sees his screen first.
        on_turn = _on_turn(game)
        for seat in live.people:
            if (only is not None and seat.user_id != only) or seat.seat in live.unreachable:
                continue
            screen = self._screen(live, seat, common, redraw=low_priority)
            chat_id, message_id = live.messages.get(seat.user_id, (seat.user_id, None))
            priority = Priority.BAR if low_priority else (
                Priority.MOVER if seat.seat == on_turn else Priority.PLAYER)
            self.publisher.show((live.id, seat.user_id), chat_id, message_id, screen,
                                priority=priority)
        # The group's budget is 20 a minute: its message changes with the table, never a bar.
        if live.row.kind == "group" and not live.group_gone and only is None and not low_priority:
            self._publish_group(live)

    def _screen(self, live: LiveTable, seat: SeatRow, common: dict, redraw: bool) -> Screen:
        """The person's game screen, drawn anew only if what it shows changed (or `redraw`:
        the timer bar)."""
        view, legal = live.seen_by(seat.seat)
        live.shown.note(common["version"], view, legal)
        choosing = live.choosing.get(seat.seat, Choosing())
        inp = GameScreenInput(**common, view=view, legal=legal, choosing_card=choosing.card,
                              choosing_transfer=choosing.transfer)
        t = translator(self.languages.of(seat.user_id))
        drawn = live.drawn.get(seat.seat)
        if (not redraw and drawn is not None and drawn[1] is t
                and drawn[0] == replace(inp, now=drawn[0].now)):
            return drawn[2]
        screen = game_screen(inp, t)
        live.drawn[seat.seat] = (inp, t, screen)
        return screen

    async def on_new_message(self, key: object, chat_id: int, message_id: int) -> None:
        """The publisher sent a fresh message for a player (or the group): remember it for later
        edits. A private message that went through means the bot may write to him."""
        if not (isinstance(key, tuple) and len(key) == 2):
            return   # a one-off notice (someone out of reach): never edited
        table_id, user_id = key
        holder = self._tables.get(table_id) or self._lobbies.get(table_id)
        if holder is not None:
            holder.messages[user_id] = (chat_id, message_id)
        await self.store.messages.set(table_id, user_id, chat_id, message_id)
        if user_id is not None:
            await self.store.users.set_reachable(user_id, True)

    async def close(self) -> None:
        with contextlib.suppress(Exception):   # logged where it failed
            await self.postponed()
        if self._refreshing is not None:
            self._refreshing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._refreshing
        await self.scheduler.close()
