"""TableService: the one place a table changes — lock, engine, store, schedule, publish.

Handlers parse a tap and call `tap`; the scheduler calls `_wake` when a deadline or a computer
player's move is due. Both take the table's lock, let the engine apply or refuse, write the new
state and its log entries in one transaction, re-arm the table's timer and hand every player's
new screen to the publisher.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from engine import Action, Card, Event, Game, IllegalMove, Rules
from engine.actions import PASS, TAKE
from engine.cards import CARDS
from tg_durak.callbacks import Move
from tg_durak.computer import ComputerPlayers
from tg_durak.i18n import DEFAULT_LOCALE, translator
from tg_durak.publisher import Publisher
from tg_durak.render.game import GameScreenInput, SeatInfo, game_screen
from tg_durak.scheduler import Scheduler
from tg_durak.store import CorruptRow, SeatRow, Store, TableRow

log = logging.getLogger(__name__)

LEVELS = ("easy", "normal", "hard")
AWAY_LEVEL = "normal"  # who plays for a player marked away (R10.2)
HEARTBEAT_KEY = "alive_at"


@dataclass(frozen=True)
class PlaySettings:
    """A private game's setup; saved per user as the "last settings"."""

    variant: str = "throw-in"
    bots: int = 1
    level: str = "normal"

    @classmethod
    def from_dict(cls, d: dict | None) -> PlaySettings:
        d = d or {}
        variant = d.get("variant") if d.get("variant") in ("throw-in", "transfer") else "throw-in"
        bots = d.get("bots") if isinstance(d.get("bots"), int) and 1 <= d["bots"] <= 5 else 1
        level = d.get("level") if d.get("level") in LEVELS else "normal"
        return cls(variant, bots, level)

    def to_dict(self) -> dict:
        return {"variant": self.variant, "bots": self.bots, "level": self.level}


@dataclass(frozen=True)
class Reply:
    """How a tap is answered: an alert key (None: a silent answer) and its parameters."""

    key: str | None = None
    params: dict = field(default_factory=dict)
    alert: bool = False


@dataclass
class Choosing:
    """What one player is in the middle of choosing; screen state, never game state."""

    card: Card | None = None   # a defence card waiting for its target
    transfer: bool = False     # picking the card to transfer with


@dataclass
class LiveTable:
    row: TableRow
    game: Game
    changed_at: float
    last: list[Event] = field(default_factory=list)
    choosing: dict[int, Choosing] = field(default_factory=dict)
    messages: dict[int, tuple[int, int]] = field(default_factory=dict)  # user -> chat, message
    thinking: bool = False
    bar_at: float | None = None
    resigned: int | None = None

    @property
    def id(self) -> int:
        return self.row.id

    def seat_of(self, user_id: int) -> int | None:
        return next((s.seat for s in self.row.seats if s.user_id == user_id), None)

    @property
    def humans(self) -> list[SeatRow]:
        return [s for s in self.row.seats if s.user_id is not None]

    @property
    def nobody_left(self) -> bool:
        """Every person is out: their places are settled, the computers' fight is nobody's."""
        active = self.game.active_seats
        return not any(s.seat in active for s in self.humans)

    @property
    def finished(self) -> bool:
        return self.game.is_over or self.resigned is not None or self.nobody_left


def _snapshot(game: Game) -> dict:
    return game.to_dict(log=False)


