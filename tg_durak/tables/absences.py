"""People who stop playing a running table: away, out of reach, leaving, removed (issue 10).

A mixin of `TableService` (tables.py), under each table's lock like every other change. A person
whose turn ran out twice in a row is away (the engine counts, RULES R10.2); one whose private chat
refuses the bot (403) is treated as away, and the group is told once. Meanwhile a computer plays
his seat, until he taps again. A person who leaves (/leave, or Leave on his game message) or is
removed while away (/kick by the host or a chat admin) hands his seat to a computer for the rest
of the game; his seat row stays and counts as resigned. A table with no person left playing ends.
"""

from __future__ import annotations

from dataclasses import replace
from html import escape
from typing import TYPE_CHECKING

from tg_durak.play.lobby_rules import Answer, refused
from tg_durak.play.records import SeatRow
from tg_durak.render.absent import unreachable_screen
from tg_durak.render.group import private_note_screen

if TYPE_CHECKING:
    from tg_durak.tables.lobbies import Admin
    from tg_durak.tables.service import LiveTable, TableService

LEFT, KICKED = "left", "kicked"


class AbsentPlayers:
    """Absence, leaving and removal for TableService (see the module docstring)."""

    def group_table(self: TableService, chat_id: int) -> LiveTable | None:
        """The group chat's running table, if one is running here."""
        return next((t for t in self._tables.values()
                     if t.row.kind == "group" and t.row.chat_id == chat_id and not t.finished),
                    None)

    async def _kick_refusal(self: TableService, live: LiveTable | None, by: int, admin: Admin
                            ) -> Answer | None:
        if live is None:
            return refused("kick.no_game")
        if by != live.row.host_id and not await admin():
            return refused("kick.host_only")
        return None

    async def kick_choices(self: TableService, chat_id: int, by: int, admin: Admin
                           ) -> Answer | tuple[int, list[SeatRow]]:
        """/kick without a reply: the chat's running table and the people a computer plays
        for now (whom the host or an admin may remove), or why not."""
        live = self.group_table(chat_id)
        refusal = await self._kick_refusal(live, by, admin)
        if refusal is not None:
            return refusal
        return live.id, [s for s in live.people if s.seat in live.away]

    # ---- leaving and removing ------------------------------------------------------------

    async def leave_game(self: TableService, user_id: int, chat_id: int | None = None
                         ) -> Answer:
        """The person's seat at his group table (in `chat_id`, if given) goes to a computer;
        in a lobby he just leaves it."""
        live = self._live_for(user_id)
        lobby = self._lobbies.get(self.running_table_of(user_id)) if live is None else None
        if lobby is not None and chat_id in (None, lobby.row.chat_id):
            return await self.leave_lobby(lobby.id, user_id)
        if live is None or live.row.kind != "group" or chat_id not in (None, live.row.chat_id):
            return refused("leave.none")
        async with self._locks[live.id]:
            seat = live.seat_of(user_id)
            if seat is None or live.finished:
                return refused("leave.none")
            if seat not in live.game.active_seats:
                return refused("leave.out")
            name = escape(live.row.seats[seat].name)
            await self._hand_over(live, seat, LEFT)
        return Answer("leave.done", {"name": name})

    async def kick(self: TableService, chat_id: int, user_id: int, by: int, admin: Admin,
                   table_id: int | None = None) -> Answer:
        """The host or a chat admin removes a person who is away; a computer plays on.
        `table_id`: the table a list of away players was drawn for."""
        live = self.group_table(chat_id)
        if live is not None and table_id not in (None, live.id):
            live = None
        refusal = await self._kick_refusal(live, by, admin)
        if refusal is not None:
            return refusal
        async with self._locks[live.id]:
            seat = live.seat_of(user_id)
            if seat is None or live.finished or seat not in live.game.active_seats:
                return refused("kick.not_playing")
            name = escape(live.row.seats[seat].name)
            if seat not in live.away:
                return refused("kick.not_away", name=name)
            await self._hand_over(live, seat, KICKED)
        return Answer("kick.done", {"name": name})

    async def _hand_over(self: TableService, live: LiveTable, seat: int, status: str) -> None:
        """A computer (normal) plays the seat to the end; its person reads why, once."""
        await self.store.tables.set_seat_status(live.id, seat, status)
        seats = tuple(replace(s, status=status) if s.seat == seat else s for s in live.row.seats)
        live.row = replace(live.row, seats=seats)
        for states in (live.back, live.unreachable, live.told_unreachable):
            states.discard(seat)
        live.choosing.pop(seat, None)
        user_id = seats[seat].user_id
        chat_id, message_id = live.messages.get(user_id, (user_id, None))
        self.publisher.show((live.id, user_id), chat_id, message_id,
                            private_note_screen(f"game.{status}.you", self._t(user_id)))
        await self._commit(live, live.game.version, [])   # ends the table if nobody is left

    # ---- away and back -------------------------------------------------------------------

    async def mark_unreachable(self: TableService, user_id: int) -> None:
        """His private chat refuses the bot (403, or he blocked it): a computer plays for him,
        and a group is told once, with a button that opens the bot."""
        await self.store.users.set_reachable(user_id, False)
        live = self._live_for(user_id)
        if live is None:
            return
        async with self._locks[live.id]:
            seat = live.seat_of(user_id)
            if seat is None or live.finished or seat in live.unreachable:
                return
            live.unreachable.add(seat)
            if live.row.kind == "group" and not live.group_gone \
                    and seat not in live.told_unreachable:
                live.told_unreachable.add(seat)
                self.publisher.show(
                    ("unreachable", live.id, user_id), live.row.chat_id, None,
                    unreachable_screen(live.row.seats[seat].name, self.bot_username,
                                       self._group_t(live.row)),
                    thread_id=live.row.thread_id)
            self._plan(live, [])
            self._publish(live)
            self._schedule(live)

    async def mark_reachable(self: TableService, user_id: int) -> None:
        """He opened the bot again (unblocked it): he plays his seat himself."""
        await self.store.users.set_reachable(user_id, True)
        live = self._live_for(user_id)
        if live is None:
            return
        async with self._locks[live.id]:
            seat = live.seat_of(user_id)
            if seat is not None and seat in live.away and not live.finished:
                await self._come_back(live, seat)

    async def _come_back(self: TableService, live: LiveTable, seat: int) -> None:
        """A person a computer played for taps again: from now on he plays himself (until his
        turn runs out again). Under the table's lock."""
        if seat in live.unreachable:   # stored first: a refusal leaves him away, as stored
            await self.store.users.set_reachable(live.row.seats[seat].user_id, True)
            live.unreachable.discard(seat)
        if seat in live.game.away:
            live.back.add(seat)
        live.reactions.pop(seat, None)   # the computer's move for him, if it was planned
        self._publish(live)
        self._schedule(live)
