"""After a crash the last screen of a table that had just finished may never have gone out: the
restarted service shows it again. Tables that ended long before are left alone."""

from __future__ import annotations

import time

from tests.app.test_table_service import START, FakeClock, service
from tests.helpers.stored_games import played
from tests.store.helpers import ONE_PROCESS
from tg_durak.storage import Store
from tg_durak.tables.restart import ENDS_SHOWN_AGAIN_SECONDS, HEARTBEAT_KEY

# A start that takes up every table at once is one process's (tests/app/test_shared_tables.py
# shows how several processes take them up).
pytestmark = ONE_PROCESS

ANN, BOB = 7, 8


async def test_a_table_that_just_finished_shows_its_end_again(store: Store) -> None:
    just = await played(store, [ANN], 3, computers=1)
    long_ago = await played(store, [BOB], 5, computers=1)
    assert (await store.tables.get(just)).status == "finished"
    await store.connection._db.execute(
        "UPDATE tables SET finished_at = finished_at - ? WHERE id = ?",
        (ENDS_SHOWN_AGAIN_SECONDS + 600, long_ago))
    await store.meta.set(HEARTBEAT_KEY, time.time())   # the bot's last sign of life

    world = service(store, FakeClock(START))
    assert await world.tables.restart.resume() == 0, "nothing is running"
    shown = world.publisher.shown
    assert [s.key for s in shown] == [(just, ANN)]
    buttons = [b.callback_data for row in shown[0].screen.keyboard for b in row]
    assert "u:again:" in buttons, "the result, with its Play again button"
    assert await world.tables.running_table_of(ANN) is None, "shown, not resumed"
