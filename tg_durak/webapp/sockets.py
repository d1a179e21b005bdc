"""The open apps and what they show: the Mini App's `TableDisplay`, and its `QueueApps`.

Each change of a table reaches here as it reaches the chat: every socket at that table gets the
state its viewer may see (a seat's own hand to that seat only, the public table to an onlooker:
R11), drawn by `render.app_state`. A socket takes the latest state only (a slow phone skips
states it has not sent yet, never an answer), and nothing at all for a bar: the page draws it.

An app with no table shows the quick game with people (its choice, or the person's place in the
queue): the quick games' queue (tables/quick_games.py) tells these apps of his place, and moves
them to his table when one opens.
"""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from collections.abc import Callable
from contextlib import suppress
from dataclasses import replace
from typing import Protocol

from aiohttp import web

from tg_durak.i18n.translate import Translator
from tg_durak.play.matching import QueuePlace
from tg_durak.render.app_state import lobby_state, quick_state, seat_state, spectator_state
from tg_durak.render.quick import QuickChoice
from tg_durak.tables.live import LiveLobby, LiveTable
from tg_durak.tables.screens import common_input, lobby_input, public_input, seat_input


class Viewer:
    """One open app: a person's socket, looking at one table (or none: the quick game)."""

    def __init__(self, ws: web.WebSocketResponse, user_id: int, t: Translator) -> None:
        self.ws = ws
        self.user_id = user_id
        self.t = t
        self.table_id: int | None = None
        self._frames: list[str] = []    # answers and errors: each is sent, in order
        self._state: str | None = None  # the latest state not sent yet
        self._sent_state: dict | None = None   # the last one taken, but for the server's clock
        self._wake = asyncio.Event()
        self._writer = asyncio.create_task(self._write())

    def send(self, frame: dict) -> None:
        self._frames.append(json.dumps(frame, ensure_ascii=False))
        self._wake.set()

    def send_state(self, state: dict) -> None:
        """The state, unless it is what the page has already (but for the server's clock)."""
        clock = state.get("clock")
        timeless = {**state, "clock": {**clock, "now": None}} if clock else state
        if timeless == self._sent_state:
            return
        self._sent_state = timeless
        self._state = json.dumps(state, ensure_ascii=False)
        self._wake.set()

    async def _write(self) -> None:
        ws = self.ws
        while not ws.closed:
            await self._wake.wait()
            self._wake.clear()
            try:
                while self._frames:
                    await ws.send_str(self._frames.pop(0))
                if self._state is not None:
                    state, self._state = self._state, None
                    await ws.send_str(state)
            except (ConnectionError, RuntimeError):   # the phone went away mid-send
                return

    async def close(self) -> None:
        self._writer.cancel()
        with suppress(asyncio.CancelledError):
            await self._writer


class Presence(Protocol):
    """Who has the app open on the other processes (webapp.relay), told of this one's."""

    def elsewhere(self, table_id: int) -> frozenset[int]:
        """The people whose app shows the table on another process."""
        ...

    def here_changed(self, table_id: int, users: frozenset[int]) -> None:
        """The people whose app shows the table here are now `users`."""
        ...


class Alone:
    """One process: nobody's app is open anywhere else."""

    def elsewhere(self, table_id: int) -> frozenset[int]:
        return frozenset()

    def here_changed(self, table_id: int, users: frozenset[int]) -> None:
        pass


