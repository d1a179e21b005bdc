"""A computer seat's decision: asked as R10.3's pause before its move begins, played as it ends.

A `hard` search takes up to 0.3 s, and longer while the pool's queue waits (tables.computers):
asked when the pause ends, it would add to the pause. So each computer seat's decision is asked
as soon as a change gives the seat its move (the table's schedule, tables.core), about the table
as it is then, and kept with the reaction it was asked for. A change that concerns the seat (it
may now do something new, a turning point such as a time-out, another process's move:
tables.reactions, tables.cache) plans a new reaction: the decision kept goes with the old one,
and the new one is asked about the table as it is. A change that does not concern the seat
leaves its reaction, and the decision, as they were: when the pause ends `Moves._react` plays it
if it is still legal, else has it asked again, as for any decision under way at a change.
What is kept lives with the table in this process: after a restart, or on a process that takes
the table over, the decision is simply asked again."""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

from engine import Action, PlayerView
from tg_durak.tables.live import LiveTable
from tg_durak.tables.reactions import Reaction

log = logging.getLogger(__name__)

AWAY_LEVEL = "normal"  # who plays for a player marked away (R10.2)


class Computers(Protocol):
    """Computer players' decisions (tables.computers.ComputerPlayers)."""

    async def choose(self, level: str, view: PlayerView, legal: list[Action],
                     seed: str) -> Action: ...


class Decisions:
    def __init__(self, computers: Computers) -> None:
        self.computers = computers

    def foresee(self, live: LiveTable) -> None:
        """After a change, under the table's lock: each computer seat whose pause has begun
        and whose decision has not been asked for that pause has it asked now. A seat whose
        pause has ended is `decide`'s."""
        for seat, reaction in live.reactions.items():
            asked = live.asked.get(seat)
            if seat not in live.thinking and (asked is None or asked[0] is not reaction):
                live.asked[seat] = (reaction, self._ask(live, seat))

    async def decide(self, live: LiveTable, reaction: Reaction) -> Action:
        """The move for `reaction`, whose pause has ended: the decision asked as the pause
        began if the seat's reaction is still that one, else one asked now about the table as
        it is."""
        asked = live.asked.pop(reaction.seat, None)
        if asked is None or asked[0] is not reaction:
            return await self._ask(live, reaction.seat)
        return await asked[1]

    def _ask(self, live: LiveTable, seat: int) -> asyncio.Future[Action]:
        """The seat's decision about the table as it is now (read now, answered later); a
        forced move costs no worker's time."""
        game = live.game
        legal = game.legal_actions(seat)
        if len(legal) == 1:
            forced = asyncio.get_running_loop().create_future()
            forced.set_result(legal[0])
            return forced
        level = live.row.seats[seat].level or AWAY_LEVEL
        return asyncio.ensure_future(self._choose(
            live.id, level, game.view(seat), legal, f"{game.seed}/{game.version}/{seat}"))

    async def _choose(self, table_id: int, level: str, view: PlayerView, legal: list[Action],
                      seed: str) -> Action:
        try:
            return await self.computers.choose(level, view, legal, seed)
        except Exception:
            log.exception("table %s: computer player failed; it plays its first move", table_id)
            return legal[0]
