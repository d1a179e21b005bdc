"""Delivery by webhook: once setWebhook has a url, each queued update is POSTed to it as JSON.

Like Telegram: up to setWebhook's max_connections posts at once (40 unless set), but a chat's
updates one at a time and in order (see updates.order_key), with the secret in the
X-Telegram-Bot-Api-Secret-Token header when one was set, and the same update again after any
answer but a 2xx or a failed connection, after a back-off, until a 2xx takes it: at least once.
Each failure is what getWebhookInfo reports as last_error_date / last_error_message.
An https webhook's certificate must be one the poster trusts: a public authority's, or one signed
by the authority in `ca_file` (a proxy's own, tests/deploy), as Telegram trusts the certificate
uploaded with setWebhook.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import aiohttp

from tg_durak.emulator.updates import UpdateQueue, Webhook, order_key

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
FIRST_BACKOFF = 0.05   # seconds; doubled after each failure of one update, up to LAST_BACKOFF
LAST_BACKOFF = 1.0     # Telegram waits longer; tests need the next offer soon
ANSWER_SECONDS = 60.0  # a webhook that answers nothing in this long has failed


@dataclass(frozen=True)
class Post:
    """One delivery: which update, to where, and the status it got (None: no answer)."""

    update_id: int
    url: str
    status: int | None
    time: float
    error: str | None = None

    @property
    def taken(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


class WebhookPoster:
    """Posts the queue's updates to its webhook while one is set; `posts` records each try.

    `changed(timeout)` returns when the world changed (a new update, a setWebhook, a `wake`);
    `reachable()` returns when the network is up (an outage holds the posts back); `wake()`
    tells the waiters that a post was recorded or a connection freed.
    """

    def __init__(self, updates: UpdateQueue, clock: Callable[[], float],
                 changed: Callable[[float], Awaitable[None]],
                 reachable: Callable[[], Awaitable[None]],
                 wake: Callable[[], None], ca_file: str | None = None) -> None:
        self._updates = updates
        self._clock = clock
        self._changed = changed
        self._reachable = reachable
        self._wake = wake
        self.posts: list[Post] = []
        self._task: asyncio.Task | None = None
        # Each update being delivered: its chat (see order_key) and the task posting it.
        self._in_flight: dict[int, tuple[int | None, asyncio.Task]] = {}
        self._session: aiohttp.ClientSession | None = None
        self._ssl: ssl.SSLContext | bool = (True if ca_file is None
                                            else ssl.create_default_context(cafile=ca_file))

    @property
    def in_flight(self) -> list[int]:
        """The update ids being delivered now (posted, or waiting out a back-off)."""
        return list(self._in_flight)

    def follow(self) -> None:
        """Start posting if a webhook is set and nobody posts yet (after a setWebhook)."""
        if self._updates.webhook is not None and (self._task is None or self._task.done()):
            self._task = asyncio.create_task(self._post_while_set())

    async def close(self) -> None:
        tasks = [task for _, task in self._in_flight.values()]
        if self._task is not None:
            tasks.append(self._task)
            self._task = None
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._in_flight.clear()
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def _post_while_set(self) -> None:
        while (hook := self._updates.webhook) is not None:
            room = hook.max_connections - len(self._in_flight)
            if room > 0:
                busy = {chat for chat, _ in self._in_flight.values()}
                for update in self._updates.heads(busy, room):
                    task = asyncio.create_task(self._deliver(update))
                    self._in_flight[update["update_id"]] = (order_key(update), task)
            await self._changed(LAST_BACKOFF)   # a delivery's end wakes it, a new update too

    async def _deliver(self, update: dict) -> None:
        """Post one update until a 2xx takes it, the webhook goes or the update is dropped.

        It keeps its connection through the back-off, so that with max_connections=1 nothing
        overtakes an update being refused, as Telegram's single connection would not.
        """
        update_id, backoff = update["update_id"], FIRST_BACKOFF
        try:
            while True:
                await self._reachable()
                hook = self._updates.webhook
                if hook is None or not self._updates.holds(update_id):
                    return
                post = await self._post(hook, update)
                self.posts.append(post)
                if post.taken:
                    self._updates.confirm(update_id)
                    return
                hook.last_error_date = int(post.time)
                hook.last_error_message = post.error
                self._wake()
                await asyncio.sleep(backoff)   # a back-off, as Telegram's, not a synchronisation
                backoff = min(backoff * 2, LAST_BACKOFF)
        finally:
            self._in_flight.pop(update_id, None)
            self._wake()

    async def _post(self, hook: Webhook, update: dict) -> Post:
        if self._session is None:
            self._session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=ANSWER_SECONDS))
        headers = {SECRET_HEADER: hook.secret} if hook.secret is not None else {}
        now, update_id = self._clock(), update["update_id"]
        try:
            async with self._session.post(hook.url, json=update, headers=headers,
                                          ssl=self._ssl) as response:
                await response.read()
                status, reason = response.status, response.reason
        except (aiohttp.ClientError, TimeoutError) as exc:
            return Post(update_id, hook.url, None, now, f"Connection failed: {exc or type(exc)}")
        error = (None if 200 <= status < 300
                 else f"Wrong response from the webhook: {status} {reason}")
        return Post(update_id, hook.url, status, now, error)