class AppSockets:
    """Who has the app open at which table, and the states they are sent: the tables'
    `TableDisplay` and `OpenApps` (tables.core) on the Mini App's side."""

    def __init__(self, clock: Callable[[], float], presence: Presence) -> None:
        self.clock = clock
        self.presence = presence
        self.viewers: defaultdict[int, set[Viewer]] = defaultdict(set)
        # The apps that show the quick game, by person: each one's choice and the place in the
        # queue it shows (None: he does not wait).
        self.home: defaultdict[int, dict[Viewer, tuple[QuickChoice, QueuePlace | None]]] = \
            defaultdict(dict)

    def watch(self, viewer: Viewer, table_id: int | None) -> None:
        self.unwatch(viewer)
        viewer.table_id = table_id
        if table_id is not None:
            self.viewers[table_id].add(viewer)
            self._tell(table_id)

    def show_home(self, viewer: Viewer, choice: QuickChoice, place: QueuePlace | None) -> None:
        """The app shows the quick game instead of a table: `choice`, or while he waits his
        place (and the game he waits for as the choice, for when he stops waiting)."""
        self.unwatch(viewer)
        choice = choice if place is None else replace(choice, game=place.game)
        self.home[viewer.user_id][viewer] = (choice, place)
        viewer.send_state(quick_state(choice, place, viewer.t, self.clock()))

    def unwatch(self, viewer: Viewer) -> None:
        shown = self.home.get(viewer.user_id)
        if shown is not None:
            shown.pop(viewer, None)
            if not shown:
                del self.home[viewer.user_id]
        table_id = viewer.table_id
        if table_id is None:
            return
        watching = self.viewers.get(table_id)
        if watching is not None:
            watching.discard(viewer)
            if not watching:
                del self.viewers[table_id]
        viewer.table_id = None
        self._tell(table_id)

    def _tell(self, table_id: int) -> None:
        self.presence.here_changed(table_id, self.watchers(table_id))

    def watchers(self, table_id: int) -> frozenset[int]:
        """The people whose app shows the table here."""
        return frozenset(v.user_id for v in self.viewers.get(table_id, ()))

    def stats(self) -> dict[str, int]:
        """Open apps (at a table or the quick game) and the tables they show (ops/stats.py)."""
        return {"sockets": sum(map(len, (*self.viewers.values(), *self.home.values()))),
                "tables": len(self.viewers)}

    def seats_in_app(self, live: LiveTable) -> set[int]:
        """The seats whose app shows this table, here or on another process: their chat
        messages wait meanwhile."""
        users = self.watchers(live.id) | self.presence.elsewhere(live.id)
        return {seat for user in users if (seat := live.seat_of(user)) is not None}

    # ---- TableDisplay ----------------------------------------------------------------------

    def show(self, live: LiveTable, only: int | None = None, bar: bool = False) -> None:
        if bar:
            return   # the page moves its bars itself, from the deadlines it has
        watching = self.viewers.get(live.id)
        if not watching:
            return
        now = self.clock()
        common = common_input(live, now)   # what every seat's state shares, drawn once
        for viewer in list(watching):
            if only is None or viewer.user_id == only:
                viewer.send_state(self.state_of(live, viewer, now, common))

    def show_lobby(self, live: LiveLobby) -> None:
        for viewer in list(self.viewers.get(live.id, ())):
            viewer.send_state(self.lobby_state_of(live, viewer))

    # ---- QueueApps --------------------------------------------------------------------------

    def waiting_here(self) -> frozenset[int]:
        return frozenset(user_id for user_id, shown in self.home.items()
                         if any(place is not None for _, place in shown.values()))

    def show_place(self, user_id: int, place: QueuePlace | None) -> None:
        for viewer, (choice, shown) in list(self.home.get(user_id, {}).items()):
            if shown != place:
                self.show_home(viewer, choice, place)

    def seat(self, user_id: int, holder: LiveTable | LiveLobby) -> None:
        for viewer in list(self.home.get(user_id, ())):
            self.watch(viewer, holder.id)
            viewer.send_state(self.lobby_state_of(holder, viewer) if isinstance(holder, LiveLobby)
                              else self.state_of(holder, viewer))

    # ---- states ----------------------------------------------------------------------------

    def state_of(self, live: LiveTable, viewer: Viewer, now: float | None = None,
                 common: dict | None = None) -> dict:
        """What `viewer` may see of the table; `now` and `common` when a show draws many."""
        now = self.clock() if now is None else now
        closed = live.unreachable - live.in_app   # away while his app is closed
        seat = live.seat_of(viewer.user_id)
        if seat is None:
            return spectator_state(public_input(live, now), viewer.t,
                                   version=live.game.version, app_closed=closed)
        inp = seat_input(live, seat, common_input(live, now) if common is None else common)
        return seat_state(inp, viewer.t, kind=live.row.kind, app_closed=closed)

    def lobby_state_of(self, live: LiveLobby, viewer: Viewer) -> dict:
        return lobby_state(lobby_input(live), viewer.t, user_id=viewer.user_id,
                           may_join=live.lobby.join_refusal(viewer.user_id) is None,
                           may_start=live.lobby.may_manage(viewer.user_id, False))
