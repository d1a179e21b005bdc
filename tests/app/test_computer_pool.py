"""Computer players think in worker processes; a dead worker does not stop the games."""

from __future__ import annotations

import os
import signal

from engine import Game, Rules
from tg_durak.computer import ComputerPlayers


async def test_decisions_come_from_another_process_and_survive_a_dead_worker() -> None:
    game = Game.new(Rules(variant="transfer", players=3), seed=4)
    seat = game.attacker
    view, legal = game.view(seat), game.legal_actions(seat)
    pool = ComputerPlayers()
    try:
        first = await pool.choose("normal", view, legal, "seed")
        assert first in legal
        workers = list(pool._executor._processes)
        assert workers and os.getpid() not in workers
        for pid in workers:
            os.kill(pid, signal.SIGKILL)
        again = await pool.choose("normal", view, legal, "seed")
        assert again == first, "same view, same seed: the same decision"
        assert set(pool._executor._processes).isdisjoint(workers)
    finally:
        pool.close()
