"""Every move on a running table: a person's tap, a deadline that passed, a computer's decision.

A tap is read against the screen it was pressed on (`play.taps`, `play.stale_taps`) and played
through the core, under the table's lock. The scheduler wakes a table when a deadline, a
computer's move or a timer bar is due; each computer seat's decision, asked as its pause began
(`tables.decisions`), is awaited out of the lock, so others may move meanwhile, and checked
again before it is played.
"""

from __future__ import annotations

from engine import Action, IllegalMove
from tg_durak.play.answers import Answer, illegal
from tg_durak.play.stale_taps import round_start, still_meant
from tg_durak.play.taps import Choose, Choosing, Position, Tap, TapOutcome
from tg_durak.storage import CorruptRow, Store
from tg_durak.tables.absences import Absences
from tg_durak.tables.core import TableCore
from tg_durak.tables.decisions import Decisions
from tg_durak.tables.live import LiveTable
from tg_durak.tables.reactions import Reaction, next_reaction


class Moves:
    def __init__(self, core: TableCore, store: Store, decisions: Decisions,
                 absences: Absences) -> None:
        self.core = core
        self.store = store
        self.decisions = decisions
        self.absences = absences

    # ---- a person's tap --------------------------------------------------------------------

    async def tap(self, user_id: int, table_id: int, version: int, pressed: Tap) -> Answer:
        """A tap on the message that showed `version` of the table.

        A stale, foreign, forged or refused tap changes nothing; the answer says why.
        """
        answer = await self._tap(user_id, table_id, version, pressed)
        self.core.counts[f"tap:{answer.key or 'ok'}"] += 1
        return answer

    async def _tap(self, user_id: int, table_id: int, version: int, pressed: Tap) -> Answer:
        core = self.core
        live = await core.find(table_id)
        if not isinstance(live, LiveTable):
            return await self._answer_for_closed(table_id)
        if live.seat_of(user_id) is None:
            return Answer("tap.not_seated", alert=True)
        async with core.lock(live.id):
            if core.live(live.id) is not live:   # it ended meanwhile (in another process)
                return await self._answer_for_closed(table_id)
            game = live.game
            seat = live.seat_of(user_id)
            if seat is None:   # he left meanwhile
                return Answer("tap.not_seated", alert=True)
            if live.finished:
                core.display.show(live, only=user_id)
                return Answer("tap.game_over")
            if seat in live.away:
                await self.absences.come_back(live, seat)
            choosing = live.choosing.get(seat, Choosing())
            now = Position(*live.seen_by(seat), choosing)
            outcome: TapOutcome | None
            if version == game.version:
                outcome = pressed.outcome(now)
            else:
                if live.round_from is None:
                    live.round_from = round_start(game)
                outcome = still_meant(game, live.round_from, version, pressed, now,
                                      live.shown.at(seat, version, choosing))
                if outcome is None:
                    core.display.show(live, only=user_id)
                    return Answer("tap.stale")
            if isinstance(outcome, Choose):
                live.choosing[seat] = outcome.state
                outcome = outcome.reply
            if isinstance(outcome, Answer):
                core.display.show(live, only=user_id)
                return outcome
            return await self._play(live, seat, outcome)

    async def _answer_for_closed(self, table_id: int) -> Answer:
        """A tap on a table that is not running here: over, unknown, or unreadable."""
        try:
            row = await self.store.tables.get(table_id)
        except CorruptRow:
            return Answer("tap.broken", alert=True)
        if row is None:
            return Answer("tap.unknown_table", alert=True)
        return Answer("tap.game_over")

    async def _play(self, live: LiveTable, seat: int, action: Action) -> Answer:
        game = live.game
        old = game.version
        try:
            events = game.apply(seat, action, self.core.clock())
        except IllegalMove as exc:
            return illegal(exc.code)
        live.choosing.pop(seat, None)
        if not await self.core.commit(live, old, events):
            return Answer("error.not_saved", alert=True)
        return Answer()

    # ---- the clock and the computer players ---------------------------------------------

    async def wake(self, live: LiveTable, claimed: bool = False) -> None:
        """A deadline, a computer's move or a timer-bar redraw is due at this table: by this
        process's timer, or `claimed` from the store when its time passed with nobody acting
        (the process that changed it last died, on a shared database).

        Each computer seat's pause ends on its own (one decision awaited per seat, several
        seats at once), out of the lock, so others may move meanwhile; `_react` then re-checks
        the decision.
        """
        core = self.core
        # A table another process has changed before is likely changed by it since (updates
        # spread round robin): one narrow read then spares a stale timer the lock's
        # transaction and the table's reading.
        if live.changed_elsewhere and not claimed and await core.stored.behind(live):
            core.disarm(live.id)   # changed by another process since: its timer now
            return
        async with core.lock(live.id):
            if core.live(live.id) is not live:
                return
            if core.taken_over(live) and not claimed:
                core.disarm(live.id)   # changed by another process since: its timer now
                return
            if live.finished:   # the end the last person's leaving brought was refused: again
                await core.commit(live, live.game.version, [])
                return
            if claimed:   # its process died with the computers' pauses run: they move now
                now = core.clock()
                live.reactions = {seat: r._replace(at=min(r.at, now))
                                  for seat, r in live.reactions.items()}
            reaction = await self._catch_up(live)
        while reaction is not None:
            action = await self.decisions.decide(live, reaction)
            seat = reaction.seat
            try:
                async with core.lock(live.id):
                    reaction = await self._react(live, reaction, action)
            except BaseException:
                # Not played (the store refused the lock, a stop): the seat thinks again at
                # the table's next wake, instead of waiting for a decision that never comes.
                live.thinking.discard(seat)
                raise

    async def _catch_up(self, live: LiveTable) -> Reaction | None:
        """Apply the deadlines that have passed; claim a computer's reaction if one is due."""
        core = self.core
        game, now = live.game, core.clock()
        old = game.version
        events = game.advance(now)
        if game.version != old and (not await core.commit(live, old, events) or live.finished):
            return None
        reaction = next_reaction(live.reactions, live.thinking)
        if reaction is not None and reaction.at <= now:
            live.thinking.add(reaction.seat)
            core.schedule(live)   # the other seats' reactions keep their own times
            return reaction
        if live.bar_at is not None and live.bar_at <= now:
            core.display.show(live, bar=True)
        core.schedule(live)
        return None

    async def _react(self, live: LiveTable, reaction: Reaction, action: Action
                     ) -> Reaction | None:
        """Play a decision if it still stands; the reaction to think again about, if any.

        Meanwhile the table may have changed. A change that concerned the seat has planned a
        new reaction (with its own pause) and this decision is dropped; one that did not leaves
        the reaction in place: its decision is played if still legal, else the seat thinks
        again at once about the table as it is (its pause ran from the change it reacts to).
        """
        core = self.core
        seat = reaction.seat
        live.thinking.discard(seat)
        if live.finished or core.live(live.id) is not live:
            return None
        if core.taken_over(live):   # another process moved meanwhile and plans anew
            core.disarm(live.id)
            return None
        game, now = live.game, core.clock()
        if live.reactions.get(seat) is not reaction:
            core.schedule(live)
            return None
        old = game.version
        due = game.next_deadline
        if due is not None and due <= now:
            await core.commit(live, old, game.advance(now))  # the deadline came first
            return None
        if action not in game.legal_actions(seat):
            live.thinking.add(seat)
            return reaction
        for_person = live.row.seats[seat].user_id is not None
        self._count_reaction(now - live.planned_at.get(seat, now), game.rules.bot_delay[1])
        await core.commit(live, old, game.apply(seat, action, now, auto=for_person))
        return None

    def _count_reaction(self, took: float, window: float) -> None:
        """A computer's move `took` seconds after the change it reacts to (R10.3: `window`)."""
        counts = self.core.counts
        counts["computer_moves"] += 1
        counts["computer_late"] += took > window
        counts["computer_slowest_s"] = max(counts["computer_slowest_s"], took)
