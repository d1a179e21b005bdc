"""Shared by the fault tests: starting a private game, what a message shows, a process's end,
and the database checked the way an operator checks it."""

from __future__ import annotations

import asyncio
import subprocess

from tests.bot.conftest import game_message
from tg_durak.emulator import FakeTelegram
from tg_durak.emulator.models import Message
from tg_durak.ops.check import check
from tg_durak.storage import Store
from tg_durak.telegram.callbacks import MoveCallback


async def quick_game(tg: FakeTelegram, user_id: int) -> Message:
    """/start, then the greeting's first button (▶ Play, in the person's language)."""
    await tg.send_text(user_id, "/start")
    greeting = await tg.wait_for(lambda: tg.last_message(user_id), timeout=60)
    await tg.press(user_id, greeting, greeting.buttons[0][0], timeout=60)
    return await tg.wait_for(lambda: game_message(tg, user_id), timeout=60)


def shown_version(message: Message) -> int:
    """The table version a game message shows (its buttons carry it)."""
    return next(MoveCallback.unpack(b.callback_data).v for row in message.buttons for b in row
                if b.callback_data and b.callback_data.startswith("m:"))


async def problems(db_path: str) -> list[str]:
    """What `python -m tg_durak check` would report."""
    store = await Store.open(db_path, readonly=True)
    try:
        return [str(p) for p in (await check(store)).problems]
    finally:
        await store.close()


async def exit_code(proc: subprocess.Popen, timeout: float = 60) -> int:
    """The process's exit code once it ends (a guard against a hang, not a speed check)."""
    return await asyncio.get_running_loop().run_in_executor(None, proc.wait, timeout)


def last_words(proc: subprocess.Popen) -> str:
    """The one line the bot says on stderr before it exits (log lines may come before it,
    a traceback may not)."""
    out = proc.stdout.read().decode()
    assert "Traceback" not in out, out
    ours = [line for line in out.splitlines() if line.startswith("tg-durak:")]
    assert len(ours) == 1 and out.strip().splitlines()[-1] == ours[0], out
    return ours[0]
