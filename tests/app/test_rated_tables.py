"""TableService rates a table of people when it finishes: by its last move and by a resignation.

No API starts a table of several people yet (the group lobby will), so the table is written to
the store and taken up by `resume`, as after a restart.
"""

from __future__ import annotations

import secrets

import pytest

from engine import Game, Rules
from tests.app.test_table_service import START, FakeClock, World, service, take_up
from tests.store.helpers import raw
from tg_durak.play.ratings import rate
from tg_durak.play.rows import SeatRow
from tg_durak.storage import Store

ANN, BOB = 21, 22


@pytest.fixture
def world(store: Store) -> World:
    return service(store, FakeClock(START))


async def table_of_people(world: World, computers: int = 0, kind: str = "group") -> int:
    game = Game.new(Rules(players=2 + computers), secrets.randbits(63), START)
    seats = [SeatRow(0, ANN, "Ann"), SeatRow(1, BOB, "Bob")]
    seats += [SeatRow(2 + i, None, "", "easy") for i in range(computers)]
    row = await world.store.tables.create(-5, kind, "running", {}, seats,
                                         game.to_dict(log=False))
    await take_up(world, row.id)
    return row.id


async def test_a_resignation_rates_the_table(world: World, db_path: str) -> None:
    # A resignation ends a private table; at a group's table it hands the seat to a computer
    # and the others play on (tests/bot/test_hostile_taps.py).
    table_id = await table_of_people(world, computers=1, kind="private")
    assert await world.tables.absences.resign(ANN)

    ratings = await world.store.results.ratings([ANN, BOB])
    assert ratings == rate([(ANN, "resigned", 0), (BOB, "safe", 0)], {})
    assert ratings[BOB].shown > ratings[ANN].shown
    rated = raw(db_path, "SELECT user_id FROM rating_history WHERE table_id = ?"
                         " ORDER BY user_id", (table_id,))
    assert rated == [(ANN,), (BOB,)]
    assert (await world.store.results.player_record(ANN)).people.resigned == 1


async def test_the_last_move_rates_the_table(world: World) -> None:
    """Nobody taps: time-outs, then computers for the away players, play the game out."""
    table_id = await table_of_people(world)
    for _ in range(5000):
        due = world.timer.armed.get(table_id)
        if due is None:
            break
        await world.timer.ring(table_id, due)
    row = await world.store.tables.get(table_id)
    assert row.status == "finished"

    records = {uid: await world.store.results.player_record(uid) for uid in (ANN, BOB)}
    results = [(uid, *(("durak", 2) if r.people.durak else
                       ("draw", 1) if r.people.draws else ("safe", 1)))
               for uid, r in records.items()]
    assert all(r.people.games == 1 and r.computers.games == 0 for r in records.values())
    assert await world.store.results.ratings([ANN, BOB]) == rate(results, {})