class TableService:
    def __init__(
        self,
        store: Store,
        publisher: Publisher,
        computers: ComputerPlayers,
        *,
        time_scale: float = 1.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.publisher = publisher
        self.computers = computers
        self.time_scale = time_scale
        self.clock = clock
        self.scheduler = Scheduler(self._wake, clock)
        self._tables: dict[int, LiveTable] = {}
        self._locks: defaultdict[int, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._locales: dict[int, str] = {}

    # ---- players' languages --------------------------------------------------------------

    def locale_of(self, user_id: int) -> str:
        return self._locales.get(user_id, DEFAULT_LOCALE)

    def remember_locale(self, user_id: int, locale: str) -> None:
        self._locales[user_id] = locale

    async def change_locale(self, user_id: int, locale: str) -> None:
        """A player switched language: his game message follows at once."""
        self._locales[user_id] = locale
        live = self._live_for(user_id)
        if live is not None:
            self._publish(live, only=user_id)

    # ---- starting and finding games ------------------------------------------------------

    def _live_for(self, user_id: int) -> LiveTable | None:
        return next((t for t in self._tables.values()
                     if not t.finished and t.seat_of(user_id) is not None), None)

    def running_table_of(self, user_id: int) -> int | None:
        live = self._live_for(user_id)
        return None if live is None else live.id

    async def start_private(
        self, user_id: int, name: str, settings: PlaySettings,
        message: tuple[int, int] | None = None,
    ) -> int | None:
        """A game against computer players; None if the user is already playing one.

        `message` (chat, message id) is edited into the game; otherwise a new one is sent.
        """
        if self._live_for(user_id) is not None:
            return None
        rules = Rules(variant=settings.variant, players=settings.bots + 1).scaled(self.time_scale)
        now = self.clock()
        game = Game.new(rules, secrets.randbits(63), now)
        seats = [SeatRow(0, user_id, name, None)] + [
            SeatRow(i, None, "", settings.level) for i in range(1, settings.bots + 1)
        ]
        row = await self.store.create_table(
            user_id, "private", "running", settings.to_dict(), seats, _snapshot(game)
        )
        live = LiveTable(row, game, now)
        if message is not None:
            await self.store.set_message(row.id, user_id, *message)
            live.messages[user_id] = message
        self._tables[row.id] = live
        self._publish(live)
        self._schedule(live)
        return row.id

    async def resume(self) -> int:
        """After a start: load running tables, give humans back the downtime (R10.4), re-arm."""
        now = self.clock()
        alive_at = await self.store.get_meta(HEARTBEAT_KEY)
        downtime = now - alive_at if isinstance(alive_at, int | float) else 0.0
        count = 0
        for row in await self.store.running_tables():
            try:
                live = await self._load(row, now)
            except (ValueError, CorruptRow):
                log.exception("table %s cannot be resumed; left untouched", row.id)
                continue
            async with self._locks[row.id]:
                self._tables[row.id] = live
                if downtime > 0:
                    old = live.game.version
                    live.game.postpone(downtime)
                    await self._commit(live, old, [])
                else:
                    self._publish(live)
                    self._schedule(live)
            count += 1
        return count

    async def _load(self, row: TableRow, now: float) -> LiveTable:
        if row.snapshot is None:
            raise ValueError(f"table {row.id} has no snapshot")
        game = Game.from_dict({**row.snapshot, "log": await self.store.log(row.id)})
        live = LiveTable(row, game, now)
        for m in await self.store.messages(row.id):
            if m.user_id is not None:
                live.messages[m.user_id] = (m.chat_id, m.message_id)
        for seat in live.humans:
            if seat.user_id not in self._locales:
                user = await self.store.get_user(seat.user_id)
                if user is not None and user.language:
                    self._locales[seat.user_id] = user.language
        return live

    async def heartbeat(self) -> None:
        await self.store.set_meta(HEARTBEAT_KEY, self.clock())

    # ---- taps ----------------------------------------------------------------------------

    async def tap(self, user_id: int, cb: Move) -> Reply:
        live = self._tables.get(cb.table)
        if live is None:
            try:
                row = await self.store.get_table(cb.table)
            except CorruptRow:
                return Reply("tap.broken", alert=True)
            if row is None:
                return Reply("tap.unknown_table", alert=True)
            return Reply("tap.game_over")
        seat = live.seat_of(user_id)
        if seat is None:
            return Reply("tap.not_seated", alert=True)
        async with self._locks[live.id]:
            game = live.game
            if cb.verb == "r" or live.finished:
                self._publish(live, only=user_id)
                return Reply(None if cb.verb == "r" else "tap.game_over")
            if cb.v != game.version:
                self._publish(live, only=user_id)
                return Reply("tap.stale")
            try:
                action = self._interpret(live, seat, cb)
            except IllegalMove as exc:
                return Reply(f"illegal.{exc.code}", alert=True)
            if isinstance(action, Reply):
                self._publish(live, only=user_id)
                return action
            old = game.version
            try:
                events = game.apply(seat, action, self.clock())
            except IllegalMove as exc:
                return Reply(f"illegal.{exc.code}", alert=True)
            live.choosing.pop(seat, None)
            await self._commit(live, old, events)
        return Reply()

    def _interpret(self, live: LiveTable, seat: int, cb: Move) -> Action | Reply:
        """Turn a tap into an engine action, or into a change of what the player is choosing."""
        game = live.game
        choosing = live.choosing.setdefault(seat, Choosing())
        card = CARDS[cb.card] if 0 <= cb.card < len(CARDS) else None
        if cb.verb in ("c", "t", "s", "X") and card is None:
            return Reply("tap.unknown", alert=True)
        legal = game.legal_actions(seat)
        if cb.verb == "n":
            live.choosing.pop(seat, None)
            return Reply()
        if cb.verb == "k":
            return TAKE
        if cb.verb == "p":
            return PASS
        if cb.verb == "t":
            return Action("defend", card, cb.target)
        if cb.verb == "s":
            return Action("show_trump", card)
        if cb.verb == "X":
            return Action("transfer", card)
        if cb.verb == "x":
            fits = [a for a in legal if a.kind == "transfer"]
            if len(fits) == 1:
                return fits[0]
            if not fits:
                return Reply("tap.cannot_transfer", alert=True)
            choosing.transfer, choosing.card = True, None
            return Reply("tap.choose_transfer")
        if cb.verb != "c":
            return Reply("tap.unknown", alert=True)
        if choosing.transfer:
            return Action("transfer", card)
        if seat == game.defender and game.phase == "defend":
            targets = [a.target for a in legal if a.kind == "defend" and a.card is card]
            if len(targets) == 1:
                return Action("defend", card, targets[0])
            if len(targets) > 1:
                choosing.card = card
                return Reply("tap.choose_target")
            first_open = next(i for i, (_, d) in enumerate(game.table) if d is None)
            return Action("defend", card, first_open)  # the engine says why it cannot
        return Action("attack", card)

    async def resign(self, user_id: int) -> bool:
        live = self._live_for(user_id)
        if live is None:
            return False
        async with self._locks[live.id]:
            if live.finished:
                return False
            seat = live.seat_of(user_id)
            live.resigned = seat
            results = [(s.user_id, "resigned" if s.seat == seat else "safe", 0)
                       for s in live.humans]
            await self.store.finish(live.id, "aborted", results)
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
        live = self._tables.get(table_id)
        if live is None or live.finished:
            return
        async with self._locks[table_id]:
            game = live.game
            now = self.clock()
            old = game.version
            events = game.advance(now)
            if game.version != old:
                await self._commit(live, old, events)
                if live.finished:
                    return
            plan = None if live.thinking else self._computer_plan(live)
            if plan is None or plan[1] > now:
                if live.bar_at is not None and live.bar_at <= now:
                    self._publish(live, low_priority=True)
                self._schedule(live)
                return
            seat = plan[0]
            version = game.version
            view, legal = game.view(seat), game.legal_actions(seat)
            level = live.row.seats[seat].level or AWAY_LEVEL
            live.thinking = True
        try:
            seed = f"{game.seed}/{version}/{seat}"
            action = await self.computers.choose(level, view, legal, seed)
        except Exception:
            log.exception("table %s: computer player failed; it plays its first move", table_id)
            action = legal[0]
        async with self._locks[table_id]:
            live.thinking = False
            if live.finished or live.game is not game or game.version != version:
                self._schedule(live)
                return
            now = self.clock()
            due = game.next_deadline
            if due is not None and due <= now:
                events = game.advance(now)  # the deadline came first; the decision is moot
            else:
                for_person = live.row.seats[seat].user_id is not None
                events = game.apply(seat, action, now, auto=for_person)
            await self._commit(live, version, events)

    def _computer_plan(self, live: LiveTable) -> tuple[int, float] | None:
        """The computer-played seat that moves next, and when (R10.3)."""
        game = live.game
        best = None
        for seat in game.acting_seats:
            if live.row.seats[seat].user_id is not None and seat not in game.away:
                continue
            if (game.phase != "lead" and seat != game.defender
                    and PASS not in game.legal_actions(seat)):
                continue  # it has passed: it waits until the pass is cancelled
            at = live.changed_at + game.reaction_delay(seat)
            if best is None or at < best[1]:
                best = (seat, at)
        return best

    def _schedule(self, live: LiveTable) -> None:
        if live.finished:
            self.scheduler.arm(live.id, None)
            return
        game = live.game
        times = [game.next_deadline]
        plan = None if live.thinking else self._computer_plan(live)
        if plan is not None:
            times.append(plan[1])
        live.bar_at = self._next_bar(live)
        times.append(live.bar_at)
        self.scheduler.arm(live.id, min((t for t in times if t is not None), default=None))

    def _next_bar(self, live: LiveTable) -> float | None:
        """When a timer bar shown to a human next needs redrawing (lowest priority)."""
        game = live.game
        rules = game.rules
        if game.turn_due is not None:
            total = rules.turn_seconds
        elif game.window_due is not None:
            total = rules.throw_in_seconds
        else:
            return None
        return self.clock() + max(2.0, total / 6)

    # ---- writing and showing --------------------------------------------------------------

    async def _commit(self, live: LiveTable, old_version: int, events: list[Event]) -> None:
        """Store what changed since `old_version` in one transaction, then show and schedule."""
        game = live.game
        entries = [Game.entry_to_json(e) for e in game.log[old_version:]]
        status = "finished" if live.finished else "running"
        results = self._results(live) if live.finished else []
        try:
            await self.store.record(live.id, old_version, entries, _snapshot(game), status,
                                    results)
        except Exception:
            log.exception("table %s: saving failed; reloading the stored state", live.id)
            row = await self.store.get_table(live.id)
            if row is not None and row.status == "running":
                reloaded = await self._load(row, self.clock())
                reloaded.messages = live.messages
                self._tables[live.id] = reloaded
                live = reloaded
            events = []
        live.changed_at = self.clock()
        if events:
            live.last = events
        self._publish(live)
        self._schedule(live)
        if live.finished:
            self._forget(live)

    def _results(self, live: LiveTable) -> list[tuple[int, str, int]]:
        """Each person's outcome and place (R8.2: the order of leaving; the durak last)."""
        game = live.game
        order = game.finished_order
        out = []
        for seat in live.humans:
            if seat.seat == game.durak:
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
        now = self.clock()
        game = live.game
        seats = tuple(SeatInfo(s.name, s.user_id is None, s.level) for s in live.row.seats)
        for seat in live.humans:
            if only is not None and seat.user_id != only:
                continue
            choosing = live.choosing.get(seat.seat, Choosing())
            screen = game_screen(
                GameScreenInput(
                    table_id=live.id,
                    version=game.version,
                    view=game.view(seat.seat),
                    legal=tuple(game.legal_actions(seat.seat)),
                    seats=seats,
                    last=tuple(live.last),
                    now=now,
                    choosing_card=choosing.card,
                    choosing_transfer=choosing.transfer,
                    resigned=live.resigned,
                    closed=live.finished,
                ),
                translator(self.locale_of(seat.user_id)),
            )
            chat_id, message_id = live.messages.get(seat.user_id, (seat.user_id, None))
            self.publisher.show((live.id, seat.user_id), chat_id, message_id, screen,
                                low_priority=low_priority)

    async def on_new_message(self, key: object, chat_id: int, message_id: int) -> None:
        """The publisher sent a fresh message for a player: remember it for later edits."""
        table_id, user_id = key
        live = self._tables.get(table_id)
        if live is not None:
            live.messages[user_id] = (chat_id, message_id)
        await self.store.set_message(table_id, user_id, chat_id, message_id)

    async def close(self) -> None:
        await self.scheduler.close()
