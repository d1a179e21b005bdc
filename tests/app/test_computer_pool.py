"""Computer players think in worker processes; a dead worker does not stop the games, and no
worker outlives the bot: not after its stop, not after it was killed, not after a Ctrl-C."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import subprocess
import sys

from engine import Game, Rules
from tests.processes import children, running
from tg_durak.computer import ComputerPlayers

GAME = Game.new(Rules(variant="transfer", players=3), seed=4)
SEAT = GAME.attacker
VIEW, LEGAL = GAME.view(SEAT), GAME.legal_actions(SEAT)


async def test_decisions_come_from_another_process_and_survive_a_dead_worker() -> None:
    before = set(children())
    pool = ComputerPlayers()
    try:
        first = await pool.choose("normal", VIEW, LEGAL, "seed")
        assert first in LEGAL
        workers = set(children()) - before
        assert workers, "a worker process made the decision"
        for pid in workers:
            os.kill(pid, signal.SIGKILL)
        again = await pool.choose("normal", VIEW, LEGAL, "seed")
        assert again == first, "same view, same seed: the same decision"
        assert set(children()) - before - workers, "a fresh worker made the second decision"
    finally:
        await pool.close()
    assert set(children()) <= before, "close() waits until every worker is gone"
    assert multiprocessing.active_children() == []


async def test_a_ctrl_c_is_for_the_bot_not_for_its_workers() -> None:
    """A terminal sends Ctrl-C to the whole process group; the workers carry on until the bot
    closes the pool (a worker that died of it would print a KeyboardInterrupt traceback)."""
    before = set(children())
    pool = ComputerPlayers()
    try:
        first = await pool.choose("easy", VIEW, LEGAL, "seed")
        workers = set(children()) - before
        for pid in workers:
            os.kill(pid, signal.SIGINT)
        assert await pool.choose("easy", VIEW, LEGAL, "seed") == first
        assert set(children()) - before == workers, "the same workers, none replaced"
    finally:
        await pool.close()


KILLED_BOT = """
import asyncio, os, signal
from engine import Game, Rules
from tg_durak.computer import ComputerPlayers

async def main():
    game = Game.new(Rules(), seed=1)
    pool = ComputerPlayers()
    await pool.choose("easy", game.view(game.attacker), game.legal_actions(game.attacker), "s")
    print(*pool._executor._processes, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)

asyncio.run(main())
"""


async def test_workers_leave_when_the_bot_is_killed() -> None:
    proc = await asyncio.to_thread(subprocess.run, [sys.executable, "-c", KILLED_BOT],
                                   capture_output=True, text=True, timeout=60)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    workers = [int(pid) for pid in proc.stdout.split()]
    assert workers
    for _ in range(100):  # at most 10 s; they go within milliseconds
        if not any(running(pid) for pid in workers):
            break
        await asyncio.sleep(0.1)
    assert not any(running(pid) for pid in workers), "orphaned workers wait forever"
