"""The bot's stop while computers think is quiet (issue "Run it for a real community"): the
decisions it stops waiting for leave the pool's books in order (that a SIGTERM sent to every
process of the service is for the bot alone: tests/app/test_computer_pool.py)."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from collections.abc import Iterator

import pytest

from engine import Game, Rules
from tests.processes import children
from tg_durak.tables.computers import ComputerPlayers

GAME = Game.new(Rules(variant="transfer", players=3), seed=4)
SEAT = GAME.attacker
VIEW, LEGAL = GAME.view(SEAT), GAME.legal_actions(SEAT)


@pytest.fixture
def thread_failures() -> Iterator[list[threading.ExceptHookArgs]]:
    """What any thread raised and did not catch (the pool's own threads among them)."""
    caught: list[threading.ExceptHookArgs] = []
    before = threading.excepthook
    threading.excepthook = caught.append
    try:
        yield caught
    finally:
        threading.excepthook = before


async def test_waits_given_up_then_a_dead_worker_raise_nothing_in_the_pools_thread(
        thread_failures: list[threading.ExceptHookArgs]) -> None:
    before = set(children())
    pool = ComputerPlayers()
    try:
        await pool.choose("normal", VIEW, LEGAL, "warm")
        workers = set(children()) - before
        # One search under way, three queued behind it; then the tables stop waiting for them.
        waits = [asyncio.create_task(pool.choose("hard", VIEW, LEGAL, f"s{i}"))
                 for i in range(4)]
        await asyncio.sleep(0.1)
        for wait in waits:
            wait.cancel()
        await asyncio.gather(*waits, return_exceptions=True)
        for pid in workers:   # the worker dies meanwhile: the pool gives up what it holds
            os.kill(pid, signal.SIGKILL)
        await asyncio.sleep(1)
    finally:
        await pool.close()
    assert [str(failure.exc_value) for failure in thread_failures] == []
