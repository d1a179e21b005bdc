"""Computer players' decisions, made in worker processes so no search ever blocks the bot."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import random
import signal
import threading
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import wait

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


def _start_worker() -> None:
    """A worker leaves as soon as the bot is gone, even when the bot was killed outright:
    it would otherwise wait for work forever, holding the pool's pipes open."""
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent.sentinel,), daemon=True).start()


def _exit_with(parent_sentinel: int) -> None:
    wait([parent_sentinel])
    os._exit(0)


@contextlib.contextmanager
def _sigint_held() -> Iterator[None]:
    """Workers started in here begin with SIGINT blocked, and it stays blocked: a signal mask
    survives fork and exec, so even a worker still starting up never sees a Ctrl-C. A terminal
    sends Ctrl-C to every process in its foreground group, and only the bot should act on it
    (it shuts the pool down). multiprocessing starts its resource tracker the same way."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no such signal group
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


class ComputerPlayers:
    """A small process pool; `choose` awaits a decision without holding up the event loop."""

    def __init__(self, workers: int = 1) -> None:
        self._workers = workers
        self._executor = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=self._workers, initializer=_start_worker,
                                   mp_context=multiprocessing.get_context("spawn"))

    def _submit(self, *args: object) -> Future:
        # The pool starts its workers on demand, inside submit().
        with _sigint_held():
            return self._executor.submit(_choose, *args)

    async def choose(self, level: str, view: PlayerView, legal: list[Action], seed: str) -> Action:
        try:
            return await asyncio.wrap_future(self._submit(level, view, legal, seed))
        except BrokenProcessPool:
            # A worker died (killed, out of memory): start a fresh pool and ask once more.
            log.warning("computer player pool broke; starting a new one")
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = self._new_pool()
            return await asyncio.wrap_future(self._submit(level, view, legal, seed))

    async def close(self) -> None:
        """Stop the workers and wait until they are gone (a decision under way runs to its end,
        a fraction of a second); the event loop keeps running meanwhile."""
        await asyncio.to_thread(self._executor.shutdown, wait=True, cancel_futures=True)
