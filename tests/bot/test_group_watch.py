"""What the group sees of a whole game: its message keeps Telegram's group budget, and neither it
nor any log line at INFO ever shows a card that sits hidden in a hand (RULES R11)."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import statistics
from collections.abc import Iterator

import pytest

from tests.bot.conftest import ALICE, BOB
from tests.bot.groups import (
    GROUP,
    add_computer,
    join,
    open_lobby,
    play_all,
    shows_result,
    wait_started,
)
from tests.bot.hidden_cards import HiddenCards, Watch
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram

CAT = 503
GROUP_BUDGET = 20   # sends and edits a minute in one group
PAUSE = 0.4         # a person's pause before each tap: 4 s at the tests' time scale


@pytest.fixture
def hidden() -> Iterator[HiddenCards]:
    """Every log line at INFO or above is checked the moment it is written."""
    found = HiddenCards()
    handler, root = Watch(found), logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    yield found
    root.removeHandler(handler)
    root.setLevel(level)


def _busiest(times: list[float], seconds: float = 60.0) -> int:
    most, first = 0, 0
    for last, now in enumerate(times):
        while times[first] <= now - seconds:
            first += 1
        most = max(most, last - first + 1)
    return most


def _after(times: list[float], t: float) -> float | None:
    return next((x - t for x in times if x > t), None)


async def test_a_whole_group_game_within_budget_and_without_a_hidden_card(
        tg: FakeTelegram, bot: BotApp, db_path: str, hidden: HiddenCards) -> None:
    tg.add_user(CAT, "Cat")
    tg.add_group(GROUP, "Durak club", members=[ALICE, BOB, CAT], creator=ALICE)
    for person in (ALICE, BOB, CAT):
        await tg.send_text(person, "/start")
    lobby = await open_lobby(tg, ALICE)
    changes = tg.subscribe(GROUP)
    put = changes.put_nowait

    def checked(change) -> None:   # at the moment Telegram shows it
        if change.message_id == lobby.message_id and change.kind in ("message", "edit"):
            hidden.check("group", tg.message(GROUP, lobby.message_id).text)
        put(change)

    changes.put_nowait = checked
    await join(tg, BOB, lobby, "Bob")
    await join(tg, CAT, lobby, "Cat")
    await add_computer(tg, ALICE, lobby, "Normal")   # the last seat: the table starts
    table_id = await bot.tables.running_table_of(ALICE)
    hidden.game = bot.tables.core.tables[table_id].game   # the truth the check compares with
    people = [ALICE, BOB, CAT]
    await wait_started(tg, lobby, people)
    taps: list[tuple[float, int]] = []
    await play_all(tg, people, seed=7, pause=PAUSE, taps=taps)
    await tg.wait_for(lambda: shows_result(tg, lobby), timeout=60)
    tg.unsubscribe(changes)

    assert hidden.leaks == []
    assert hidden.checked > 20   # the scan saw the table all along

    group = [hit.time for hit in tg.sends_and_edits(GROUP, lobby.message_id)]
    assert tg.busiest_minute(GROUP, lobby.message_id) <= GROUP_BUDGET
    with sqlite3.connect(db_path) as db:
        moves = [at for (at,) in db.execute("SELECT at FROM actions WHERE table_id = ?"
                                            " ORDER BY seq", (table_id,))]
    assert _busiest(moves) > GROUP_BUDGET   # the table changed faster than the group may see

    tap_times = [t for t, _ in taps]
    to_group = [d for t in tap_times if (d := _after(group, t)) is not None]
    own = [d for t, user in taps
           if (d := _after([h.time for h in tg.sends_and_edits(user)], t)) is not None]
    figures = {
        "people": 3, "computers": 1, "seconds": round(moves[-1] - moves[0], 1),
        "taps": len(taps), "moves": len(moves),
        "busiest_minute_moves": _busiest(moves),
        "group_sends_and_edits": len(group),
        "group_busiest_minute": tg.busiest_minute(GROUP, lobby.message_id),
        "group_per_clock_minute": list(tg.per_minute(GROUP, lobby.message_id).values()),
        "tap_to_own_edit_p50_ms": round(statistics.median(own) * 1000),
        "tap_to_own_edit_p95_ms": round(statistics.quantiles(own, n=20)[-1] * 1000),
        "tap_to_group_edit_p50_ms": round(statistics.median(to_group) * 1000),
        "tap_to_group_edit_p95_ms": round(statistics.quantiles(to_group, n=20)[-1] * 1000),
        "scanned_group_versions_and_log_lines": hidden.checked,
    }
    if os.environ.get("GROUP_FIGURES"):
        with open(os.environ["GROUP_FIGURES"], "w") as out:
            json.dump(figures, out, indent=1)
