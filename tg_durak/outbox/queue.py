"""What the publisher has to send, and when each request may go: pure bookkeeping, time passed in.

- A key names one message; its latest screen waits there, replacing (coalescing) any screen not
  yet sent. A screen equal to the one the message already shows is never sent.
- Budgets: each chat (private ~1/s, groups 20/min) and the bot (~30/s) allow so many requests in
  any window, paced evenly by a token bucket. A request holds its place in a window until its
  answer arrives, so however late it reaches Telegram it is never counted in a later window than
  ours (no 429 from jitter). A 429 pauses its chat (two chats at once: the bot) for ``retry_after``.
- When the bot's budget is the limit, screens go by priority (:class:`Priority`): the mover's
  first, then other players', then watchers'; a screen waiting longer overtakes more urgent newer
  ones (``AGING`` seconds a class), so none waits for ever. Timer bars (``BAR``) use only spare
  budget: sent when their chat and the bot are free that moment, dropped otherwise. A
  broadcast's messages (``BULK``) go after everything else, however long they waited, and are
  never dropped: games never wait for them.
- A one-off message (a command's reply) waits in the same queue under a key of its own and is
  forgotten once sent.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from enum import IntEnum
from typing import NamedTuple

from tg_durak.outbox.budgets import Budget, ChatBudget, LocalBudgets
from tg_durak.outbox.gate import HeldBy
from tg_durak.render.screen import Screen

# Seconds of waiting worth one priority class: a player's screen that waited this much longer
# than a mover's goes first.
AGING = 2.0
# After network or server failures a key waits its chat's interval, doubling up to this cap:
# after a long outage a screen is at most this late once Telegram answers again.
MAX_BACKOFF = 8.0
# Forgetting an idle key costs at most one redundant request later.
MAX_SLOTS = 10_000


class Priority(IntEnum):
    """Who waits for a screen, the most urgent first."""

    MOVER = 0  # whose move it is (his clock runs), or who waits for the answer to his command
    PLAYER = 1  # a seated person who only watches the others for now
    WATCHER = 2  # a group's public message
    BAR = 3  # a timer bar's refresh: spare budget only, else dropped
    BULK = 4  # an operator's broadcast: after every other screen, never overtaking by age


@dataclass(eq=False, slots=True)
class Slot:
    """What the publisher knows of one key's message."""

    key: Hashable
    chat_id: int
    message_id: int | str | None   # str: an inline message's inline_message_id
    thread_id: int | None = None  # the forum topic a new message goes to
    # True once the publisher sent (or decided to replace) the message: from then on its own
    # message id is right and the caller's is ignored.
    owns_id: bool = False
    shown: Screen | None = None  # what Telegram last confirmed
    pending: Screen | None = None
    stamp: object = None  # the pending screen's place among every process's (outbox.gate)
    priority: Priority = Priority.PLAYER  # the pending screen's
    since: float = 0.0  # when the message began to wait for its pending screen
    busy: bool = False  # a request for this key is in flight
    failures: int = 0  # consecutive network or server failures
    not_before: float = 0.0  # backing off after such failures
    one_off: bool = False  # a message sent once and never edited (a reply)
    reply_to: int | None = None  # the message a one-off answers
    sent: Callable[[int], None] | None = None  # told a one-off's message id once it is sent
    # told whether a one-off went (True) or was given up (False: Telegram refused it) once no
    # request for it remains
    settled: Callable[[bool], None] | None = None


class Request(NamedTuple):
    """A request the budgets let start: its screen as it was taken, and the chat it counted in."""

    slot: Slot
    screen: Screen
    priority: Priority
    since: float
    chat: ChatBudget
    stamp: object = None


class OneOff(NamedTuple):
    """The key of a one-off message."""

    chat_id: int
    number: int


