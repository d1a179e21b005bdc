"""Computer players' decisions, made in worker processes so no search ever blocks the bot.

Under load the pool sheds work rather than fall behind: `hard` thinks 0.3 s a move when the pool
is free, less the more decisions wait (its budget divided by one plus the queue), and plays as
`normal` (a fraction of a millisecond) once that is below `MIN_HARD_BUDGET`. A worker also cuts a
budget to what is left of `ANSWER_WITHIN` since the decision was asked for, so no computer misses
its reaction window (R10.3's pause is up to 3 s; the table's loop needs some of it too).

`start()` (the bot calls it as it starts) brings every worker up and has each load `hard`'s
compiled search kernel at once, from the cache or compiling it, in a thread of its own beside the
decisions (engine/kernel/). Until a worker's kernel is warm, its `hard` plays the Python search,
within the same budgets and answer window; each worker logs one line when it is warm (its log
reaches the bot's through a queue). A pool not started yet brings a worker up at its first
decision and leaves the kernel out. DURAK_KERNEL=off keeps the kernel out everywhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import logging.handlers
import multiprocessing
import os
import random
import signal
import threading
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing.connection import wait
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Event
from typing import TypeVar

from engine import Action, PlayerView
from engine.ai import HardPlayer, Player, get_player
from engine.ai.search import DEFAULT_BUDGET as HARD_BUDGET
from engine.kernel import loader as kernel

log = logging.getLogger(__name__)
T = TypeVar("T")
_players: dict[str, Player] = {}

SEARCHING = "hard"   # the one level whose time is a budget to shed
MIN_HARD_BUDGET = 0.02   # seconds; a search this short is no better than `normal`
ANSWER_WITHIN = 1.0   # seconds from asking to the answer, queue included
WAITS_KEPT = 2_000   # recent queue waits (and hard decisions' times) behind the p99s


def shed_budget(waiting: int) -> float | None:
    """Seconds a `hard` decision may think with `waiting` decisions queued ahead of it (None:
    play as `normal`). The queue's total thinking stays about one full budget."""
    budget = HARD_BUDGET / (1 + waiting)
    return budget if budget >= MIN_HARD_BUDGET else None


@dataclass(frozen=True)
class Decision:
    """A worker's answer: the action, when the worker took the decision up (wall time), the
    budget the search was given in the end (None: it played as `normal`), the seconds the
    worker spent on it, and whether `hard`'s search ran in the compiled kernel."""

    action: Action
    started: float
    budget: float | None
    thought: float
    kernel: bool = False


def _choose(level: str, view: PlayerView, legal: list[Action], seed: str,
            budget: float | None, answer_by: float) -> Decision:
    """In a worker: the decision (`Decision`)."""
    started = time.time()
    clock = time.perf_counter()
    if budget is not None:
        budget = min(budget, answer_by - started)
        if budget < MIN_HARD_BUDGET:
            budget = None
    player = _player(level, budget)
    action = player.choose(view, legal, random.Random(seed))
    # A fresh HardPlayer each decision: `last` is this decision's (empty: one legal move).
    kernel = isinstance(player, HardPlayer) and bool(player.last.get("kernel"))
    return Decision(action if action in legal else legal[0], started, budget,
                    time.perf_counter() - clock, kernel)


def _player(level: str, budget: float | None) -> Player:
    if level == SEARCHING and budget is not None:
        return get_player(level, budget=budget)
    name = "normal" if level == SEARCHING else level
    player = _players.get(name)
    if player is None:
        player = _players[name] = get_player(name)
    return player


def _start_worker(started: Event, logs: Queue, level: int) -> None:
    """A worker leaves as soon as the bot is gone, even when the bot was killed outright:
    it would otherwise wait for work forever, holding the pool's pipes open. Its log goes to
    the bot's (`logs`), and once the pool is `started` it loads the search kernel in a thread
    of its own: its decisions meanwhile are the Python search's."""
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent.sentinel,), daemon=True).start()
    logs.cancel_join_thread()   # a worker's exit never waits for the bot to read its log
    root = logging.getLogger()
    root.handlers = [logging.handlers.QueueHandler(logs)]
    root.setLevel(level)
    if kernel.enabled():
        # At the worker's own priority: a thread at the lowest could hold the interpreter's
        # lock while it waits for a core, and stall the decisions with it.
        threading.Thread(target=_load_kernel, args=(started,), name="kernel-warm-up",
                         daemon=True).start()


def _load_kernel(started: Event) -> None:
    started.wait()
    kernel.load()   # logs once that it is warm, and how long that took


def _exit_with(parent_sentinel: int) -> None:
    wait([parent_sentinel])
    os._exit(0)


# What asks the bot to stop; the bot then shuts its workers down itself.
STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def _stop_signals_held() -> Iterator[None]:
    """Workers started in here begin with SIGINT and SIGTERM blocked, and they stay blocked: a
    signal mask survives fork and exec, so even a worker still starting up never sees them. A
    terminal sends Ctrl-C to every process in its foreground group, systemd sends SIGTERM to
    every process of the service, and only the bot should act on either: a worker killed by it
    would break the pool in the middle of the bot's orderly stop. multiprocessing starts its
    resource tracker the same way."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no such signal group
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


async def _answer(decision: Future[T]) -> T:
    """The worker's answer. A wait cancelled (a table closed, the bot stopping) leaves the pool's
    future alone, unlike asyncio.wrap_future's own cancel: a queued future cancelled from here
    stays in the pool's books, and should a worker then die the pool sets an exception on it,
    which raises InvalidStateError with a traceback in the pool's thread (CPython 3.11). The
    decision runs on or is cancelled by the pool's shutdown; shield marks an answer nobody
    waits for any more as retrieved."""
    return await asyncio.shield(asyncio.wrap_future(decision))


class _Relay(logging.Handler):
    """In the bot: a worker's log record, handled as if it had been logged here."""

    def emit(self, record: logging.LogRecord) -> None:
        logging.getLogger(record.name).handle(record)


