"""The bot's stop leaves no process behind: the computer players' workers are gone with it."""

from __future__ import annotations

import asyncio
import multiprocessing

from tests.bot.conftest import ALICE, game_message, settings_for
from tests.processes import children
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram


async def _new_children(before: set[int], timeout: float) -> set[int]:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not (new := set(children()) - before) and loop.time() < deadline:
        await asyncio.sleep(0.05)
    return new


async def test_no_child_process_survives_the_bots_stop(tg: FakeTelegram, db_path: str) -> None:
    before = set(children())
    app = BotApp(settings_for(tg, db_path))
    await app.start()
    try:
        await tg.send_text(ALICE, "/start")
        await tg.wait_for(lambda: tg.last_message(ALICE) is not None)
        await tg.press(ALICE, tg.last_message(ALICE), "▶ Play")
        message = await tg.wait_for(lambda: game_message(tg, ALICE))
        # Bot 1 moves, or Alice's turn runs out and a computer moves for her: a worker starts.
        workers = await _new_children(before, timeout=60)
        assert workers, "no computer player's worker started"
        await tg.wait_for(lambda: game_message(tg, ALICE).edit_count > message.edit_count)
    finally:
        await app.stop()
    assert not set(children()) - before, "a process outlived the bot's stop"
    assert multiprocessing.active_children() == []
