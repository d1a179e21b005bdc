"""The group side of TableService: lobbies, their start, the group's public message, Rematch.

A mixin of `TableService` (tables.py), sharing its store, publisher, scheduler, locks and live
tables: a lobby changes like a table does — under the table's lock, the pure lobby rules
(lobbies.py) decide, one store transaction writes, the publisher shows. The lobby message is the
group's message (key ``(table_id, None)``): at the start it is edited into the public table.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine import Game
from tg_durak.i18n.translate import DEFAULT_LOCALE, Translator, translator
from tg_durak.outbox.publisher import Priority, Screen
from tg_durak.play.lobby_rules import (
    LOBBY_SECONDS,
    OK,
    Answer,
    Lobby,
    LobbySettings,
    message_link,
    refused,
)
from tg_durak.play.options import OptionField, PlaySettings
from tg_durak.play.records import TableRow, UserRow
from tg_durak.render.group import (
    GroupScreenInput,
    LobbyScreenInput,
    PublicTable,
    group_screen,
    lobby_closed_screen,
    lobby_screen,
    private_note_screen,
)
from tg_durak.storage import AlreadySeated, CorruptRow, LobbyClosed, LobbyFull, StoreUnavailable

if TYPE_CHECKING:
    from tg_durak.tables.service import LiveTable, TableService

log = logging.getLogger(__name__)

Admin = Callable[[], Awaitable[bool]]   # asks Telegram whether the tapper administers the chat
INVITE_BYTES = 8   # secrets.token_urlsafe: 11 characters, 64 random bits


@dataclass
class LiveLobby:
    row: TableRow
    host: str               # the host's name
    editing: bool = False   # the settings are open on the lobby message
    messages: dict[int | None, tuple[int, int]] = field(default_factory=dict)  # None: the group

    @property
    def id(self) -> int:
        return self.row.id

    @property
    def lobby(self) -> Lobby:
        return Lobby.of(self.row)


class GroupTables:
    """Lobby and group-message methods of TableService (see the module docstring)."""

    bot_username: str = ""   # set once the bot knows its name: links to the private chat

    # ---- opening a lobby -----------------------------------------------------------------

    async def open_lobby(self: TableService, chat_id: int, host: UserRow, name: str,
                         thread_id: int | None = None) -> Answer:
        """/new in a group: a lobby, else where the chat's open table or the host's game is.

        The host is seated at once if the bot can write to him; the lobby speaks his language.
        """
        async with self._locks[("chat", chat_id)]:
            busy = await self._chat_busy(chat_id)
            if busy is not None:
                return busy
            elsewhere = await self._elsewhere(host.id)
            if elsewhere is not None:
                return elsewhere
            settings = LobbySettings(PlaySettings.from_dict(host.settings).options)
            live = await self._new_lobby(chat_id, host, settings, thread_id)
        async with self._locks[live.id]:
            if host.reachable:
                await self._seat(live, host.id, name)
            self._show_lobby(live)
        return OK

    async def _new_lobby(self: TableService, chat_id: int, host: UserRow,
                         settings: LobbySettings, thread_id: int | None,
                         language: str | None = None) -> LiveLobby:
        """An empty lobby hosted by `host`, in his language unless `language` is given."""
        row = await self.store.lobbies.create(
            chat_id, host.id, settings.to_dict(), invite=secrets.token_urlsafe(INVITE_BYTES),
            expires_at=self.clock() + LOBBY_SECONDS * self.time_scale,
            language=language or host.language or DEFAULT_LOCALE, thread_id=thread_id)
        live = LiveLobby(row, host.name)
        self._lobbies[row.id] = live
        self.scheduler.arm(row.id, row.expires_at)
        return live

    async def _chat_busy(self: TableService, chat_id: int) -> Answer | None:
        """A chat holds one open table: a second /new points to its message."""
        row = await self.store.lobbies.open_in_chat(chat_id)
        if row is None:
            return None
        message = await self._group_message(row.id)
        return Answer("lobby.chat_busy", reply_to=None if message is None else message[1])

    async def _elsewhere(self: TableService, user_id: int) -> Answer | None:
        """One open table per person: where his is, if he has one."""
        row = await self.store.tables.for_user(user_id)
        if row is None or all(s.status != "playing" for s in row.seats if s.user_id == user_id):
            return None
        return await self._where(row)

    async def _where(self: TableService, row: TableRow) -> Answer:
        if row.kind == "private":
            return refused("lobby.elsewhere_private", link=f"https://t.me/{self.bot_username}")
        message = await self._group_message(row.id)
        link = None if message is None else message_link(*message)
        if link is None:
            return refused("lobby.elsewhere_group")
        return refused("lobby.elsewhere", link=link)

    async def _group_message(self: TableService, table_id: int) -> tuple[int, int] | None:
        holder = self._tables.get(table_id) or self._lobbies.get(table_id)
        if holder is not None and None in holder.messages:
            return holder.messages[None]
        return next(((m.chat_id, m.message_id)
                     for m in await self.store.messages.of_table(table_id)
                     if m.user_id is None), None)

    async def in_its_chat(self: TableService, table_id: int, chat_id: int | None) -> bool:
        """Whether a button of a group's table (or lobby) was pressed in that table's chat.
        Pressed anywhere else it is forged, and the tapper's standing there (an admin of his own
        group, say) counts for nothing here."""
        holder = self._lobbies.get(table_id) or self._tables.get(table_id)
        try:
            row = holder.row if holder is not None else await self.store.tables.get(table_id)
        except CorruptRow:
            return False
        return row is not None and row.kind == "group" and row.chat_id == chat_id

    # ---- seats ---------------------------------------------------------------------------

    async def join(self: TableService, table_id: int, user: UserRow, name: str) -> Answer:
        """Join: seated at once if the bot can write to him, else the link to the private chat
        (whose /start seats him, see join_by_invite)."""
        live = self._lobbies.get(table_id)
        if live is None:
            return await self._lobby_gone(table_id)
        async with self._locks[table_id]:
            if self._lobbies.get(table_id) is not live:
                return await self._lobby_gone(table_id)
            refusal = live.lobby.join_refusal(user.id) or await self._elsewhere(user.id)
            if refusal is not None:
                return refusal
            if not user.reachable:
                return Answer(start=live.row.invite)
            refusal = await self._seat(live, user.id, name)
            if refusal is not None:
                return refusal
            await self._seated(live)
        return Answer("lobby.joined")

    async def join_by_invite(self: TableService, invite: str, user_id: int, name: str) -> Answer:
        """`/start <invite>` in the private chat: a seat at that lobby, or why not."""
        row = await self.store.lobbies.by_invite(invite)
        if row is None:
            return Answer("lobby.invite_unknown")
        live = self._lobbies.get(row.id)
        if live is None:
            return Answer("lobby.invite_stale")
        async with self._locks[row.id]:
            if self._lobbies.get(row.id) is not live:
                return Answer("lobby.invite_stale")
            refusal = live.lobby.join_refusal(user_id) or await self._elsewhere(user_id)
            if refusal is not None:
                return refusal
            refusal = await self._seat(live, user_id, name)
            if refusal is not None:
                return refusal
            await self._seated(live)
        return OK   # his private message now waits for the start

    async def _seat(self: TableService, live: LiveLobby, user_id: int, name: str
                    ) -> Answer | None:
        """A person's seat, and his private message: it waits for the start, then is his game.
        The refusal, if he cannot sit."""
        try:
            live.row = await self.store.lobbies.add_seat(live.id, user_id, name, None,
                                                         live.lobby.settings.seats)
        except AlreadySeated as exc:
            row = await self.store.tables.get(exc.table_id)
            return refused("lobby.full") if row is None else await self._where(row)
        except (LobbyFull, LobbyClosed):
            return refused("lobby.full")
        chat_id, message_id = live.messages.get(user_id, (user_id, None))
        self.publisher.show((live.id, user_id), chat_id, message_id,
                            private_note_screen("lobby.waiting", self._t(user_id)))
        return None

    async def leave_lobby(self: TableService, table_id: int, user_id: int) -> Answer:
        live = self._lobbies.get(table_id)
        if live is None:
            return await self._lobby_gone(table_id)
        async with self._locks[table_id]:
            seat = live.lobby.seat_of(user_id)
            if seat is None or self._lobbies.get(table_id) is not live:
                return refused("lobby.not_in")
            live.row = await self.store.lobbies.remove_seat(table_id, seat)
            self._note_privately(live, user_id, "lobby.left")
            self._show_lobby(live)
        return Answer("lobby.left")

    async def add_computer(self: TableService, table_id: int, level: str) -> Answer:
        live = self._lobbies.get(table_id)
        if live is None:
            return await self._lobby_gone(table_id)
        async with self._locks[table_id]:
            refusal = live.lobby.computer_refusal(level)
            if refusal is not None or self._lobbies.get(table_id) is not live:
                return refusal or await self._lobby_gone(table_id)
            try:
                live.row = await self.store.lobbies.add_seat(table_id, None, "", level,
                                                             live.lobby.settings.seats)
            except (LobbyFull, LobbyClosed):
                return refused("lobby.full")
            await self._seated(live)
        return OK

    async def _seated(self: TableService, live: LiveLobby) -> None:
        """After a seat was taken: the last one starts the table. The seat is stored; if the
        start is refused, the full lobby is shown and its Start can be pressed again."""
        if live.lobby.full:
            try:
                await self._start(live)
                return
            except StoreUnavailable:
                log.warning("table %s: the full lobby could not start; left open", live.id)
        self._show_lobby(live)

    # ---- the host's buttons ----------------------------------------------------------------

    async def _managed(self: TableService, table_id: int, user_id: int, admin: Admin,
                       change: Callable[[LiveLobby], Awaitable[Answer]]) -> Answer:
        """Run a host's change under the lobby's lock once the tapper may make it."""
        live = self._lobbies.get(table_id)
        if live is None:
            return await self._lobby_gone(table_id)
        if user_id != live.row.host_id and not await admin():
            return refused("lobby.host_only")
        async with self._locks[table_id]:
            if self._lobbies.get(table_id) is not live:
                return await self._lobby_gone(table_id)
            return await change(live)

    async def lobby_settings(self: TableService, table_id: int, user_id: int, admin: Admin,
                             editing: bool) -> Answer:
        """Open (or close) the settings on the lobby message."""
        async def change(live: LiveLobby) -> Answer:
            live.editing = editing
            self._show_lobby(live)
            return OK
        return await self._managed(table_id, user_id, admin, change)

    async def set_lobby_option(self: TableService, table_id: int, user_id: int, admin: Admin,
                               option: OptionField, value: str) -> Answer:
        return await self._managed(
            table_id, user_id, admin,
            lambda live: self._save_settings(live, live.lobby.with_option(option, value)))

    async def set_lobby_seats(self: TableService, table_id: int, user_id: int, admin: Admin,
                              value: str) -> Answer:
        return await self._managed(
            table_id, user_id, admin,
            lambda live: self._save_settings(live, live.lobby.with_seats(value)))

    async def _save_settings(self: TableService, live: LiveLobby,
                             settings: LobbySettings | Answer) -> Answer:
        if isinstance(settings, Answer):
            return settings
        live.row = await self.store.lobbies.set_options(live.id, settings.to_dict())
        await self._seated(live)
        return OK

    async def start_lobby(self: TableService, table_id: int, user_id: int,
                          admin: Admin) -> Answer:
        live = self._lobbies.get(table_id)
        if live is None:
            return await self._lobby_gone(table_id)
        is_admin = user_id != live.row.host_id and await admin()
        async with self._locks[table_id]:
            if self._lobbies.get(table_id) is not live:
                return await self._lobby_gone(table_id)
            refusal = live.lobby.start_refusal(user_id, is_admin)
            if refusal is not None:
                return refusal
            await self._start(live)
        return OK

    async def cancel_lobby(self: TableService, table_id: int, user_id: int,
                           admin: Admin) -> Answer:
        async def change(live: LiveLobby) -> Answer:
            await self._close(live, "cancelled")
            return OK
        return await self._managed(table_id, user_id, admin, change)

    async def _expire(self: TableService, table_id: int) -> None:
        """The scheduler's call for a lobby: nobody started it in time."""
        live = self._lobbies.get(table_id)
        if live is None:
            return
        async with self._locks[table_id]:
            if self._lobbies.get(table_id) is not live:
                return
            if live.row.expires_at is not None and live.row.expires_at > self.clock():
                self.scheduler.arm(table_id, live.row.expires_at)   # woken early
                return
            try:
                await self._close(live, "expired")
            except StoreUnavailable as exc:   # still open, as stored: its timer tries again
                from tg_durak.tables.service import (
                    SAVE_RETRY_SECONDS,  # tables.py builds on this module
                )

                log.warning("lobby %s: closing it failed (%s); trying again", table_id, exc)
                self.scheduler.arm(table_id, self.clock() + SAVE_RETRY_SECONDS)

    async def _close(self: TableService, live: LiveLobby, reason: str) -> None:
        await self.store.lobbies.close(live.id)
        self._lobbies.pop(live.id, None)
        self._locks.pop(live.id, None)
        self.scheduler.arm(live.id, None)
        self._show_group(live.row, live.messages,
                         lobby_closed_screen(reason, self._group_t(live.row)))
        for user_id in live.lobby.people:
            self._note_privately(live, user_id, f"lobby.{reason}.private")

    async def _lobby_gone(self: TableService, table_id: int) -> Answer:
        live = self._tables.get(table_id)
        if live is not None:
            return refused("lobby.started")
        return refused("lobby.gone")

    # ---- the start -------------------------------------------------------------------------

    async def _start(self: TableService, live: LiveLobby) -> None:
        """The lobby becomes a running table: the engine's game, everyone's private game
        message (the waiting one, edited) and the public table (the lobby message, edited)."""
        from tg_durak.tables.service import LiveTable  # tables.py builds on this module

        lobby = live.lobby
        seats = lobby.final_seats()
        rules = lobby.settings.options.to_rules(len(seats), self.time_scale)
        game = Game.new(rules, secrets.randbits(63), self.clock())
        row = await self.store.lobbies.start(live.id, seats, game.to_dict(log=False))
        self._lobbies.pop(live.id, None)
        table = LiveTable(row, game)
        table.messages.update(live.messages)
        await self.languages.load(lobby.people)
        self._plan(table, [])
        self._tables[row.id] = table
        self._publish(table)
        self._schedule(table)

    # ---- the group's message ---------------------------------------------------------------

    def _show_lobby(self: TableService, live: LiveLobby) -> None:
        row = live.row
        inp = LobbyScreenInput(row.id, live.host, live.lobby.settings, row.seats, live.editing)
        self._show_group(row, live.messages, lobby_screen(inp, self._group_t(row)))

    def _publish_group(self: TableService, live: LiveTable) -> None:
        """The public table, from nothing but what everyone may see."""
        game = live.game
        inp = GroupScreenInput(
            table_id=live.id,
            public=PublicTable.of(live.view(0)),
            seats=live.seat_infos,
            played_by=live.history.played_by(game.table),
            history=tuple(live.history.recent),
            now=self.clock(),
            closed=live.finished,
        )
        self._show_group(live.row, live.messages, group_screen(inp, self._group_t(live.row)),
                         Priority.WATCHER)

    def _show_group(self: TableService, row: TableRow,
                    messages: dict[int | None, tuple[int, int]], screen: Screen,
                    priority: Priority = Priority.PLAYER) -> None:
        chat_id, message_id = messages.get(None, (row.chat_id, None))
        self.publisher.show((row.id, None), chat_id, message_id, screen, priority=priority,
                            thread_id=row.thread_id)

    def _note_privately(self: TableService, live: LiveLobby, user_id: int, key: str) -> None:
        """A seated person's private message says what became of his seat."""
        chat_id, message_id = live.messages.get(user_id, (user_id, None))
        self.publisher.show((live.id, user_id), chat_id, message_id,
                            private_note_screen(key, self._t(user_id)))

    def _t(self: TableService, user_id: int) -> Translator:
        return translator(self.languages.of(user_id))

    @staticmethod
    def _group_t(row: TableRow) -> Translator:
        return translator(row.language or DEFAULT_LOCALE)

    # ---- rematch and restarts --------------------------------------------------------------

    async def rematch(self: TableService, table_id: int, user: UserRow, name: str) -> Answer:
        """A new lobby in the finished table's chat: its settings, its computers and those of
        its people the bot can write to, seated at once; the tapper hosts it."""
        row = await self.store.tables.get(table_id)
        if row is None or row.kind != "group":
            return refused("tap.unknown_table")
        if row.status in ("lobby", "running"):
            return refused("lobby.not_over")
        async with self._locks[("chat", row.chat_id)]:
            busy = await self._chat_busy(row.chat_id)
            if busy is not None:
                return busy
            settings = LobbySettings.from_dict(row.options)
            live = await self._new_lobby(row.chat_id, user, settings, row.thread_id,
                                         row.language)
        async with self._locks[live.id]:
            for seat in row.seats:
                await self._rejoin(live, seat.user_id, seat.name, seat.level)
            self._show_lobby(live)
        return OK

    async def _rejoin(self: TableService, live: LiveLobby, user_id: int | None, name: str,
                      level: str | None) -> None:
        if user_id is None:
            live.row = await self.store.lobbies.add_seat(live.id, None, "", level,
                                                         live.lobby.settings.seats)
            return
        person = await self.store.users.get(user_id)
        if person is not None and person.reachable:
            await self._seat(live, user_id, name)

    async def _resume_lobbies(self: TableService) -> None:
        """After a restart: each open lobby with its messages, its expiry re-armed."""
        for row in await self.store.lobbies.unstarted():
            host = await self.store.users.get(row.host_id) if row.host_id is not None else None
            live = LiveLobby(row, "" if host is None else host.name)
            for m in await self.store.messages.of_table(row.id):
                live.messages[m.user_id] = (m.chat_id, m.message_id)
            await self.languages.load(live.lobby.people)
            self._lobbies[row.id] = live
            self.scheduler.arm(row.id, row.expires_at)
