"""What a process holds of each running table and open lobby, beside what the store keeps."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace

from engine import Action, Event, Game, PlayerView
from tg_durak.i18n.translate import Translator
from tg_durak.play.history import History
from tg_durak.play.lobby_rules import Lobby
from tg_durak.play.matching import QUICK_CHAT
from tg_durak.play.rows import MessageRow, SeatRow, SeatStatus, TableRow
from tg_durak.play.stale_taps import ShownScreens
from tg_durak.play.taps import Choosing
from tg_durak.render.game import GameScreenInput, SeatInfo
from tg_durak.render.screen import Screen
from tg_durak.tables.reactions import Reaction

# user -> (chat, message); None: the group's (its message a str: an inline message's id)
MessageIds = dict[int | None, tuple[int, int | str]]


@dataclass(slots=True)   # one per running table: no attribute dict
class LiveTable:
    row: TableRow
    game: Game
    # What the screens tell of the last moves: from the log when first needed (after a restart
    # a table that nobody looks at costs no replay), then kept up with each change.
    _history: History | None = field(default=None, init=False, repr=False)
    choosing: dict[int, Choosing] = field(default_factory=dict)
    messages: MessageIds = field(default_factory=dict)
    reactions: dict[int, Reaction] = field(default_factory=dict)  # computer seat -> its next move
    planned_at: dict[int, float] = field(default_factory=dict)  # when each was planned (R10.3)
    thinking: set[int] = field(default_factory=set)  # seats whose decision is under way
    # Each computer seat's decision, asked as its pause began, with the reaction it was asked
    # for (tables.decisions): a change that concerns the seat plans a new one and drops it.
    asked: dict[int, tuple[Reaction, asyncio.Future[Action]]] = field(default_factory=dict)
    bar_at: float | None = None
    # When the table next needs someone besides a timer bar (core.wake_of): what a shared
    # database keeps as its wake.
    wake_at: float | None = None
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
    in_app: set[int] = field(default_factory=set)   # seats whose Mini App is open
    group_gone: bool = False  # the bot left the group: no group message any more
    # Another process has changed the table since this one held it (updates spread round
    # robin): a timer armed here may have been made stale by it (tables.moves.wake).
    changed_elsewhere: bool = False
    # What each seat sees and may do, built once per version of the game (and set of seats
    # away); each person's last screen with what it was drawn from, so that a change leaving
    # his screen as it was (a stale or refused tap) draws nothing.
    _seen: dict[int, tuple[PlayerView, tuple[Action, ...]]] = field(default_factory=dict)
    _seen_at: tuple = ()
    drawn: dict[int, tuple[GameScreenInput, Translator, Screen]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # The live game is the table's state: the stored snapshot is not kept beside it.
        self.row = replace(self.row, snapshot=None)
        # A quick game's table has no group message: its chat is the quick games' scope.
        self.group_gone = self.group_gone or self.row.chat_id == QUICK_CHAT

    def catch_up(self, fresh: LiveTable) -> None:
        """Another process changed the table: its stored state (`fresh`) taken in here. What
        this process knows alone stays (who is choosing is asked afresh; the computers' plans
        are made again by the caller); what was built from the old game goes."""
        self.game = fresh.game
        for user_id, message in fresh.messages.items():
            self.messages.setdefault(user_id, message)
        self._history = None
        self.round_from = None
        self._moved_on(fresh.row)

    def replayed(self, row: TableRow, events: list[Event], round_from: int | None) -> None:
        """Another process changed the table, and the entries it wrote were replayed onto the
        game here, up to `row`: what they did (`events`) joins the history, as a change made
        here would, and `round_from` is where the replay found the current round began."""
        self.note(events)
        self.round_from = round_from
        self._moved_on(row)

    def _moved_on(self, row: TableRow) -> None:
        """The game here is now `row`'s, moved on by another process: what this process drew
        or was asked from the old one goes (a card being chosen may have been played since)."""
        self.row = replace(row, snapshot=None)
        self.changed_elsewhere = True
        self.choosing.clear()
        self.drawn.clear()

    @property
    def history(self) -> History:
        if self._history is None:
            self._history = History.of(self.game)
        return self._history

    def note(self, events: list[Event]) -> None:
        """A change was stored: its events join the history (one not read from the log yet
        will be, with them)."""
        if self._history is not None:
            self._history.note(events)

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
        return [s for s in self.humans if s.status == SeatStatus.PLAYING]

    @property
    def away(self) -> frozenset[int]:
        """People's seats a computer plays meanwhile: after two time-outs in a row until the
        person taps again (R10.2), and while the bot cannot reach him: his private chat refuses
        it and his Mini App is closed."""
        mine = {s.seat for s in self.people}
        return frozenset(((self.game.away - self.back) | (self.unreachable - self.in_app))
                         & mine)

    @property
    def seat_infos(self) -> tuple[SeatInfo, ...]:
        return tuple(SeatInfo(s.name, s.user_id is None, s.level,
                              left=s.status != SeatStatus.PLAYING) for s in self.row.seats)

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
    def watched(self) -> bool:
        """Every person still seated is out (safe): the computers play on to name the durak,
        at a brisk pace, while the people watch."""
        active = self.game.active_seats
        return not any(s.seat in active for s in self.people)

    @property
    def finished(self) -> bool:
        """Over, resigned, or nobody left at the table (all left or were removed): then the
        computers' fight is nobody's."""
        return self.game.is_over or self.resigned is not None or not self.people

    @property
    def on_turn(self) -> int | None:
        """The seat whose clock runs (R10.2): the attacker to lead, else the defender facing
        the attack; None while the others may only throw in."""
        game = self.game
        if game.turn_due is None:
            return None
        return game.defender if game.attacks else game.attacker


@dataclass
class LiveLobby:
    row: TableRow
    host: str               # the host's name
    editing: bool = False   # the settings are open on the lobby message
    # seated in the Mini App, out of the bot's reach (no private chat opened)
    app_only: set[int] = field(default_factory=set)
    messages: MessageIds = field(default_factory=dict)

    @property
    def id(self) -> int:
        return self.row.id

    @property
    def lobby(self) -> Lobby:
        return Lobby.of(self.row)


def snapshot(game: Game) -> dict:
    """What the store keeps of a game beside its log."""
    return game.to_dict(log=False)


def revived(row: TableRow, entries: list, messages: list[MessageRow]) -> LiveTable:
    """A stored table brought back to life: its game from the snapshot and the log."""
    if row.snapshot is None:
        raise ValueError(f"table {row.id} has no snapshot")
    if len(entries) != row.version:
        raise ValueError(f"table {row.id} is at version {row.version} with {len(entries)} "
                         "log entries")
    live = LiveTable(row, Game.from_dict({**row.snapshot, "log": entries}), round_from=None)
    remember(live.messages, messages)
    return live


def remember(into: MessageIds, messages: list[MessageRow], keep: bool = False) -> None:
    """`messages` as stored into `into`; `keep`: those `into` has already stay (one this
    process just sent may not be stored yet)."""
    for m in messages:
        if not (keep and m.user_id in into):
            into[m.user_id] = (m.chat_id, m.message_id)
