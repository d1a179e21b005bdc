"""A group's lobbies: /new, seats, the host's settings, the start, Rematch, the expiry.

A lobby changes like a table does: under its lock, the pure lobby rules (play/lobby_rules.py)
decide, one store transaction writes, the screens show. The lobby message is the group's message
(key ``(table_id, None)``): at the start it is edited into the public table.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable

from engine import Game
from tg_durak.i18n.translate import DEFAULT_LOCALE
from tg_durak.play.answers import OK, Answer, refused
from tg_durak.play.inline import is_inline
from tg_durak.play.lobby_rules import LOBBY_SECONDS, LobbyEnd, LobbySettings, message_link
from tg_durak.play.matching import QUICK_CHAT
from tg_durak.play.options import OptionField, PlaySettings, TableOptions
from tg_durak.play.rows import SeatStatus, TableKind, TableRow, TableStatus, UserRow
from tg_durak.render.group import lobby_closed_screen
from tg_durak.storage import (
    AlreadySeated,
    CorruptRow,
    LobbyClosed,
    LobbyFull,
    Store,
    StoreUnavailable,
)
from tg_durak.tables.core import SAVE_RETRY_SECONDS, TableCore
from tg_durak.tables.languages import PlayerLanguages
from tg_durak.tables.live import LiveLobby, LiveTable, remember, snapshot
from tg_durak.tables.screens import ChatScreens
from tg_durak.tables.seating import Seating

log = logging.getLogger(__name__)

Admin = Callable[[], Awaitable[bool]]   # asks Telegram whether the tapper administers the chat
INVITE_BYTES = 8   # secrets.token_urlsafe: 11 characters, 64 random bits


class GroupLobbies:
    def __init__(self, core: TableCore, screens: ChatScreens, store: Store,
                 languages: PlayerLanguages, seating: Seating) -> None:
        """`seating` hears of each person seated (he leaves the quick games' queue)."""
        self.core = core
        self.screens = screens
        self.store = store
        self.languages = languages
        self.seating = seating

    def _open(self, table_id: int) -> LiveLobby | None:
        """The open lobby as this process holds it (under its lock: as stored)."""
        return self.core.lobbies.get(table_id)

    async def _find(self, table_id: int) -> LiveLobby | None:
        """The open lobby, read from the store if another process opened it."""
        holder = await self.core.find(table_id)
        return holder if isinstance(holder, LiveLobby) else None

    # ---- opening a lobby -----------------------------------------------------------------

    async def open(self, chat_id: int, host: UserRow, name: str,
                   thread_id: int | None = None) -> Answer:
        """/new in a group: a lobby, else where the chat's open table or the host's game is.

        The host is seated at once if the bot can write to him, else told so with the way to
        his seat (the private chat's /start with the lobby's invite); the lobby speaks his
        language.
        """
        async with self.core.lock(("chat", chat_id)):
            busy = await self._chat_busy(chat_id)
            if busy is not None:
                return busy
            elsewhere = await self._elsewhere(host.id)
            if elsewhere is not None:
                return elsewhere
            settings = LobbySettings(PlaySettings.from_dict(host.settings).options)
            live = await self._new(chat_id, host, settings, thread_id)
        async with self.core.lock(live.id):
            seated = host.reachable and await self._seat(live, host.id, name) is None
            self.core.display.show_lobby(live)
        if seated:
            await self.seating.seated(host.id)
        return OK if host.reachable else Answer("lobby.host_not_seated", start=live.row.invite)

    async def _new(self, chat_id: int, host: UserRow, settings: LobbySettings,
                   thread_id: int | None, language: str | None = None) -> LiveLobby:
        """An empty lobby hosted by `host`, in his language unless `language` is given."""
        core = self.core
        row = await self.store.lobbies.create(
            chat_id, host.id, settings.to_dict(), invite=secrets.token_urlsafe(INVITE_BYTES),
            expires_at=core.clock() + LOBBY_SECONDS * core.time_scale,
            language=language or host.language or DEFAULT_LOCALE, thread_id=thread_id)
        live = LiveLobby(row, host.name)
        core.lobbies[row.id] = live
        core.arm(row.id, row.expires_at)
        return live

    async def _chat_busy(self, chat_id: int) -> Answer | None:
        """A chat holds one open table: a second /new points to its message."""
        row = await self.store.lobbies.open_in_chat(chat_id)
        if row is None:
            return None
        message = await self._group_message(row.id)
        reply_to = None if message is None or isinstance(message[1], str) else message[1]
        return Answer("lobby.chat_busy", reply_to=reply_to)

    async def _elsewhere(self, user_id: int) -> Answer | None:
        """One open table per person: where his is, if he has one."""
        row = await self.store.tables.for_user(user_id)
        if row is None or all(s.status != SeatStatus.PLAYING
                              for s in row.seats if s.user_id == user_id):
            return None
        return await self._where(row)

    async def _where(self, row: TableRow) -> Answer:
        if row.kind == TableKind.PRIVATE:
            return refused("lobby.elsewhere_private",
                           link=f"https://t.me/{self.screens.bot_username}")
        message = await self._group_message(row.id)
        link = None if message is None or isinstance(message[1], str) \
            else message_link(message[0], message[1])
        if link is None:
            return refused("lobby.elsewhere_group")
        return refused("lobby.elsewhere", link=link)

    async def _group_message(self, table_id: int) -> tuple[int, int | str] | None:
        holder = self.core.held(table_id)
        if holder is not None and None in holder.messages:
            return holder.messages[None]
        return next(((m.chat_id, m.message_id) for m in await self.store.messages.of_table(table_id)
                     if m.user_id is None), None)

    async def in_its_chat(self, table_id: int, chat_id: int | None) -> bool:
        """Whether a button of a group's table (or lobby) was pressed in that table's chat.
        Pressed anywhere else it is forged, and the tapper's standing there (an admin of his own
        group, say) counts for nothing here."""
        holder = self.core.held(table_id)
        try:
            row = holder.row if holder is not None else await self.store.tables.get(table_id)
        except CorruptRow:
            return False
        return row is not None and row.kind == TableKind.GROUP and row.chat_id == chat_id

    # ---- seats ---------------------------------------------------------------------------

    async def join(self, table_id: int, user: UserRow, name: str, in_app: bool = False
                   ) -> Answer:
        """Join: seated at once if the bot can write to him, else the link to the private chat
        (whose /start seats him, see join_by_invite). From the Mini App (`in_app`) he sits at
        once: he plays in the app, and is away while it is closed if the bot cannot write to
        him."""
        live = await self._find(table_id)
        if live is None:
            return await self._gone(table_id)
        async with self.core.lock(table_id):
            if self._open(table_id) is not live:
                return await self._gone(table_id)
            refusal = live.lobby.join_refusal(user.id) or await self._elsewhere(user.id)
            if refusal is not None:
                return refusal
            if not (user.reachable or in_app):
                return Answer(start=live.row.invite)
            refusal = await self._seat(live, user.id, name, note=user.reachable)
            if refusal is not None:
                return refusal
            if not user.reachable:
                live.app_only.add(user.id)
            await self._seated(live)
        await self.seating.seated(user.id)
        return Answer("lobby.joined")

    async def join_by_invite(self, invite: str, user_id: int, name: str) -> Answer:
        """`/start <invite>` in the private chat: a seat at that lobby, or why not."""
        row = await self.store.lobbies.by_invite(invite)
        if row is None:
            return Answer("lobby.invite_unknown")
        live = await self._find(row.id)
        if live is None:
            return Answer("lobby.invite_stale")
        async with self.core.lock(row.id):
            if self._open(row.id) is not live:
                return Answer("lobby.invite_stale")
            refusal = live.lobby.join_refusal(user_id) or await self._elsewhere(user_id)
            if refusal is not None:
                return refusal
            refusal = await self._seat(live, user_id, name)
            if refusal is not None:
                return refusal
            await self._seated(live)
        await self.seating.seated(user_id)
        return OK   # his private message now waits for the start

    async def _seat(self, live: LiveLobby, user_id: int, name: str, note: bool = True
                    ) -> Answer | None:
        """A person's seat, and his private message (`note`: the bot may write to him): it
        waits for the start, then is his game. The refusal, if he cannot sit."""
        try:
            live.row = await self.store.lobbies.add_seat(live.id, user_id, name, None,
                                                       live.lobby.settings.seats)
        except AlreadySeated as exc:
            row = await self.store.tables.get(exc.table_id)
            return refused("lobby.full") if row is None else await self._where(row)
        except (LobbyFull, LobbyClosed):
            return refused("lobby.full")
        if note:
            self.screens.note_privately(
                live, user_id, "inline.waiting" if is_inline(live.row.chat_id) else "lobby.waiting")
        return None

    async def leave(self, table_id: int, user_id: int) -> Answer:
        live = await self._find(table_id)
        if live is None:
            return await self._gone(table_id)
        async with self.core.lock(table_id):
            seat = live.lobby.seat_of(user_id)
            if seat is None or self._open(table_id) is not live:
                return refused("lobby.not_in")
            live.row = await self.store.lobbies.remove_seat(table_id, seat)
            self.screens.note_privately(live, user_id, "lobby.left")
            self.core.display.show_lobby(live)
        return Answer("lobby.left")

    async def add_computer(self, table_id: int, level: str) -> Answer:
        live = await self._find(table_id)
        if live is None:
            return await self._gone(table_id)
        async with self.core.lock(table_id):
            refusal = live.lobby.computer_refusal(level)
            if refusal is not None or self._open(table_id) is not live:
                return refusal or await self._gone(table_id)
            try:
                live.row = await self.store.lobbies.add_seat(table_id, None, "", level,
                                                           live.lobby.settings.seats)
            except (LobbyFull, LobbyClosed):
                return refused("lobby.full")
            await self._seated(live)
        return OK

    async def _seated(self, live: LiveLobby) -> None:
        """After a seat was taken: the last one starts the table. The seat is stored; if the
        start is refused, the full lobby is shown and its Start can be pressed again."""
        if live.lobby.full:
            try:
                await self._start(live)
                return
            except StoreUnavailable:
                log.warning("table %s: the full lobby could not start; left open", live.id)
        self.core.display.show_lobby(live)

    # ---- the host's buttons ----------------------------------------------------------------

    async def _managed(self, table_id: int, user_id: int, admin: Admin,
                       change: Callable[[LiveLobby], Awaitable[Answer]]) -> Answer:
        """Run a host's change under the lobby's lock once the tapper may make it."""
        live = await self._find(table_id)
        if live is None:
            return await self._gone(table_id)
        if user_id != live.row.host_id and not await admin():
            return refused("lobby.host_only")
        async with self.core.lock(table_id):
            if self._open(table_id) is not live:
                return await self._gone(table_id)
            return await change(live)

    async def show_settings(self, table_id: int, user_id: int, admin: Admin,
                            editing: bool) -> Answer:
        """Open (or close) the settings on the lobby message."""
        async def change(live: LiveLobby) -> Answer:
            live.editing = editing
            self.core.display.show_lobby(live)
            return OK
        return await self._managed(table_id, user_id, admin, change)

    async def set_option(self, table_id: int, user_id: int, admin: Admin,
                         option: OptionField, value: str) -> Answer:
        return await self._managed(
            table_id, user_id, admin,
            lambda live: self._save_settings(live, live.lobby.with_option(option, value)))

    async def set_seats(self, table_id: int, user_id: int, admin: Admin, value: str) -> Answer:
        return await self._managed(
            table_id, user_id, admin,
            lambda live: self._save_settings(live, live.lobby.with_seats(value)))

    async def _save_settings(self, live: LiveLobby, settings: LobbySettings | Answer) -> Answer:
        if isinstance(settings, Answer):
            return settings
        live.row = await self.store.lobbies.set_options(live.id, settings.to_dict())
        await self._seated(live)
        return OK

    async def start(self, table_id: int, user_id: int, admin: Admin) -> Answer:
        """Start: also when the last seat was taken a moment before and the table started by
        itself, the tap is the start it meant (answered as one)."""
        live = await self._find(table_id)
        if live is None:
            return await self._started_or_gone(table_id)
        is_admin = user_id != live.row.host_id and await admin()
        async with self.core.lock(table_id):
            if self._open(table_id) is not live:
                return await self._started_or_gone(table_id)
            refusal = live.lobby.start_refusal(user_id, is_admin)
            if refusal is not None:
                return refusal
            await self._start(live)
        return OK

    async def cancel(self, table_id: int, user_id: int, admin: Admin) -> Answer:
        async def change(live: LiveLobby) -> Answer:
            await self.close(live, LobbyEnd.CANCELLED)
            return OK
        return await self._managed(table_id, user_id, admin, change)

    async def expire(self, table_id: int) -> None:
        """The scheduler's call for a lobby: nobody started it in time."""
        core = self.core
        live = await self._find(table_id)
        if live is None:
            return
        async with core.lock(table_id):
            if self._open(table_id) is not live:
                return
            if live.row.expires_at is not None and live.row.expires_at > core.clock():
                core.arm(table_id, live.row.expires_at)   # woken early
                return
            try:
                await self.close(live, LobbyEnd.EXPIRED)
            except StoreUnavailable as exc:   # still open, as stored: its timer tries again
                log.warning("lobby %s: closing it failed (%s); trying again", table_id, exc)
                core.arm(table_id, core.clock() + SAVE_RETRY_SECONDS)

    async def close(self, live: LiveLobby, reason: LobbyEnd) -> None:
        """The lobby closes unstarted (cancelled, expired, the bot removed); under its lock."""
        await self.store.lobbies.close(live.id)
        self.core.forget(live)
        self.core.arm(live.id, None)
        screens = self.screens
        inline_bot = screens.bot_username if is_inline(live.row.chat_id) else None
        screens.to_group(live.row, live.messages,
                         lobby_closed_screen(reason, screens.group_t(live.row), inline_bot))
        for user_id in live.lobby.people:
            screens.note_privately(live, user_id, f"lobby.{reason}.private")

    async def _gone(self, table_id: int) -> Answer:
        if await self._running(table_id):
            return refused("lobby.started")
        return refused("lobby.gone")

    async def _started_or_gone(self, table_id: int) -> Answer:
        return OK if await self._running(table_id) else await self._gone(table_id)

    async def _running(self, table_id: int) -> bool:
        return isinstance(await self.core.find(table_id), LiveTable)

    # ---- the start -------------------------------------------------------------------------

    async def _start(self, live: LiveLobby) -> None:
        """The lobby becomes a running table: the engine's game, everyone's private game
        message (the waiting one, edited) and the public table (the lobby message, edited)."""
        core = self.core
        lobby = live.lobby
        seats = lobby.final_seats()
        rules = lobby.settings.options.to_rules(len(seats), core.time_scale)
        game = Game.new(rules, secrets.randbits(63), core.clock())
        row = await self.store.lobbies.start(live.id, seats, snapshot(game))
        core.lobbies.pop(live.id, None)
        table = LiveTable(row, game)
        table.messages.update(live.messages)
        await self.languages.load(lobby.people)
        # Who sat down in the Mini App without opening the private chat: out of the bot's
        # reach there (no message is tried), away while his app is closed.
        table.unreachable = {s.seat for s in table.people if s.user_id in live.app_only}
        core.add(table)

    # ---- rematch and restarts --------------------------------------------------------------

    async def rematch(self, table_id: int, user: UserRow, name: str) -> Answer:
        """A new lobby in the finished table's chat: its settings, its computers and those of
        its people the bot can write to, seated at once; the tapper hosts it."""
        row = await self.store.tables.get(table_id)
        if row is None or row.kind != TableKind.GROUP or row.chat_id == QUICK_CHAT:
            return refused("tap.unknown_table")   # a quick game has no chat to rematch in
        if row.status in (TableStatus.LOBBY, TableStatus.RUNNING):
            return refused("lobby.not_over")
        # An inline table's rematch takes over its message: the bot cannot post in that chat.
        message = await self._group_message(table_id)
        inline_id = message[1] if message is not None and isinstance(message[1], str) else None
        async with self.core.lock(("chat", row.chat_id) if inline_id is None
                                  else ("inline", inline_id)):
            busy = await self._chat_busy(row.chat_id) if inline_id is None \
                else await self._inline_busy(inline_id, table_id)
            if busy is not None:
                return busy
            settings = LobbySettings.from_dict(row.options)
            live = await self._new(row.chat_id, user, settings, row.thread_id, row.language)
            if inline_id is not None:
                await self._show_in(live, inline_id)
        async with self.core.lock(live.id):
            seated = [user_id for seat in row.seats if (user_id := await self._rejoin(
                live, seat.user_id, seat.name, seat.level)) is not None]
            self.core.display.show_lobby(live)
        for user_id in seated:
            await self.seating.seated(user_id)
        return OK

    async def _rejoin(self, live: LiveLobby, user_id: int | None, name: str,
                      level: str | None) -> int | None:
        """The seat at the rematch's lobby again (a person's only if the bot can write to
        him); the person who sat down, if one did."""
        if user_id is None:
            live.row = await self.store.lobbies.add_seat(live.id, None, "", level,
                                                       live.lobby.settings.seats)
            return None
        person = await self.store.users.get(user_id)
        seated = (person is not None and person.reachable
                  and await self._seat(live, user_id, name) is None)
        return user_id if seated else None

    # ---- inline mode ------------------------------------------------------------------------

    async def open_inline(self, inline_id: str, chat_id: int, host: UserRow,
                          options: TableOptions) -> tuple[int, bool]:
        """The lobby of a message a person sent via the bot, opened by the first tap on it (the
        bot learns of the message no sooner), in the chat `chat_id` (play/inline.py): hosted by
        him, with `options` (his last settings, the game he chose), seated if the bot can write
        to him. Many may be open in one chat. Returns the table the message shows, and whether
        this call opened it."""
        async with self.core.lock(("inline", inline_id)):
            shown = await self.store.messages.of_inline(inline_id)
            if shown is not None:
                return shown, False
            live = await self._new(chat_id, host, LobbySettings(options), None)
            await self._show_in(live, inline_id)
        async with self.core.lock(live.id):
            seated = (host.reachable and await self._elsewhere(host.id) is None
                      and await self._seat(live, host.id, host.name) is None)
            self.core.display.show_lobby(live)
        if seated:
            await self.seating.seated(host.id)
        return live.id, True

    async def _show_in(self, live: LiveLobby, inline_id: str) -> None:
        """The lobby shows in this inline message (and the table it becomes)."""
        live.messages[None] = (live.row.chat_id, inline_id)
        await self.store.messages.set(live.id, None, live.row.chat_id, inline_id)

    async def _inline_busy(self, inline_id: str, table_id: int) -> Answer | None:
        """A finished inline table's message shows its rematch already: the tap is done."""
        return None if await self.store.messages.of_inline(inline_id) == table_id else OK

    async def resume(self) -> None:
        """After a restart: each open lobby with its messages, its expiry re-armed."""
        for row in await self.store.lobbies.unstarted():
            host = await self.store.users.get(row.host_id) if row.host_id is not None else None
            live = LiveLobby(row, "" if host is None else host.name)
            remember(live.messages, await self.store.messages.of_table(row.id))
            await self.languages.load(live.lobby.people)
            self.core.lobbies[row.id] = live
            self.core.arm(row.id, row.expires_at)
