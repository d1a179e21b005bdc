"""The chat's side of every table: each person's game message and the group's one message.

Pure renderers draw them (render/); the outbox sends them within Telegram's budgets. The table
service hands a table here after every change (`show`): a person's screen is drawn anew only if
what it shows changed, and whoever the game waits for goes first when the budget is tight.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from typing import Protocol

from tg_durak.i18n.translate import DEFAULT_LOCALE, Translator, translator
from tg_durak.outbox.queue import Priority
from tg_durak.play.inline import is_inline
from tg_durak.play.rows import SeatRow, TableKind, TableRow
from tg_durak.play.taps import Choosing
from tg_durak.render.buttons import startapp_link
from tg_durak.render.game import GameScreenInput, game_screen
from tg_durak.render.group import (
    GroupScreenInput,
    LobbyScreenInput,
    PublicTable,
    group_screen,
    lobby_screen,
    private_note_screen,
)
from tg_durak.render.screen import Screen
from tg_durak.tables.languages import PlayerLanguages
from tg_durak.tables.live import LiveLobby, LiveTable, MessageIds


class ScreenOutbox(Protocol):
    """Where screens go (outbox.Publisher): the latest screen of each message key wins."""

    def show(self, key: Hashable, chat_id: int, message_id: int | str | None, screen: Screen, *,
             priority: Priority = Priority.PLAYER, thread_id: int | None = None) -> None: ...

    def has_spare_budget(self) -> bool: ...


NOT_CHOOSING = Choosing()


@dataclass(frozen=True)
class ChatLinks:
    """Where the chat's screens link to: the bot's private chat (`bot_username`, as Telegram
    named the bot) and the Mini App where it is served (DURAK_WEBAPP_URL, DURAK_WEBAPP_NAME)."""

    bot_username: str = ""
    webapp_url: str | None = None
    webapp_name: str | None = None


NO_LINKS = ChatLinks()   # tests without Telegram: no bot name, no Mini App


def common_input(live: LiveTable, now: float) -> dict:
    """What every seat's screen shows alike, as `GameScreenInput` fields."""
    game = live.game
    return {"table_id": live.id, "version": game.version, "seats": live.seat_infos,
            "last": live.history.recent, "played_by": live.history.played_by(game.table),
            "now": now, "resigned": live.resigned, "closed": live.finished,
            "leave": live.row.kind == TableKind.GROUP}


def seat_input(live: LiveTable, seat: int, common: dict,
               choosing: Choosing = NOT_CHOOSING) -> GameScreenInput:
    """One seat's screen as drawn now (what it showed is noted by `tables.displays`, for the
    late taps on it)."""
    view, legal = live.seen_by(seat)
    return GameScreenInput(**common, view=view, legal=legal, choosing_card=choosing.card,
                           choosing_transfer=choosing.transfer)


def public_input(live: LiveTable, now: float, app_link: str | None = None) -> GroupScreenInput:
    """The table as everyone may see it (R11.1): the group's message and the app's onlookers."""
    game = live.game
    return GroupScreenInput(
        table_id=live.id,
        public=PublicTable.of(live.view(0)),
        seats=live.seat_infos,
        played_by=live.history.played_by(game.table),
        history=live.history.recent,
        now=now,
        closed=live.finished,
        app_link=app_link,
    )


def lobby_input(live: LiveLobby, app_link: str | None = None) -> LobbyScreenInput:
    """An open lobby as its message (and the app) shows it."""
    row = live.row
    return LobbyScreenInput(row.id, live.host, live.lobby.settings, row.seats, live.editing,
                            app_link, in_chat=not is_inline(row.chat_id))