class Outbox:
    """The screens waiting per key, the budgets, and which requests may start now."""

    def __init__(self, private_interval: float, group_per_minute: int,
                 global_per_second: int) -> None:
        self.budgets = LocalBudgets((1, private_interval), (group_per_minute, 60.0),
                                    Budget(global_per_second, 1.0))
        self._slots: dict[Hashable, Slot] = {}  # least recently shown first
        self._queue: dict[Hashable, Slot] = {}  # keys with a pending screen
        self._bars = 0  # queued slots whose pending screen is a bar
        self._numbers = itertools.count(1)
        self.counts: Counter[str] = Counter()
        self.max_wait: dict[Priority, float] = {}
        # seconds, over counts["sent_<name>"]
        self.total_wait: defaultdict[Priority, float] = defaultdict(float)

    # -- what to send -----------------------------------------------------------------------

    def put(self, key: Hashable, chat_id: int, message_id: int | str | None, screen: Screen,
            priority: Priority, now: float, thread_id: int | None = None,
            stamp: object = None) -> None:
        """The message ``key`` should show ``screen`` (``stamp``: its place among the screens
        of every process, carried along for outbox.gate)."""
        slot = self._slots.pop(key, None)
        if slot is None or slot.chat_id != chat_id:
            slot = Slot(key, chat_id, message_id, thread_id)
        elif not slot.owns_id and slot.message_id != message_id:
            slot.message_id = message_id
            slot.shown = None
        self._slots[key] = slot
        if slot.pending is not None:
            self.counts["coalesced"] += 1
            # The newest text goes, as urgently as any screen it replaces.
            priority = min(priority, slot.priority)
        self._enqueue(slot, screen, priority, now, stamp)
        self._evict_slots()

    def put_one_off(self, chat_id: int, screen: Screen, priority: Priority, now: float,
                    thread_id: int | None = None, reply_to: int | None = None,
                    sent: Callable[[int], None] | None = None,
                    settled: Callable[[bool], None] | None = None) -> None:
        """A new message, sent once and never edited."""
        key = OneOff(chat_id, next(self._numbers))
        slot = Slot(key, chat_id, None, thread_id, owns_id=True, one_off=True, reply_to=reply_to,
                    sent=sent, settled=settled)
        self._slots[key] = slot
        self.counts["replies"] += 1
        self._enqueue(slot, screen, priority, now)

    def due(self, now: float) -> tuple[list[Request], float | None]:
        """Start every request the budgets allow now, the most urgent first; and the seconds until
        the next may start (None: not before a request in flight ends or a screen arrives)."""
        spent = self._global_wait(now)
        if spent > 0:   # nothing goes: no need to order the queue
            if self._bars:
                self._drop_bars(list(self._queue.values()))
            return [], _delay(spent)
        requests: list[Request] = []
        delay = math.inf
        order = sorted(self._queue.values(), key=_rank)
        for n, slot in enumerate(order):
            spent = self._global_wait(now)
            if spent > 0:
                self._drop_bars(order[n:])
                return requests, _delay(min(delay, spent))
            if slot.busy:
                continue
            if slot.message_id is not None and slot.pending == slot.shown:
                self.counts["unchanged"] += 1
                self.unqueue(slot)
                continue
            chat = self.chat(slot.chat_id, now)
            wait = max(slot.not_before - now, chat.wait(now))
            if wait <= 0:
                requests.append(self._start(slot, chat, now))
            elif slot.priority is Priority.BAR:
                self._drop_bars([slot])
            else:
                delay = min(delay, wait)
        return requests, _delay(delay)

    def _start(self, slot: Slot, chat: ChatBudget, now: float) -> Request:
        self.budgets.take(chat, now)
        screen, priority, since, stamp = slot.pending, slot.priority, slot.since, slot.stamp
        assert screen is not None
        self.unqueue(slot)
        slot.busy = True
        if slot.message_id is None:
            slot.owns_id = True
        waited = now - since
        self.max_wait[priority] = max(self.max_wait.get(priority, 0.0), waited)
        self.total_wait[priority] += waited
        self.counts[f"sent_{priority.name.lower()}"] += 1
        return Request(slot, screen, priority, since, chat, stamp)

    def finished(self, request: Request, now: float) -> None:
        """A request's answer came, whatever it was."""
        self.budgets.release(request.chat, now)
        slot = request.slot
        slot.busy = False
        if slot.one_off and slot.pending is None:
            self.forget(slot)
            if slot.settled is not None:
                slot.settled(slot.message_id is not None)

    # -- after Telegram's answer ------------------------------------------------------------

    def retry(self, request: Request) -> None:
        """Put a screen back unless a newer one arrived for the key meanwhile; it keeps its
        place (the time it began to wait), a bar is no bar any more."""
        slot = request.slot
        if self._slots.get(slot.key) is slot and slot.pending is None:
            priority = Priority.PLAYER if request.priority is Priority.BAR else request.priority
            self._enqueue(slot, request.screen, priority, request.since, request.stamp)

    def held_back(self, request: Request, now: float, wait: float, held_by: HeldBy) -> None:
        """The shared budgets (outbox.gate) held a started request back for ``wait`` seconds:
        it never went, and waits with its chat, the bot or its message (``held_by``) unless it
        is "stale" (a newer screen went from another process: dropped)."""
        self.budgets.give_back(request.chat, now, wait, held_by)
        slot = request.slot
        slot.busy = False
        if held_by == HeldBy.STALE or request.priority is Priority.BAR:
            # A bar uses only spare budget, and there was none.
            self.counts["stale" if held_by == HeldBy.STALE else "dropped"] += 1
            return
        if held_by == HeldBy.MESSAGE:
            slot.not_before = max(slot.not_before, now + wait)
        self.retry(request)

    def back_off(self, slot: Slot, now: float) -> float:
        """After a network or server failure: the key waits, longer each time in a row, and by
        a random half of it (jitter), so that the screens an outage held back do not all come
        back at the same moment."""
        slot.failures += 1
        interval = 1.0 / self.chat(slot.chat_id, now).budget.pace.rate
        backoff = min(interval * 2 ** (slot.failures - 1), MAX_BACKOFF) * random.uniform(0.5, 1)
        slot.not_before = now + backoff
        return backoff

    def flooded(self, chat_id: int, retry_after: float, now: float) -> bool:
        """A 429: pause the chat, and the whole bot when another chat was flooded meanwhile
        (True: the bot is paused)."""
        self.counts["errors_429"] += 1
        return self.budgets.flooded(chat_id, retry_after, now)

    def moved(self, slot: Slot, new_chat_id: int) -> None:
        """The group became a supergroup: the message goes afresh to the new chat."""
        slot.chat_id = new_chat_id
        slot.message_id, slot.shown = None, None

    def is_current(self, slot: Slot) -> bool:
        return self._slots.get(slot.key) is slot

    def forget(self, slot: Slot) -> None:
        self.unqueue(slot)
        if self._slots.get(slot.key) is slot:
            del self._slots[slot.key]

    # -- bookkeeping ------------------------------------------------------------------------

    def spare(self, now: float) -> bool:
        """The bot-wide budget could take a request this moment."""
        return self._global_wait(now) == 0.0

    @property
    def empty(self) -> bool:
        return not self._queue

    @property
    def queued(self) -> int:
        return len(self._queue)

    def _enqueue(self, slot: Slot, screen: Screen, priority: Priority, since: float,
                 stamp: object = None) -> None:
        slot.stamp = stamp
        if slot.pending is None:
            slot.since = since
        elif slot.priority is Priority.BAR:
            self._bars -= 1
        slot.pending, slot.priority = screen, priority
        if priority is Priority.BAR:
            self._bars += 1
        self._queue[slot.key] = slot

    def unqueue(self, slot: Slot) -> None:
        if self._queue.pop(slot.key, None) is not None and slot.priority is Priority.BAR:
            self._bars -= 1
        slot.pending = None

    def _drop_bars(self, slots: Iterable[Slot]) -> None:
        if not self._bars:
            return
        for slot in slots:
            if slot.priority is Priority.BAR and slot.pending is not None and not slot.busy:
                self.counts["dropped"] += 1
                self.unqueue(slot)

    def _global_wait(self, now: float) -> float:
        return self.budgets.bot_wait(now)

    def chat(self, chat_id: int, now: float) -> ChatBudget:
        return self.budgets.chat(chat_id, now)

    def _evict_slots(self) -> None:
        excess = len(self._slots) - MAX_SLOTS
        if excess <= 0:
            return
        for key, slot in list(self._slots.items()):
            if excess <= 0:
                break
            if slot.pending is None and not slot.busy:
                del self._slots[key]
                excess -= 1


def _rank(slot: Slot) -> float:
    if slot.priority is Priority.BULK:
        return math.inf   # last, in the order they came (the sort is stable)
    return slot.since + slot.priority * AGING


def _delay(seconds: float) -> float | None:
    return None if seconds == math.inf else seconds
