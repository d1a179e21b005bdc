"""People who stop playing a running table: away, out of reach, leaving, removed, resigning.

A person whose turn ran out twice in a row is away (the engine counts, R10.2); one whose private
chat refuses the bot (403) is treated as away, and the group is told once. Meanwhile a computer
plays his seat, until he taps again. A person who leaves (/leave, or Leave on his game message)
or is removed while away (/kick by the host or a chat admin) hands his seat to a computer for
the rest of the game; his seat row stays and counts as resigned. A table with no person left
playing ends; resigning ends a private game at once.
"""

from __future__ import annotations

from dataclasses import replace
from html import escape

from tg_durak.play.answers import Answer, refused
from tg_durak.play.ratings import Outcome
from tg_durak.play.rows import SeatRow, SeatStatus, TableKind, TableStatus
from tg_durak.render.absent import unreachable_screen
from tg_durak.storage import Store
from tg_durak.tables.core import TableCore
from tg_durak.tables.live import LiveLobby, LiveTable
from tg_durak.tables.lobbies import Admin, GroupLobbies
from tg_durak.tables.screens import ChatScreens


class Absences:
    def __init__(self, core: TableCore, screens: ChatScreens, store: Store,
                 lobbies: GroupLobbies) -> None:
        self.core = core
        self.screens = screens
        self.store = store
        self.lobbies = lobbies

    async def group_table(self, chat_id: int) -> LiveTable | None:
        """The group chat's running table, if one is running there."""
        return next((t for t in await self.core.find_in_chat(chat_id) if isinstance(t, LiveTable)
                     and t.row.kind == TableKind.GROUP and not t.finished), None)

    @staticmethod
    async def _kickable(live: LiveTable | None, by: int, admin: Admin) -> LiveTable | Answer:
        """The table whose away people `by` may remove, or why he may not."""
        if live is None:
            return refused("kick.no_game")
        if by != live.row.host_id and not await admin():
            return refused("kick.host_only")
        return live

    async def kick_choices(self, chat_id: int, by: int, admin: Admin
                           ) -> Answer | tuple[int, list[SeatRow]]:
        """/kick without a reply: the chat's running table and the people a computer plays
        for now (whom the host or an admin may remove), or why not."""
        live = await self._kickable(await self.group_table(chat_id), by, admin)
        if isinstance(live, Answer):
            return live
        return live.id, [s for s in live.people if s.seat in live.away]

    # ---- leaving, removing, resigning ------------------------------------------------------

    async def leave_game(self, user_id: int, chat_id: int | None = None) -> Answer:
        """The person's seat at his group table (in `chat_id`, if given) goes to a computer;
        in a lobby he just leaves it."""
        live = await self.core.find_for(user_id)
        if isinstance(live, LiveLobby):
            if chat_id in (None, live.row.chat_id):
                return await self.lobbies.leave(live.id, user_id)
            return refused("leave.none")
        if (live is None or live.row.kind != TableKind.GROUP
                or chat_id not in (None, live.row.chat_id)):
            return refused("leave.none")
        async with self.core.lock(live.id):
            seat = live.seat_of(user_id) if self.core.live(live.id) is live else None
            if seat is None or live.finished:
                return refused("leave.none")
            if seat not in live.game.active_seats:
                return refused("leave.out")
            name = escape(live.row.seats[seat].name)
            await self._hand_over(live, seat, SeatStatus.LEFT)
        return Answer("leave.done", {"name": name})

    async def kick(self, chat_id: int, user_id: int, by: int, admin: Admin,
                   table_id: int | None = None) -> Answer:
        """The host or a chat admin removes a person who is away; a computer plays on.
        `table_id`: the table a list of away players was drawn for."""
        live = await self.group_table(chat_id)
        if live is not None and table_id not in (None, live.id):
            live = None
        kickable = await self._kickable(live, by, admin)
        if isinstance(kickable, Answer):
            return kickable
        live = kickable
        async with self.core.lock(live.id):
            seat = live.seat_of(user_id) if self.core.live(live.id) is live else None
            if seat is None or live.finished or seat not in live.game.active_seats:
                return refused("kick.not_playing")
            name = escape(live.row.seats[seat].name)
            if seat not in live.away:
                return refused("kick.not_away", name=name)
            await self._hand_over(live, seat, SeatStatus.KICKED)
        return Answer("kick.done", {"name": name})

    async def _hand_over(self, live: LiveTable, seat: int, status: SeatStatus) -> None:
        """A computer (normal) plays the seat to the end; its person reads why, once."""
        await self.store.tables.set_seat_status(live.id, seat, status)
        seats = tuple(replace(s, status=status) if s.seat == seat else s for s in live.row.seats)
        live.row = replace(live.row, seats=seats)
        for states in (live.back, live.unreachable, live.told_unreachable):
            states.discard(seat)
        live.choosing.pop(seat, None)
        self.screens.note_privately(live, seats[seat].user, f"game.{status}.you")
        await self.core.commit(live, live.game.version, [])   # ends the table if nobody is left

    async def resign(self, user_id: int) -> bool:
        """He gives up his game: a private one ends; at a group's table the others play on,
        a computer in his seat (as after /leave), or one person could end everyone's game."""
        core = self.core
        live = await core.find_for(user_id)
        if not isinstance(live, LiveTable):
            return False
        if live.row.kind == TableKind.GROUP:
            return not (await self.leave_game(user_id)).alert
        async with core.lock(live.id):
            if live.finished or core.live(live.id) is not live:
                return False
            seat = live.seat_of(user_id)
            results = [(s.user, Outcome.RESIGNED if s.seat == seat else Outcome.SAFE, 0)
                       for s in live.humans]
            # Stored first: a refusal (StoreUnavailable, answered politely by the handlers)
            # leaves the game running in memory as in the store.
            await self.store.tables.finish(live.id, TableStatus.ABORTED, results)
            live.resigned = seat
            core.arm(live.id, None)
            core.display.show(live)
            core.forget(live)
        return True

    # ---- away and back -------------------------------------------------------------------

    async def mark_unreachable(self, user_id: int) -> None:
        """His private chat refuses the bot (403, or he blocked it): a computer plays for him,
        and a group is told once, with a button that opens the bot."""
        await self.store.users.set_reachable(user_id, False)
        core = self.core
        live = await core.find_for(user_id)
        if not isinstance(live, LiveTable):
            return
        async with core.lock(live.id):
            seat = live.seat_of(user_id) if core.live(live.id) is live else None
            if seat is None or live.finished or seat in live.unreachable:
                return
            live.unreachable.add(seat)
            if live.row.kind == TableKind.GROUP and not live.group_gone \
                    and seat not in live.told_unreachable:
                live.told_unreachable.add(seat)
                screens = self.screens
                screens.notice(("unreachable", live.id, user_id), live.row, unreachable_screen(
                    live.row.seats[seat].name, screens.bot_username, screens.group_t(live.row)))
            core.plan(live, [])
            core.display.show(live)
            core.schedule(live)

    async def mark_reachable(self, user_id: int) -> None:
        """He opened the bot again (unblocked it): he plays his seat himself."""
        await self.store.users.set_reachable(user_id, True)
        live = await self.core.find_for(user_id)
        if not isinstance(live, LiveTable):
            return
        async with self.core.lock(live.id):
            seat = live.seat_of(user_id) if self.core.live(live.id) is live else None
            if seat is not None and seat in live.away and not live.finished:
                await self.come_back(live, seat)

    async def come_back(self, live: LiveTable, seat: int) -> None:
        """A person a computer played for taps again: from now on he plays himself (until his
        turn runs out again). Under the table's lock."""
        if seat in live.unreachable:   # stored first: a refusal leaves him away, as stored
            await self.store.users.set_reachable(live.row.seats[seat].user, True)
            live.unreachable.discard(seat)
        if seat in live.game.away:
            live.back.add(seat)
        live.reactions.pop(seat, None)   # the computer's move for him, if it was planned
        self.core.display.show(live)
        self.core.schedule(live)
