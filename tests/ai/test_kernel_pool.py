"""The computer pool's workers load the search kernel when the pool is started (the bot starts it
as it starts), each in a thread beside its decisions: a decision asked before a worker is warm is
the Python search's, made within its budget; once the worker has logged that it is warm, its
decisions race in the kernel, and nothing more is logged. DURAK_KERNEL=off keeps every worker on
the Python search."""

from __future__ import annotations

import asyncio
import logging

import pytest

from engine import Game, Rules
from engine.kernel import loader
from tg_durak.tables.computers import HARD_BUDGET, ComputerPlayers

GAME = Game.new(Rules(variant="transfer", players=3), seed=4)
SEAT = GAME.attacker
VIEW, LEGAL = GAME.view(SEAT), GAME.legal_actions(SEAT)
WARM = "the search kernel is warm"
# A guard against a hang, not a measurement: a cold cache compiles for a minute or more.
WARM_WITHIN = 600.0


def warm_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith(WARM)]


async def until_warm(caplog: pytest.LogCaptureFixture) -> None:
    for _ in range(int(WARM_WITHIN / 0.05)):
        if warm_lines(caplog):
            return
        await asyncio.sleep(0.05)
    raise TimeoutError(f"no worker said it was warm in {WARM_WITHIN} s")


@pytest.mark.parametrize("switch", ["on", "off"])
async def test_a_worker_plays_the_python_search_until_its_kernel_is_warm_then_races_in_it(
        switch: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    # Compiled here first, so the worker loads from the cache even on a machine that never
    # compiled the kernel.
    assert loader.load()
    monkeypatch.setenv(loader.SWITCH, switch)   # the workers inherit the environment
    caplog.set_level(logging.INFO)   # the workers log at the bot's level
    pool = ComputerPlayers(workers=1)
    try:
        # Not started: the worker comes up for this decision and has not loaded the kernel.
        assert await pool.choose("hard", VIEW, LEGAL, "before") in LEGAL
        stats = pool.stats()
        assert (stats["hard_decisions"], stats["shed"], stats["kernel_decisions"]) == (1, 0, 0), \
            "the Python search, with the whole budget"
        assert stats["mean_budget_s"] == HARD_BUDGET

        pool.start()
        if switch == "on":
            await until_warm(caplog)
        for i in range(3):
            assert await pool.choose("hard", VIEW, LEGAL, f"after {i}") in LEGAL
        stats = pool.stats()
        assert stats["kernel_decisions"] == (3 if switch == "on" else 0)
        assert (stats["hard_decisions"], stats["shed"]) == (4, 0)
        assert len(warm_lines(caplog)) == (switch == "on"), "one line when warm, none a decision"
    finally:
        await pool.close()