class ComputerPlayers:
    """A small process pool; `choose` awaits a decision without holding up the event loop."""

    def __init__(self, workers: int = 1) -> None:
        self._workers = workers
        context = multiprocessing.get_context("spawn")
        self._started = context.Event()
        self._logs: Queue = context.Queue()
        self._relay = logging.handlers.QueueListener(self._logs, _Relay())
        self._relay.start()
        self._executor = self._new_pool()
        self._in_flight = 0
        self._searching = 0   # hard decisions in flight
        self._decisions = 0
        self._searches = 0   # hard decisions: how many, their budgets, how many got less
        self._given = 0.0
        self._shed = 0
        self._as_normal = 0
        self._kernel_decisions = 0
        self._late = 0   # answered more than ANSWER_WITHIN after the ask
        self._waits: deque[float] = deque(maxlen=WAITS_KEPT)
        self._hard_thought: deque[float] = deque(maxlen=WAITS_KEPT)
        self._hard_answered: deque[float] = deque(maxlen=WAITS_KEPT)
        self._first_ask: float | None = None
        self._last_answer = 0.0

    def start(self) -> None:
        """Bring every worker up now and have each load the search kernel (the bot, as it
        starts): decisions asked meanwhile are answered by the Python search."""
        self._started.set()
        self._bring_up()

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self._workers, initializer=_start_worker,
            initargs=(self._started, self._logs, logging.getLogger().getEffectiveLevel()),
            mp_context=multiprocessing.get_context("spawn"))

    def _bring_up(self) -> None:
        """Start every worker: the pool starts one for each task it cannot hand to an idle one."""
        with _stop_signals_held():
            for _ in range(self._workers):
                self._executor.submit(os.getpid)

    def _submit(self, level: str, view: PlayerView, legal: list[Action], seed: str,
                budget: float | None, answer_by: float) -> Future[Decision]:
        # The pool starts its workers on demand, inside submit().
        with _stop_signals_held():
            return self._executor.submit(_choose, level, view, legal, seed, budget, answer_by)

    async def choose(self, level: str, view: PlayerView, legal: list[Action], seed: str) -> Action:
        asked = time.time()
        searching = level == SEARCHING
        # Only searches queue for long: other decisions take a fraction of a millisecond.
        budget = shed_budget(max(0, self._searching - self._workers + 1)) if searching else None
        args = (level, view, legal, seed, budget, asked + ANSWER_WITHIN)
        self._in_flight += 1
        self._searching += searching
        try:
            try:
                decision = await _answer(self._submit(*args))
            except BrokenProcessPool:
                # A worker died (killed, out of memory): start a fresh pool and ask once more.
                log.warning("computer player pool broke; starting a new one")
                self._executor.shutdown(wait=False, cancel_futures=True)
                self._executor = self._new_pool()
                if self._started.is_set():
                    self._bring_up()
                decision = await _answer(self._submit(*args))
        finally:
            self._in_flight -= 1
            self._searching -= searching
        self._count(level, asked, decision)
        return decision.action

    def _count(self, level: str, asked: float, decision: Decision) -> None:
        self._decisions += 1
        if self._first_ask is None:
            self._first_ask = asked
        self._last_answer = time.time()
        self._late += self._last_answer - asked > ANSWER_WITHIN
        self._waits.append(max(0.0, decision.started - asked))
        if level == SEARCHING:
            given = decision.budget
            self._searches += 1
            self._given += given or 0.0
            self._shed += given is None or given < HARD_BUDGET
            self._as_normal += given is None
            self._kernel_decisions += decision.kernel
            self._hard_thought.append(decision.thought)
            self._hard_answered.append(self._last_answer - asked)

    def stats(self) -> dict[str, float]:
        """Decisions made (and per second while the pool was in use), those answered later than
        ANSWER_WITHIN, hard ones given less than the full budget, played as normal or searched
        in the compiled kernel; over the recent decisions the queue's p99 wait, and hard
        decisions' p99 time in a worker (`think`) and from the ask to the answer; the mean
        budget hard decisions were given."""
        span = self._last_answer - (self._first_ask or self._last_answer)
        searches = self._searches
        return {
            "decisions": self._decisions,
            "decisions_per_s": round(self._decisions / span, 2) if span > 0 else 0.0,
            "answered_late": self._late,
            "hard_decisions": searches,
            "shed": self._shed,
            "normal_instead": self._as_normal,
            "kernel_decisions": self._kernel_decisions,
            "queue_wait_p99_ms": _p99_ms(self._waits),
            "hard_think_p99_ms": _p99_ms(self._hard_thought),
            "hard_answer_p99_ms": _p99_ms(self._hard_answered),
            "mean_budget_s": round(self._given / searches, 4) if searches else 0.0,
            "workers": self._workers,
            "in_flight": self._in_flight,
        }

    async def close(self) -> None:
        """Stop the workers and wait until they are gone (a decision under way runs to its end,
        a fraction of a second), then the relay of their log; the event loop keeps running
        meanwhile."""
        await asyncio.to_thread(self._executor.shutdown, wait=True, cancel_futures=True)
        await asyncio.to_thread(self._relay.stop)
        self._logs.close()


def _p99_ms(seconds: deque[float]) -> float:
    ordered = sorted(seconds)
    return round(ordered[int(0.99 * (len(ordered) - 1))] * 1000, 1) if ordered else 0.0
