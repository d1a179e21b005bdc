"""The computer pool's workers load the search kernel as they start, in the background: the
first decisions come from the Python search, later ones from the kernel; DURAK_KERNEL=off keeps
every worker on the Python search."""

from __future__ import annotations

import asyncio
import time

import pytest

from engine import Game, Rules
from engine.kernel import loader
from tg_durak.tables.computers import ComputerPlayers

GAME = Game.new(Rules(variant="transfer", players=3), seed=4)
SEAT = GAME.attacker
VIEW, LEGAL = GAME.view(SEAT), GAME.legal_actions(SEAT)


def kernel_in_worker(wait: float) -> bool:
    """In a worker: whether its kernel is warm, waiting up to `wait` seconds (a cold cache
    compiles for a minute or more at the lowest priority)."""
    deadline = time.monotonic() + wait
    while loader.enabled() and not loader.ready() and time.monotonic() < deadline:
        time.sleep(0.05)
    return loader.ready()


@pytest.mark.parametrize("switch", ["on", "off"])
async def test_a_worker_plays_while_its_kernel_warms_then_races_in_it(
        switch: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Compiled here first (at the test's priority, not the worker's lowest), so the worker
    # loads from the cache even on a machine that never compiled the kernel.
    assert loader.load()
    monkeypatch.setenv(loader.SWITCH, switch)   # the workers inherit the environment
    pool = ComputerPlayers(workers=1)
    try:
        # Asked at once: the worker has just started, its kernel still loading.
        assert await pool.choose("hard", VIEW, LEGAL, "first") in LEGAL
        warm = await asyncio.wrap_future(pool._executor.submit(kernel_in_worker, 600.0))
        assert warm is (switch == "on")
        assert await pool.choose("hard", VIEW, LEGAL, "later") in LEGAL
    finally:
        await pool.close()
