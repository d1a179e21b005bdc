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
    # Edits of messages sent via the bot (inline mode), per chat they are in, whatever its type:
    # the bot cannot tell a private chat from a group there, so it keeps to a group's budget.
    inline_per_minute: int | None = None
    methods: frozenset[str] = frozenset(
        {"sendMessage", "editMessageText", "editMessageReplyMarkup"}
    )


# (key, most requests, seconds): at most that many requests per key in any such window
Window = tuple[Hashable, int, float]


@dataclass(frozen=True)
class Hit:
    """One send or edit the limits counted: when, which method, which message."""

    time: float
    method: str
    message_id: int | None


class RateLimiter:
    """Counts the bot's requests in sliding windows and refuses one that would overflow any.

    Every counted request is also logged per chat (`log`), limits on or off, so tests can check
    a budget the bot must keep by itself.
    """

    def __init__(self, limits: RateLimits, clock: Callable[[], float]) -> None:
        self.limits = limits
        self._clock = clock
        self._hits: dict[Hashable, deque[float]] = defaultdict(deque)
        self.log: dict[int, list[Hit]] = defaultdict(list)

    def check(self, method: str, chat: Chat, message_id: int | None = None,
              inline: bool = False) -> None:
        """Count one call of `method` in `chat` (about `message_id`; `inline`: a message sent
        via the bot), or raise 429 with retry_after if over budget. Sends and edits share each
        chat's budget; edits of inline messages have a budget of their own in each chat."""
        limits = self.limits
        if method not in limits.methods:
            return
        windows: list[Window] = []
        if limits.global_per_second is not None:
            windows.append(("global", limits.global_per_second, 1.0))
        if inline:
            if limits.inline_per_minute is not None:
                windows.append((("inline", chat.id), limits.inline_per_minute, 60.0))
        elif chat.is_private and limits.private_per_second is not None:
            windows.append((chat.id, limits.private_per_second, 1.0))
        elif not chat.is_private and limits.group_per_minute is not None:
            windows.append((chat.id, limits.group_per_minute, 60.0))
        now = self._clock()
        self._hit(windows, now)
        self.log[chat.id].append(Hit(now, method, message_id))

    def hits(self, chat_id: int, message_id: int | None = None) -> list[Hit]:
        """The logged sends and edits in `chat_id` (about one message, if given), oldest first."""
        return [
            hit for hit in self.log.get(chat_id, ())
            if message_id is None or hit.message_id == message_id
        ]

    def per_minute(self, chat_id: int, message_id: int | None = None) -> dict[int, int]:
        """hits() counted by clock minute: the minute's start (a multiple of 60 s) -> how many."""
        counts: dict[int, int] = defaultdict(int)
        for hit in self.hits(chat_id, message_id):
            counts[int(hit.time // 60) * 60] += 1
        return dict(counts)

    def busiest(self, chat_id: int, seconds: float = 60.0, message_id: int | None = None) -> int:
        """The most hits() in any window of `seconds`, sliding as the limits' windows do."""
        times = [hit.time for hit in self.hits(chat_id, message_id)]
        most, first = 0, 0
        for last, now in enumerate(times):
            while times[first] <= now - seconds:
                first += 1
            most = max(most, last - first + 1)
        return most

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
