"""The bot process dies (SIGKILL) in the middle of a group game; a new process on the same
database goes on editing the same group message and the same private messages to the end."""

from __future__ import annotations

import asyncio
import signal
import subprocess

from tests.bot.conftest import ALICE, BOB, game_message, started_bot
from tests.bot.groups import (
    GROUP,
    add_computer,
    join,
    open_lobby,
    play_all,
    shows_result,
    wait_started,
)
from tg_durak.emulator import FakeTelegram
from tg_durak.storage import Store


async def _stop(proc: subprocess.Popen, sig: int) -> None:
    proc.send_signal(sig)
    await asyncio.get_running_loop().run_in_executor(None, proc.wait, 20)


async def test_a_killed_bot_goes_on_with_the_same_messages(tg: FakeTelegram, db_path: str
                                                           ) -> None:
    tg.add_group(GROUP, "Durak club", members=[ALICE, BOB], creator=ALICE)
    first = await started_bot(tg, db_path)
    try:
        for person in (ALICE, BOB):
            await tg.send_text(person, "/start")
        lobby = await open_lobby(tg, ALICE)
        await join(tg, BOB, lobby, "Bob")
        await add_computer(tg, BOB, lobby, "Easy")
        await add_computer(tg, BOB, lobby, "Easy")   # the last seat: the table starts
        await wait_started(tg, lobby, [ALICE, BOB])
        private = {p: game_message(tg, p).message_id for p in (ALICE, BOB)}
        edits = tg.message(GROUP, lobby.message_id).edit_count
        await tg.wait_for(lambda: tg.message(GROUP, lobby.message_id).edit_count >= edits + 2,
                          timeout=60)   # the computers have moved: the game is under way
    finally:
        await _stop(first, signal.SIGKILL)   # a crash, not a polite shutdown

    store = await Store.open(db_path)
    try:
        table = await store.tables.for_user(ALICE)
        assert (table.kind, table.status) == ("group", "running")
        version_at_crash = table.version
    finally:
        await store.close()

    edits = tg.message(GROUP, lobby.message_id).edit_count
    second = await started_bot(tg, db_path)
    try:
        await tg.wait_for(lambda: tg.message(GROUP, lobby.message_id).edit_count > edits,
                          timeout=60)   # the new process took the group message over
        finals = await play_all(tg, [ALICE, BOB], seed=9)
        await tg.wait_for(lambda: shows_result(tg, lobby), timeout=60)
    finally:
        await _stop(second, signal.SIGTERM)

    assert {p: m.message_id for p, m in finals.items()} == private   # the same messages
    assert "Places:" in tg.message(GROUP, lobby.message_id).text
    assert [m.message_id for m in tg.messages(GROUP) if m.from_bot and m.buttons] == [
        lobby.message_id]   # no second table message
    store = await Store.open(db_path)
    try:
        table = await store.tables.get(table.id)
        assert table.status == "finished" and table.version > version_at_crash
        assert any(e[0] == "postpone" for e in await store.tables.log(table.id))   # R10.4
    finally:
        await store.close()
