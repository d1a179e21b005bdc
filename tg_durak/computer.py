"""Computer players' decisions, made in worker processes so no search ever blocks the bot."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import random
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from engine import Action, PlayerView
from engine.ai import get_player

log = logging.getLogger(__name__)
_players: dict[str, object] = {}


def _choose(level: str, view: PlayerView, legal: list[Action], seed: str) -> Action:
    player = _players.get(level)
    if player is None:
        player = _players[level] = get_player(level)
    action = player.choose(view, legal, random.Random(seed))
    return action if action in legal else legal[0]


class ComputerPlayers:
    """A small process pool; `choose` awaits a decision without holding up the event loop."""

    def __init__(self, workers: int = 1) -> None:
        self._workers = workers
        self._executor = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=self._workers,
                                   mp_context=multiprocessing.get_context("spawn"))

    async def choose(self, level: str, view: PlayerView, legal: list[Action], seed: str) -> Action:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor, _choose, level, view, legal, seed)
        except BrokenProcessPool:
            # A worker died (killed, out of memory): start a fresh pool and ask once more.
            log.warning("computer player pool broke; starting a new one")
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = self._new_pool()
            return await loop.run_in_executor(self._executor, _choose, level, view, legal, seed)

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
