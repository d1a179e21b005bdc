"""/forgetme: a person is erased, after his seat at an open table is given up.

His lobby drops him; his running table goes on with a computer in his seat through the same
hand-over as /leave and Resign (tables/absences.py; a private game ends). The store then erases
him (storage/privacy.py): the tables he sat at name a tombstone instead, shown as "a former
player". The running table's change is made under its lock, so that its end, whenever it comes,
writes the tombstone's result and not his.
"""

from __future__ import annotations

from dataclasses import replace

from tg_durak.play.rows import SeatRow
from tg_durak.storage import Store
from tg_durak.tables.absences import Absences
from tg_durak.tables.core import TableCore
from tg_durak.tables.live import LiveLobby, LiveTable
from tg_durak.tables.lobbies import GroupLobbies


def _renamed(seats: tuple[SeatRow, ...], user_id: int, tombstone: int) -> tuple[SeatRow, ...]:
    return tuple(replace(s, user_id=tombstone, name="") if s.user_id == user_id else s
                 for s in seats)


class Forgetting:
    def __init__(self, core: TableCore, store: Store, absences: Absences,
                 lobbies: GroupLobbies) -> None:
        self.core = core
        self.store = store
        self.absences = absences
        self.lobbies = lobbies

    async def forget(self, user_id: int) -> None:
        """Give up his seat, then erase him; StoreUnavailable (nothing erased) if the store
        refuses."""
        core = self.core
        holder = await core.find_for(user_id)
        if isinstance(holder, LiveLobby):
            await self.lobbies.leave(holder.id, user_id)
        elif isinstance(holder, LiveTable):
            await self.absences.resign(user_id)
        live = holder if isinstance(holder, LiveTable) and core.live(holder.id) is holder \
            else None
        if live is None:
            tombstone = await self.store.privacy.forget(user_id)
        else:   # the group's game goes on, his seat a computer's
            async with core.lock(live.id):
                tombstone = await self.store.privacy.forget(user_id)
                if tombstone is not None and core.live(live.id) is live:
                    live.row = replace(live.row, seats=_renamed(live.row.seats, user_id,
                                                                 tombstone))
                    # Out of cards, he kept his seat (nothing to hand over): no screen goes
                    # to a tombstone's chat, which is nobody's.
                    live.unreachable |= {s.seat for s in live.people if s.user_id == tombstone}
                    core.display.show(live)
        if tombstone is not None:
            await self._hosted(user_id, tombstone)

    async def _hosted(self, user_id: int, tombstone: int) -> None:
        """The open lobbies he hosted have no host now (a chat's admin may still run them)."""
        core = self.core
        for lobby in [lobby for lobby in core.lobbies.values() if lobby.row.host_id == user_id]:
            async with core.lock(lobby.id):
                if core.lobbies.get(lobby.id) is lobby:
                    lobby.row = replace(lobby.row, host_id=tombstone)
                    lobby.host = ""
                    core.display.show_lobby(lobby)