class ChatScreens:
    def __init__(self, outbox: ScreenOutbox, languages: PlayerLanguages,
                 clock: Callable[[], float], links: ChatLinks) -> None:
        self.outbox = outbox
        self.languages = languages
        self.clock = clock
        self.links = links

    @property
    def bot_username(self) -> str:
        return self.links.bot_username

    def app_link(self, row: TableRow) -> str | None:
        """The group's link into the Mini App at this table (or its lobby)."""
        links = self.links
        if not links.webapp_url or not links.bot_username or not row.invite:
            return None
        return startapp_link(links.bot_username, links.webapp_name, row.invite)

    def t(self, user_id: int) -> Translator:
        return translator(self.languages.of(user_id))

    @staticmethod
    def group_t(row: TableRow) -> Translator:
        return translator(row.language or DEFAULT_LOCALE)

    # ---- a running table -------------------------------------------------------------------

    def show(self, live: LiveTable, only: int | None = None, bar: bool = False) -> None:
        """Every person's screen (only `only`'s, if given), then the group's public table.
        `bar`: only the timer bar moved, a redraw with the lowest priority. A person whose
        Mini App is open (`live.in_app`) is left alone until he closes it, or the table ends."""
        if bar and not self.outbox.has_spare_budget():
            return   # it would be dropped: drawing it is wasted work while the budget is spent
        common = common_input(live, self.clock())
        common["app_url"] = self.links.webapp_url
        on_turn = live.on_turn
        for seat in live.people:
            if (only is not None and seat.user_id != only) or seat.seat in live.unreachable:
                continue
            if seat.seat in live.in_app and not live.finished:
                continue
            screen = self._screen(live, seat, common, redraw=bar)
            priority = Priority.BAR if bar else (
                Priority.MOVER if seat.seat == on_turn else Priority.PLAYER)
            self.to_person(live, seat.user, screen, priority)
        # The group's budget is 20 a minute: its message changes with the table, never a bar.
        if live.row.kind == TableKind.GROUP and not live.group_gone and only is None and not bar:
            self.show_public(live)

    def _screen(self, live: LiveTable, seat: SeatRow, common: dict, redraw: bool) -> Screen:
        """The person's game screen, drawn anew only if what it shows changed (or `redraw`:
        the timer bar)."""
        inp = seat_input(live, seat.seat, common, live.choosing.get(seat.seat, NOT_CHOOSING))
        t = self.t(seat.user)
        drawn = live.drawn.get(seat.seat)
        if (not redraw and drawn is not None and drawn[1] is t
                and drawn[0] == replace(inp, now=drawn[0].now)):
            return drawn[2]
        screen = game_screen(inp, t)
        live.drawn[seat.seat] = (inp, t, screen)
        return screen

    def show_public(self, live: LiveTable) -> None:
        """The group's public table, from nothing but what everyone may see."""
        self.to_group(live.row, live.messages,
                      group_screen(public_input(live, self.clock(), self.app_link(live.row)),
                                   self.group_t(live.row)),
                      Priority.WATCHER)

    # ---- a lobby, and notes ----------------------------------------------------------------

    def show_lobby(self, live: LiveLobby) -> None:
        row = live.row
        inp = lobby_input(live, self.app_link(row))
        self.to_group(row, live.messages, lobby_screen(inp, self.group_t(row)))

    def note_privately(self, live: LiveLobby | LiveTable, user_id: int, key: str) -> None:
        """A seated person's private message says what became of his seat."""
        self.to_person(live, user_id, private_note_screen(key, self.t(user_id)))

    # ---- where a screen goes ---------------------------------------------------------------

    def to_person(self, live: LiveLobby | LiveTable, user_id: int, screen: Screen,
                  priority: Priority = Priority.PLAYER) -> None:
        chat_id, message_id = live.messages.get(user_id, (user_id, None))
        self.outbox.show((live.id, user_id), chat_id, message_id, screen, priority=priority)

    def to_group(self, row: TableRow, messages: MessageIds, screen: Screen,
                 priority: Priority = Priority.PLAYER) -> None:
        chat_id, message_id = messages.get(None, (row.chat_id, None))
        self.outbox.show((row.id, None), chat_id, message_id, screen, priority=priority,
                         thread_id=row.thread_id)

    def notice(self, key: Hashable, row: TableRow, screen: Screen) -> None:
        """A one-off message in the table's group (someone out of reach): never edited. An
        inline table's chat takes none (the bot may not post there): its table shows him away."""
        if is_inline(row.chat_id):
            return
        self.outbox.show(key, row.chat_id, None, screen, thread_id=row.thread_id)
