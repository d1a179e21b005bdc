"""Flood limits: budgets per private chat, per group and for the whole bot, and 429 past them."""

from __future__ import annotations

import math
from collections import defaultdict, deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from tg_durak.emulator.models import Chat, too_many_requests


@dataclass(frozen=True)
class RateLimits:
    """Flood limits like Telegram's; None switches a limit off (all are off by default)."""

    private_per_second: int | None = None
    group_per_minute: int | None = None
    global_per_second: int | None = None
    methods: frozenset[str] = frozenset(
        {"sendMessage", "editMessageText", "editMessageReplyMarkup"}
    )


# (key, most requests, seconds): at most that many requests per key in any such window
Window = tuple[Hashable, int, float]


class RateLimiter:
    """Counts the bot's requests in sliding windows and refuses one that would overflow any."""

    def __init__(self, limits: RateLimits, clock: Callable[[], float]) -> None:
        self.limits = limits
        self._clock = clock
        self._hits: dict[Hashable, deque[float]] = defaultdict(deque)

    def check(self, method: str, chat: Chat) -> None:
        """Count one call of `method` in `chat`, or raise 429 with retry_after if over budget."""
        limits = self.limits
        if method not in limits.methods:
            return
        windows: list[Window] = []
        if limits.global_per_second is not None:
            windows.append(("global", limits.global_per_second, 1.0))
        if chat.is_private and limits.private_per_second is not None:
            windows.append((chat.id, limits.private_per_second, 1.0))
        if not chat.is_private and limits.group_per_minute is not None:
            windows.append((chat.id, limits.group_per_minute, 60.0))
        self._hit(windows, self._clock())

    def _hit(self, windows: list[Window], now: float) -> None:
        # Check every window before counting in any: a refused request uses no budget.
        for key, limit, seconds in windows:
            hits = self._hits[key]
            while hits and hits[0] <= now - seconds:
                hits.popleft()
            if len(hits) >= limit:
                raise too_many_requests(max(1, math.ceil(hits[0] + seconds - now)))
        for key, _, _ in windows:
            self._hits[key].append(now)
