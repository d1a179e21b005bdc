"""Budgets as pure bookkeeping: Telegram's (so many requests in any window, paced evenly) and a
person's taps (the throttle's bucket). Time is passed in; nothing here sleeps or sends.

These are one process's: with several processes on one bot token, each keeps its own as a
pre-filter and the shared windows in Redis (outbox.redis_budgets) have the last word.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tg_durak.outbox.gate import HeldBy


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

    def give_back(self) -> None:
        """Undo a take whose request never went."""
        self._tokens = min(self.capacity, self._tokens + 1)

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

    def give_back(self) -> None:
        """A request taken that never went: it counts in no window."""
        self._open -= 1
        self.pace.give_back()

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


# Forgetting an idle chat costs at most one redundant request later.
MAX_CHATS = 10_000


class LocalBudgets:
    """Telegram's budgets as one process sees them: each chat's (private ``private`` = (limit,
    seconds), groups ``group``) and the bot's, and the pauses 429s asked for."""

    def __init__(self, private: tuple[int, float], group: tuple[int, float],
                 bot: Budget) -> None:
        self._private = private
        self._group = group
        self.bot = bot
        self._bot_blocked_until = 0.0
        self._last_flood: tuple[int, float] | None = None  # (chat_id, blocked until)
        self._chats: dict[int, ChatBudget] = {}

    def bot_wait(self, now: float) -> float:
        """Seconds until the bot may start a request."""
        return max(self._bot_blocked_until - now, self.bot.wait(now), 0.0)

    def take(self, chat: ChatBudget, now: float) -> None:
        chat.budget.take(now)
        self.bot.take(now)

    def release(self, chat: ChatBudget, now: float) -> None:
        chat.budget.release(now)
        self.bot.release(now)

    def give_back(self, chat: ChatBudget, now: float, wait: float, held_by: HeldBy) -> None:
        """A request taken here that the shared budgets (outbox.gate) held back for ``wait``
        seconds: it never went, and its chat (or the bot) pauses for that long."""
        chat.budget.give_back()
        self.bot.give_back()
        if held_by == HeldBy.BOT:
            self._bot_blocked_until = max(self._bot_blocked_until, now + wait)
        elif held_by == HeldBy.CHAT:
            chat.blocked_until = max(chat.blocked_until, now + wait)

    def flooded(self, chat_id: int, retry_after: float, now: float) -> bool:
        """A 429: pause the chat, and the whole bot when another chat was flooded meanwhile
        (True: the bot is paused)."""
        until = now + retry_after
        chat = self.chat(chat_id, now)
        chat.blocked_until = max(chat.blocked_until, until)
        everywhere = bool(self._last_flood and self._last_flood[0] != chat_id
                          and self._last_flood[1] > now)
        if everywhere:
            self._bot_blocked_until = max(self._bot_blocked_until, until)
        self._last_flood = (chat_id, until)
        return everywhere

    def chat(self, chat_id: int, now: float) -> ChatBudget:
        chat = self._chats.get(chat_id)
        if chat is None:
            if len(self._chats) >= MAX_CHATS:
                self._evict_chats(now)
            limit, seconds = self._private if chat_id > 0 else self._group
            chat = self._chats[chat_id] = ChatBudget(Budget(limit, seconds))
        return chat

    def _evict_chats(self, now: float) -> None:
        # A rested, unblocked chat is indistinguishable from a new one.
        for chat_id, chat in list(self._chats.items()):
            if chat.blocked_until <= now and chat.budget.rested(now):
                del self._chats[chat_id]
