"""Computer players think in worker processes; a dead worker does not stop the games, and no
worker outlives the bot: not after its stop, not after it was killed, not after a Ctrl-C. Under
load the pool sheds work: `hard` thinks less the longer the queue, down to `normal`."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import Future

import pytest

from engine import Game, Rules
from tests.processes import children, running
from tg_durak.tables import computers as computer
from tg_durak.tables.computers import (
    ANSWER_WITHIN,
    HARD_BUDGET,
    MIN_HARD_BUDGET,
    ComputerPlayers,
    shed_budget,
)

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


@pytest.mark.parametrize("sent", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
async def test_a_ctrl_c_or_a_sigterm_is_for_the_bot_not_for_its_workers(sent: int) -> None:
    """A terminal sends Ctrl-C to the whole process group, systemd a SIGTERM to every process
    of the service; the workers carry on until the bot closes the pool (a worker that died of
    it would print a traceback)."""
    before = set(children())
    pool = ComputerPlayers()
    try:
        first = await pool.choose("easy", VIEW, LEGAL, "seed")
        workers = set(children()) - before
        for pid in workers:
            os.kill(pid, sent)
        assert await pool.choose("easy", VIEW, LEGAL, "seed") == first
        assert set(children()) - before == workers, "the same workers, none replaced"
    finally:
        await pool.close()


KILLED_BOT = """
import asyncio, os, signal
from engine import Game, Rules
from tg_durak.tables.computers import ComputerPlayers

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


# ---- shedding work under load ----------------------------------------------------------------


def test_a_hard_budget_shrinks_with_the_queue_down_to_normal() -> None:
    budgets = [shed_budget(waiting) for waiting in range(20)]
    assert budgets[0] == HARD_BUDGET, "a free pool: the full budget"
    assert budgets[1] == HARD_BUDGET / 2
    thinking = [b for b in budgets if b is not None]
    assert thinking == sorted(thinking, reverse=True) and min(thinking) >= MIN_HARD_BUDGET
    assert budgets[-1] is None, "a long queue: played as normal"


class FakeExecutor:
    """Takes the pool's work and lets the test decide when each decision is done."""

    def __init__(self) -> None:
        self.asked: list[tuple] = []
        self.futures: list[Future] = []

    def submit(self, fn, *args) -> Future:
        self.asked.append(args)
        self.futures.append(Future())
        return self.futures[-1]

    def answer(self, index: int, budget: float | None) -> None:
        legal = self.asked[index][2]
        self.futures[index].set_result(computer.Decision(legal[0], time.time(), budget, 0.0))

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        return None


async def test_decisions_asked_behind_a_queue_are_given_less_time() -> None:
    pool = ComputerPlayers(workers=1)
    fake = pool._executor = FakeExecutor()
    asked = [asyncio.create_task(pool.choose("hard", VIEW, LEGAL, f"s{i}")) for i in range(3)]
    normal = asyncio.create_task(pool.choose("normal", VIEW, LEGAL, "n"))
    await asyncio.sleep(0)
    budgets = [args[4] for args in fake.asked]
    assert budgets == [HARD_BUDGET, HARD_BUDGET / 2, HARD_BUDGET / 3, None]
    assert pool.stats()["in_flight"] == 4

    for index, given in enumerate(budgets):
        fake.answer(index, given)
    assert all(action in LEGAL for action in await asyncio.gather(*asked, normal))
    again = asyncio.create_task(pool.choose("hard", VIEW, LEGAL, "later"))
    await asyncio.sleep(0)
    assert fake.asked[-1][4] == HARD_BUDGET, "the queue is gone: the full budget again"
    fake.answer(4, HARD_BUDGET)
    await again

    stats = pool.stats()
    assert (stats["decisions"], stats["hard_decisions"], stats["shed"]) == (5, 4, 2)
    assert stats["mean_budget_s"] == pytest.approx((3 + 1.5 + 1 + 3) / 10 / 4, abs=1e-4)
    assert stats["in_flight"] == 0
    await pool.close()


def test_a_decision_asked_too_long_ago_is_made_as_normal_would() -> None:
    """In the worker: the budget is cut to what is left of the answer's time; none left, the
    search gives way to `normal`'s move (the same seed, the same move)."""
    late = time.time() - ANSWER_WITHIN
    hard = computer._choose("hard", VIEW, LEGAL, "seed", HARD_BUDGET, late)
    normal = computer._choose("normal", VIEW, LEGAL, "seed", None, late)
    assert hard.budget is None and hard.action == normal.action and hard.action in LEGAL


async def test_a_long_queue_of_real_searches_sheds_and_stays_legal() -> None:
    pool = ComputerPlayers()
    try:
        await pool.choose("easy", VIEW, LEGAL, "warm up")   # the worker has started
        views = [(g.view(g.attacker), g.legal_actions(g.attacker))
                 for g in (Game.new(Rules(players=2), seed=s) for s in range(16))]
        actions = await asyncio.gather(*(pool.choose("hard", view, legal, f"s{i}")
                                         for i, (view, legal) in enumerate(views)))
        assert all(a in legal for a, (_, legal) in zip(actions, views, strict=True))
        stats = pool.stats()
        assert stats["hard_decisions"] == 16 and stats["shed"] >= 15
        assert stats["normal_instead"] >= 1, "the last in the queue played as normal"
        assert stats["mean_budget_s"] < HARD_BUDGET / 3
    finally:
        await pool.close()
