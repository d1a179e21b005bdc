"""On a database several processes share, what one process holds of a table is a cache: a
table's lock brings it up to the stored version before anything is read from it.

A table another process changed is brought up to the stored version: the log entries it has not
seen are replayed onto the game it holds (or, should that not reach the stored state, the table
is read again whole: its row, its log replayed from the deal, its messages) and taken into the
object the process already holds, so that whoever waited for the
lock with it in hand finds it current; a table it does not hold yet is read on first need. A
table that finished, or a lobby that closed, elsewhere leaves memory.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from engine import Event, Game
from engine.snapshot import changed_at
from tg_durak.play.rows import MessageRow, TableKind, TableRow, TableStatus
from tg_durak.play.stale_taps import replayed
from tg_durak.storage import Store
from tg_durak.tables.apps import OpenApps
from tg_durak.tables.languages import PlayerLanguages
from tg_durak.tables.live import LiveLobby, LiveTable, remember, revived


class HeldTables(Protocol):
    """What this process holds (tables.core.TableCore): the tables it reads are put there."""

    tables: dict[int, LiveTable]
    lobbies: dict[int, LiveLobby]
    open_apps: OpenApps

    def held(self, table_id: int) -> LiveTable | LiveLobby | None: ...

    def forget(self, live: LiveTable | LiveLobby) -> None: ...

    def disarm(self, table_id: int) -> None: ...

    def plan(self, live: LiveTable, events: list[Event], at: float | None = None) -> None: ...

    def apps_changed(self, live: LiveTable) -> None: ...

OPEN = frozenset({TableStatus.LOBBY, TableStatus.RUNNING})


class StoredTables:
    def __init__(self, core: HeldTables, store: Store) -> None:
        self.core = core
        self.store = store
        self.languages = PlayerLanguages(store.users)
        # Tables found changed by another process under the lock being held (TableCore.lock
        # forgets each as its lock ends): their timers are that process's.
        self.moved: set[int] = set()
        self.reread = 0   # held tables found behind the stored version (stats)

    async def load(self, table_id: int) -> LiveTable | LiveLobby | None:
        """The open table as stored, now held by this process too (None: not open). Read
        without the lock, as one consistent reading: the lock validates it before any use."""
        record = await self.store.tables.whole(table_id)
        held = self.core.held(table_id)
        if held is not None:   # another task of this process read it meanwhile
            return held
        if record is None or record.row.status not in OPEN:
            return None
        return await self._take(record.row, None, record.log)

    async def read(self, table_id: int) -> LiveTable | LiveLobby | None:
        """The table as stored (a finished one too), as one consistent reading, not kept: for
        showing it where another process changed it (webapp.relay)."""
        record = await self.store.tables.whole(table_id)
        if record is None:
            return None
        row = record.row
        if row.status == TableStatus.LOBBY:
            return await self._lobby(row, [])
        if row.snapshot is None:   # a lobby that closed unstarted
            return None
        live = revived(row, record.log, [])
        live.in_app = self.core.open_apps.seats_in_app(live)
        await self.languages.load(s.user for s in live.humans)
        return live

    async def refresh(self, table_id: int) -> None:
        """Under the table's lock: what this process holds of it as stored now."""
        core = self.core
        held = core.held(table_id)
        entries: list[list] = []   # those written after the held game's version
        if isinstance(held, LiveTable):
            row, entries = (await self.store.tables.since(table_id, held.game.version)
                            or (None, []))
        else:
            row = await self.store.tables.get(table_id)
        if row is None or row.status not in OPEN:
            if held is not None:
                core.disarm(table_id)
                core.forget(held)
            return
        if isinstance(held, LiveTable) and row.status == TableStatus.RUNNING:
            if held.game.version == row.version:
                held.row = replace(row, snapshot=None)   # the game is the state
                await self._messages(held)
                core.apps_changed(held)   # an app opened or closed on another process
                return
            self.moved.add(table_id)
            self.reread += 1
            events = await self._replayed(held, row, entries)
            if events is not None:
                # Planned as the process that made the change planned them, at its time: a
                # pause the change did not restart runs on, and one it did runs from it (R10.3),
                # not from whenever another process happens to catch up. (Nothing happened, as
                # in a postponement alone: everyone starts afresh now.)
                core.plan(held, events, at=changed_at(held.game.log) if events else None)
                core.apps_changed(held)
                return
        taken = await self._take(row, held)
        if isinstance(taken, LiveTable):
            core.apps_changed(taken)

    async def _replayed(self, held: LiveTable, row: TableRow, entries: list[list]
                        ) -> list[Event] | None:
        """Bring the held game up to `row` by replaying only the entries written since its
        version (`entries`), instead of the whole log from the deal: with updates spread over
        processes (round robin) a table is behind by a move or two at nearly every tap. What
        they did, or None when the replay does not reach the stored state exactly (the caller
        reads the table whole)."""
        game = held.game
        try:
            events, round_from = replayed(game, map(Game.entry_from_json, entries),
                                          held.round_from)
        except ValueError:   # IllegalMove is one: a log that is not this game's continuation
            return None
        if game.version != row.version or game.to_dict(log=False) != row.snapshot:
            return None
        held.replayed(row, events, round_from)
        await self._messages(held)
        return events

    async def _messages(self, held: LiveTable) -> None:
        """The table's messages another process sent, taken in: read only while one this
        process would show is not held (`remember` keeps those it holds, so reading them
        again would change nothing)."""
        wanted: set[int | None] = {s.user_id for s in held.humans}
        if held.row.kind == TableKind.GROUP and not held.group_gone:
            wanted.add(None)
        if not wanted <= held.messages.keys():
            remember(held.messages, await self.store.messages.of_table(held.id), keep=True)

    async def behind(self, live: LiveTable) -> bool:
        """Whether another process has stored a later version of the running table than the
        one held here: one narrow read, without the table's lock, for a timer of this process
        that such a change may have made stale. (Never so for a change of this process not
        stored yet: that puts the held version ahead.)"""
        state = await self.store.tables.state(live.id)
        return (state is not None and state[1] == TableStatus.RUNNING
                and state[0] > live.game.version)

    async def _lobby(self, row: TableRow, messages: list[MessageRow]) -> LiveLobby:
        host = None if row.host_id is None else await self.store.users.get(row.host_id)
        lobby = LiveLobby(row, "" if host is None else host.name)
        remember(lobby.messages, messages)
        await self.languages.load(lobby.lobby.people)
        return lobby

    async def _take(self, row: TableRow, held: LiveTable | LiveLobby | None,
                    entries: list | None = None) -> LiveTable | LiveLobby:
        core = self.core
        messages = await self.store.messages.of_table(row.id)
        if row.status == TableStatus.LOBBY:
            if isinstance(held, LiveLobby):
                held.row = row
                remember(held.messages, messages, keep=True)
                return held
            return core.lobbies.setdefault(row.id, await self._lobby(row, messages))
        if isinstance(held, LiveLobby):   # it started in another process
            core.lobbies.pop(row.id, None)
            held = None
        if entries is None:
            entries = await self.store.tables.log(row.id)
        fresh = revived(row, entries, messages)
        await self.languages.load(s.user for s in fresh.humans)
        if isinstance(held, LiveTable):
            held.catch_up(fresh)
            core.plan(held, [])
            return held
        existing = core.tables.get(row.id)
        if existing is not None:   # another task of this process read it meanwhile
            return existing
        fresh.in_app = core.open_apps.seats_in_app(fresh)
        core.plan(fresh, [])
        core.tables[row.id] = fresh
        return fresh
