"""Double taps (issue 11, hostile input): the same button twice at once does its work once, at a
group's table too: Join, Start, a lead, a Take, Rematch. (Two different cards at once, in a
private game: test_bad_input.py.)"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

from tests.bot.conftest import ALICE, BOB, game_message, settings_for
from tests.bot.groups import GROUP, JOIN, REMATCH, START, open_lobby, shows_result
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram
from tg_durak.emulator.models import Message
from tg_durak.i18n.translate import translator

T = translator("en")


@pytest.fixture
async def bot(tg: FakeTelegram, db_path: str) -> AsyncIterator[BotApp]:
    """Real time: a turn lasts 30 s, so nobody's clock runs out between two taps."""
    app = BotApp(replace(settings_for(tg, db_path), time_scale=1.0))
    await app.start()
    yield app
    await app.stop()


def _count(db_path: str, sql: str, *args: object) -> int:
    with contextlib.closing(sqlite3.connect(db_path)) as db:
        return db.execute(sql, args).fetchone()[0]


def _acts(db_path: str, table_id: int, seat: int) -> list[list]:
    with contextlib.closing(sqlite3.connect(db_path)) as db:
        entries = [json.loads(e) for (e,) in db.execute(
            "SELECT entry FROM actions WHERE table_id = ? ORDER BY seq", (table_id,))]
    return [e for e in entries if e[0] == "act" and e[1] == seat and not e[6]]


async def _twice(tg: FakeTelegram, user_id: int, message: Message, button: str
                 ) -> list[str | None]:
    answers = await asyncio.gather(*(tg.press(user_id, message, button) for _ in range(2)))
    return sorted((a.text or "" for a in answers), key=len)


async def test_double_taps_at_a_group_table_apply_once(
        tg: FakeTelegram, bot: BotApp, db_path: str) -> None:
    tg.add_group(GROUP, "Durak club", members=[ALICE, BOB], creator=ALICE)
    for person in (ALICE, BOB):
        await tg.send_text(person, "/start")
    lobby = await open_lobby(tg, ALICE)
    table_id = await bot.tables.running_table_of(ALICE)

    assert await _twice(tg, BOB, lobby, JOIN) == [T("lobby.already_in"), T("lobby.joined")]
    assert _count(db_path, "SELECT COUNT(*) FROM seats WHERE table_id = ? AND user_id = ?",
                  table_id, BOB) == 1
    # The second Start finds the table started: the start it meant (issue 16), answered alike.
    assert await _twice(tg, ALICE, lobby, START) == ["", ""]
    assert _count(db_path, "SELECT COUNT(*) FROM tables WHERE chat_id = ? AND status = ?",
                  GROUP, "running") == 1

    live = bot.tables.core.tables[table_id]
    leader = live.row.seats[live.game.attacker]
    defender = live.row.seats[live.game.defender]
    message = await tg.wait_for(lambda: (lambda m: m is not None and any(
        b.text.startswith("•") for row in m.buttons for b in row) and m)(
        game_message(tg, leader.user_id)))
    card = next(b for row in message.buttons for b in row if b.text.startswith("•"))
    assert await _twice(tg, leader.user_id, message, card.callback_data) == ["", T("tap.stale")]
    assert len(_acts(db_path, table_id, leader.seat)) == 1, "one lead, once"

    take = T("btn.take")
    theirs = await tg.wait_for(lambda: (lambda m: m is not None and any(
        b.text == take for row in m.buttons for b in row) and m)(
        game_message(tg, defender.user_id)))
    assert (await _twice(tg, defender.user_id, theirs, take))[1] == T("tap.stale")
    assert [a[2] for a in _acts(db_path, table_id, defender.seat)] == ["take"]

    for person in (ALICE, BOB):   # nobody left playing: the table ends, with Rematch
        await tg.send_text(person, "/leave@durak_test_bot", chat_id=GROUP)
    await tg.wait_for(lambda: shows_result(tg, lobby), timeout=60)
    answers = await _twice(tg, BOB, tg.message(GROUP, lobby.message_id), REMATCH)
    assert answers == ["", T("lobby.chat_busy")]
    assert _count(db_path, "SELECT COUNT(*) FROM tables WHERE chat_id = ? AND status = ?",
                  GROUP, "lobby") == 1
