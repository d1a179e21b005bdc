"""The updates waiting for the bot, and how getUpdates confirms and hands them out."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tg_durak.emulator.models import ApiError

POLL_CONFLICT = (
    "Conflict: terminated by other getUpdates request; make sure that only one bot instance is "
    "running"
)
WEBHOOK_CONFLICT = (
    "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete "
    "the webhook first"
)
CONFIRMED_KEPT = 1000   # confirmed updates kept for offer_again
# Without allowed_updates Telegram sends every update type except these.
OPT_IN_UPDATES = frozenset({"chat_member", "message_reaction", "message_reaction_count"})


def order_key(update: dict[str, Any]) -> int | None:
    """The chat an update belongs to, or its sender when it has none (a callback query of an
    inline message): a chat's updates reach the bot in order, different chats side by side.
    None for an update of nobody's (a poll's state)."""
    payload = next((value for name, value in update.items() if name != "update_id"), None)
    if not isinstance(payload, dict):
        return None
    for holder in (payload, payload.get("message")):
        if isinstance(holder, dict) and isinstance(holder.get("chat"), dict):
            return holder["chat"]["id"]
    for sender in ("from", "user"):
        if isinstance(payload.get(sender), dict):
            return payload[sender]["id"]
    return None


@dataclass
class Webhook:
    """What setWebhook registered, and how its last delivery went (getWebhookInfo's fields)."""

    url: str
    secret: str | None = None
    max_connections: int = 40
    last_error_date: int | None = None
    last_error_message: str | None = None


class UpdateQueue:
    """Updates in order; each stays queued until a later getUpdates offset confirms it, or
    the bot's webhook answered its post with a 2xx."""

    def __init__(self, first_update_id: int, on_new: Callable[[], None]) -> None:
        self.webhook: Webhook | None = None
        self.allowed: frozenset[str] | None = None  # None: Telegram's default set
        self._queue: deque[dict[str, Any]] = deque()
        self._confirmed: deque[dict[str, Any]] = deque(maxlen=CONFIRMED_KEPT)
        self._next_update_id = first_update_id
        self._on_new = on_new

    def push(self, kind: str, payload: dict[str, Any]) -> bool:
        """Queue one update of `kind`; False if the bot's allowed_updates leave it out."""
        allowed = self.allowed
        if (kind in OPT_IN_UPDATES) if allowed is None else (kind not in allowed):
            return False
        self._queue.append({"update_id": self._next_update_id, kind: payload})
        self._next_update_id += 1
        self._on_new()
        return True

    @property
    def pending(self) -> list[dict[str, Any]]:
        """Updates not yet confirmed by the bot (a getUpdates offset confirms them)."""
        return list(self._queue)

    def start_poll(self, params: dict[str, Any]) -> int:
        """Apply getUpdates' offset and allowed_updates; return the batch size asked for."""
        if self.webhook is not None:
            raise ApiError(409, WEBHOOK_CONFLICT)
        offset = params.get("offset")
        if isinstance(offset, int):
            if offset < 0:
                # a negative offset keeps only the last -offset updates
                while len(self._queue) > -offset:
                    self._queue.popleft()
            else:
                while self._queue and self._queue[0]["update_id"] < offset:
                    self._confirmed.append(self._queue.popleft())
        allowed = params.get("allowed_updates")
        if isinstance(allowed, list):
            self.allowed = frozenset(allowed) if allowed else None
        limit = params.get("limit")
        return min(max(limit, 1), 100) if isinstance(limit, int) else 100

    def take(self, limit: int) -> list[dict[str, Any]]:
        """The earliest unconfirmed updates; they stay queued until an offset confirms them."""
        return [self._queue[i] for i in range(min(limit, len(self._queue)))]

    def heads(self, busy: set[int | None], limit: int) -> list[dict[str, Any]]:
        """The earliest unconfirmed update of each chat (see order_key) not in `busy`, oldest
        first, at most `limit`: what a webhook may be sent without overtaking one of its chat."""
        seen = set(busy)
        ready: list[dict[str, Any]] = []
        for update in self._queue:
            if len(ready) >= limit:
                break
            key = order_key(update)
            if key not in seen:
                seen.add(key)
                ready.append(update)
        return ready

    def holds(self, update_id: int) -> bool:
        """Whether this update is still unconfirmed (a drop_pending_updates drops it too)."""
        return any(update["update_id"] == update_id for update in self._queue)

    def confirm(self, update_id: int) -> None:
        """The webhook took this update (a 2xx): it leaves the queue, as an offset confirms.
        With several connections it need not be the oldest."""
        for index, update in enumerate(self._queue):
            if update["update_id"] == update_id:
                del self._queue[index]
                self._confirmed.append(update)
                return

    def clear(self) -> None:
        self._queue.clear()

    def offer_again(self, count: int) -> list[dict[str, Any]]:
        """Queue the last `count` confirmed updates again, ahead of the rest: what a bot sees
        after a crash when the getUpdates that confirmed them never reached Telegram."""
        again = [self._confirmed.pop() for _ in range(min(count, len(self._confirmed)))]
        # A webhook with several connections confirms out of order; they go back in order.
        again.sort(key=lambda update: update["update_id"])
        self._queue.extendleft(reversed(again))
        return again
