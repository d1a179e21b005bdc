"""The last hour of this process's metrics, for an operator's /opstats: Telegram's 429s and the
99th percentile of a tap's answer time, from the counters /metrics exposes (which count since
the start). A snapshot is kept each minute; the last hour is now less the oldest snapshot within
it (or since the start, for a process younger than an hour)."""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from prometheus_client import CollectorRegistry

from tg_durak.observe.counting import RequestOutcome

HOUR = 3600.0
EVERY = 60.0
REQUESTS = "durak_telegram_requests"
UPDATES = "durak_update_seconds"
TAP = "callback_query"   # an update's kind: a tap, whose answer the person waits for


@dataclass(frozen=True)
class Snapshot:
    at: float
    errors_429: float
    answers: dict[float, float]   # a histogram's cumulative counts by upper bound


def snapshot(registry: CollectorRegistry, at: float) -> Snapshot:
    errors = 0.0
    answers: dict[float, float] = {}
    for family in registry.collect():
        if family.name == REQUESTS:
            errors += sum(s.value for s in family.samples if s.name.endswith("_total")
                          and s.labels.get("outcome") == RequestOutcome.RETRY_AFTER)
        elif family.name == UPDATES:
            for s in family.samples:
                if s.name.endswith("_bucket") and s.labels.get("kind") == TAP:
                    answers[float(s.labels["le"])] = s.value
    return Snapshot(at, errors, answers)


def percentile(counts: dict[float, float], share: float) -> float | None:
    """The upper bound of the bucket where `share` of the counts fall (the largest finite
    bound for the slowest bucket); None: nothing counted."""
    total = counts.get(math.inf, 0.0)
    if total <= 0:
        return None
    bounds = sorted(counts)
    for bound in bounds:
        if counts[bound] >= share * total:
            return bound if bound != math.inf else max(
                (b for b in bounds if b != math.inf), default=None)
    return None


class LastHour:
    def __init__(self, registry: CollectorRegistry,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.registry = registry
        self.clock = clock
        self._kept: deque[Snapshot] = deque([snapshot(registry, clock())])

    def sample(self) -> None:
        """Keep a snapshot, at most one a minute (the heartbeat calls this)."""
        now = self.clock()
        if now - self._kept[-1].at >= EVERY:
            self._kept.append(snapshot(self.registry, now))
        while len(self._kept) > 1 and self._kept[1].at <= now - HOUR:
            self._kept.popleft()

    def figures(self) -> tuple[int, float | None]:
        """429s and the answer p99 (seconds) in the last hour."""
        self.sample()
        now = snapshot(self.registry, self.clock())
        then = self._kept[0]
        answers = {bound: count - then.answers.get(bound, 0.0)
                   for bound, count in now.answers.items()}
        return round(now.errors_429 - then.errors_429), percentile(answers, 0.99)
