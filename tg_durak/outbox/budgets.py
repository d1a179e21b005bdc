"""Budgets as pure bookkeeping: Telegram's (so many requests in any window, paced evenly) and a
person's taps (the throttle's bucket). Time is passed in; nothing here sleeps or sends.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


class TokenBucket:
    """``rate`` tokens per second, at most ``capacity`` saved up; one request costs one token."""

    __slots__ = ("_stamp", "_tokens", "capacity", "rate")

    def __init__(self, rate: float, capacity: float = 1.0) -> None:
        if rate <= 0 or capacity < 1:
            raise ValueError("a bucket needs a positive rate and room for one token")
        self.rate = rate
        self.capacity = capacity
        self._tokens = capacity
        self._stamp: float | None = None

    def wait(self, now: float) -> float:
        """Seconds until a token is available (0.0: one is available now)."""
        self._refill(now)
        # The epsilon absorbs float error after sleeping exactly the computed time.
        return 0.0 if self._tokens >= 1 - 1e-9 else (1 - self._tokens) / self.rate

    def take(self, now: float) -> None:
        self._refill(now)
        self._tokens -= 1

    def take_if_free(self, now: float) -> bool:
        """Spend a token if one is available now; whether it was."""
        free = self.wait(now) == 0.0
        if free:
            self._tokens -= 1
        return free

    def full(self, now: float) -> bool:
        self._refill(now)
        return self._tokens >= self.capacity

    def _refill(self, now: float) -> None:
        if self._stamp is not None:
            elapsed = max(0.0, now - self._stamp)
            self._tokens = min(self.capacity, self._tokens + elapsed * self.rate)
        self._stamp = now


class Budget:
    """At most ``limit`` requests in any ``seconds``, paced evenly.

    A request counts from its start until ``seconds`` after its answer: Telegram counts it when it
    arrives, somewhere in between.
    """

    # Every chat a running table writes to keeps one: slots and a list (a deque costs 600 bytes).
    __slots__ = ("_ends", "_open", "limit", "pace", "seconds")

    def __init__(self, limit: int, seconds: float) -> None:
        self.limit = limit
        self.seconds = seconds
        self.pace = TokenBucket(limit / seconds)
        self._ends: list[float] = []  # answers within the last window, oldest first
        self._open = 0  # requests awaiting their answer

    def wait(self, now: float) -> float:
        """Seconds until a request may start; ``math.inf`` until an answer comes."""
        ends = self._expire(now)
        if len(ends) + self._open < self.limit:
            return self.pace.wait(now)
        return ends[0] + self.seconds - now if ends else math.inf

    def take(self, now: float) -> None:
        self.pace.take(now)
        self._open += 1

    def release(self, now: float) -> None:
        """A request's answer came (or it failed): it leaves the window ``seconds`` from now."""
        self._open -= 1
        # Answers may come out of order; a later stamp only keeps the request a little longer.
        self._ends.append(max(now, self._ends[-1]) if self._ends else now)

    def rested(self, now: float) -> bool:
        """Nothing open and nothing counted: the same as a new budget."""
        return not self._open and not self._expire(now) and self.pace.full(now)

    def _expire(self, now: float) -> list[float]:
        ends = self._ends
        # The same sum as in wait(): a request still counted has a wait above zero.
        expired = 0
        while expired < len(ends) and ends[expired] + self.seconds <= now:
            expired += 1
        del ends[:expired]
        return ends


@dataclass(eq=False, slots=True)
class ChatBudget:
    """One chat's budget, and how long a 429 told it to wait."""

    budget: Budget
    blocked_until: float = 0.0  # after a 429

    def wait(self, now: float) -> float:
        return max(self.blocked_until - now, self.budget.wait(now), 0.0)
