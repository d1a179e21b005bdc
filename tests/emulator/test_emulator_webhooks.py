"""Delivery by webhook: after setWebhook the emulator posts each update to the bot, several at
once but a chat's in order, with the secret header, and again after a non-2xx or a failed
connection, until one is taken."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Awaitable, Callable

import aiohttp
import pytest
from aiohttp import web

from tg_durak.emulator import DEFAULT_TOKEN, FakeTelegram
from tg_durak.emulator.updates import UpdateQueue, order_key

SECRET = "s3cret_token-1"
HANG_GUARD = 60.0   # seconds: a test that waits longer has failed, it does not measure time


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Receiver:
    """The bot's end: records each post (its update id and secret header) and answers with the
    next status of `statuses_of[update_id]`, else of `statuses` (200 once they are used up).

    `hold(update_id)`, when set, is awaited before a post is answered; `in_flight` are the posts
    waiting for their answer and `together` what was in flight as each post arrived.
    """

    def __init__(self, port: int) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}/hook"
        self.statuses: list[int] = []
        self.statuses_of: dict[int, list[int]] = {}
        self.hold: Callable[[int], Awaitable[None]] | None = None
        self.got: list[tuple[int, str | None, int]] = []   # (update_id, secret, answered)
        self.chat_of: dict[int, int] = {}
        self.in_flight: list[int] = []
        self.together: list[list[int]] = []
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/hook", self._receive)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _receive(self, request: web.Request) -> web.Response:
        update = await request.json()
        update_id = update["update_id"]
        self.chat_of[update_id] = update["message"]["chat"]["id"]
        self.in_flight.append(update_id)
        self.together.append(list(self.in_flight))
        await self._notify()
        try:
            if self.hold is not None:
                await self.hold(update_id)
        finally:
            self.in_flight.remove(update_id)
        own = self.statuses_of.get(update_id)
        status = own.pop(0) if own else self.statuses.pop(0) if self.statuses else 200
        secret = request.headers.get("X-Telegram-Bot-Api-Secret-Token")
        self.got.append((update_id, secret, status))
        await self._notify()
        return web.Response(status=status)

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def until(self, predicate: Callable[[], bool]) -> None:
        """Wait until predicate() holds, re-checked as each post arrives and is answered."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(predicate), HANG_GUARD)

    def taken(self) -> list[int]:
        return [update_id for update_id, _, status in self.got if status == 200]

    def answers(self) -> list[tuple[int, int]]:
        return [(update_id, status) for update_id, _, status in self.got]

    def one_per_chat(self) -> bool:
        """Whether no two posts of one chat were ever in flight together."""
        return all(len({self.chat_of[u] for u in ids}) == len(ids) for ids in self.together)


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as fake:
        fake.add_user(1, "Ann")
        fake.add_user(2, "Bob")
        fake.add_user(3, "Cid")
        fake.add_user(4, "Dan")
        yield fake


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    r = Receiver(free_port())
    await r.start()
    yield r
    await r.stop()


@pytest.fixture
async def http(tg: FakeTelegram) -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(base_url=tg.url) as session:
        yield session


async def call(http: aiohttp.ClientSession, method: str, **params) -> dict:
    async with http.post(f"/bot{DEFAULT_TOKEN}/{method}", json=params) as response:
        return await response.json()


def pending_ids(tg: FakeTelegram) -> list[int]:
    return [update["update_id"] for update in tg.pending_updates]


async def test_updates_are_posted_in_order_with_the_secret_and_then_confirmed(
        tg: FakeTelegram, receiver: Receiver, http: aiohttp.ClientSession) -> None:
    await tg.send_text(1, "queued before the webhook")
    assert (await call(http, "setWebhook", url=receiver.url, secret_token=SECRET))["ok"]
    for n in range(5):
        await tg.send_text(1, f"message {n}")
    await tg.wait_for(lambda: len(receiver.taken()) == 6)
    assert receiver.taken() == [1, 2, 3, 4, 5, 6]
    assert {secret for _, secret, _ in receiver.got} == {SECRET}
    info = (await call(http, "getWebhookInfo"))["result"]
    assert (info["url"], info["pending_update_count"]) == (receiver.url, 0)
    assert "last_error_date" not in info
    polled = await call(http, "getUpdates")
    assert polled["error_code"] == 409 and "webhook is active" in polled["description"]


async def test_no_secret_no_header(tg: FakeTelegram, receiver: Receiver,
                                   http: aiohttp.ClientSession) -> None:
    await call(http, "setWebhook", url=receiver.url)
    await tg.send_text(1, "hello")
    await tg.wait_for(lambda: receiver.taken() == [1])
    assert receiver.got == [(1, None, 200)]


async def test_an_update_answered_500_is_posted_again_until_taken_and_before_the_next(
        tg: FakeTelegram, receiver: Receiver, http: aiohttp.ClientSession) -> None:
    receiver.statuses = [500, 503]
    await call(http, "setWebhook", url=receiver.url, secret_token=SECRET)
    await tg.send_text(1, "first")
    await tg.send_text(1, "second")
    await tg.wait_for(lambda: receiver.taken() == [1, 2])
    assert [(u, status) for u, _, status in receiver.got] == [(1, 500), (1, 503), (1, 200),
                                                               (2, 200)]
    info = (await call(http, "getWebhookInfo"))["result"]
    assert info["last_error_message"] == "Wrong response from the webhook: 503 Service Unavailable"
    assert info["last_error_date"] == int(tg.webhooks.posts[1].time)
    assert info["pending_update_count"] == 0


async def test_a_refused_connection_is_retried_until_the_bot_listens(
        tg: FakeTelegram, http: aiohttp.ClientSession) -> None:
    late = Receiver(free_port())   # nothing listens there yet
    await call(http, "setWebhook", url=late.url)
    await tg.send_text(1, "anyone?")
    await tg.wait_for(lambda: len(tg.webhooks.posts) >= 2, what="two failed posts")
    assert all(post.status is None for post in tg.webhooks.posts)
    info = (await call(http, "getWebhookInfo"))["result"]
    assert info["pending_update_count"] == 1
    assert info["last_error_message"].startswith("Connection failed")
    await late.start()
    try:
        await tg.wait_for(lambda: late.taken() == [1])
    finally:
        await late.stop()


async def test_offer_again_posts_a_taken_update_once_more(
        tg: FakeTelegram, receiver: Receiver, http: aiohttp.ClientSession) -> None:
    await call(http, "setWebhook", url=receiver.url)
    await tg.send_text(1, "once")
    await tg.wait_for(lambda: receiver.taken() == [1])
    assert [u["update_id"] for u in tg.offer_again(1)] == [1]
    await tg.wait_for(lambda: receiver.taken() == [1, 1])


async def test_delete_webhook_stops_the_posts_and_polling_takes_over(
        tg: FakeTelegram, receiver: Receiver, http: aiohttp.ClientSession) -> None:
    receiver.statuses = [500]
    await call(http, "setWebhook", url=receiver.url)
    await tg.send_text(1, "refused")
    await tg.wait_for(lambda: receiver.got)
    await call(http, "deleteWebhook")
    polled = await call(http, "getUpdates")
    assert [u["update_id"] for u in polled["result"]] == [1]


@pytest.mark.parametrize(("params", "words"), [
    ({"url": "http://example.org/hook"}, "HTTPS URL must be provided"),
    ({"url": "https://example.org/hook", "secret_token": "no spaces"}, "unallowed characters"),
    ({"url": "https://example.org/hook", "secret_token": "x" * 257}, "unallowed characters"),
    ({"url": "https://example.org/hook", "max_connections": 0}, "max_connections"),
])
async def test_set_webhook_refuses_what_telegram_refuses(
        http: aiohttp.ClientSession, params: dict, words: str) -> None:
    body = await call(http, "setWebhook", **params)
    assert body["error_code"] == 400 and words in body["description"]


async def test_one_connection_posts_every_update_in_order_even_of_other_chats(
        tg: FakeTelegram, receiver: Receiver, http: aiohttp.ClientSession) -> None:
    receiver.statuses_of = {1: [503]}
    for user in (1, 2, 3):
        await tg.send_text(user, "hello")
    await call(http, "setWebhook", url=receiver.url, max_connections=1)
    await tg.wait_for(lambda: receiver.taken() == [1, 2, 3])
    assert receiver.answers() == [(1, 503), (1, 200), (2, 200), (3, 200)]
    assert all(len(ids) == 1 for ids in receiver.together)


async def test_several_connections_post_other_chats_together_and_one_chat_in_order(
        tg: FakeTelegram, receiver: Receiver, http: aiohttp.ClientSession) -> None:
    gate = asyncio.Event()

    async def held(update_id: int) -> None:
        await gate.wait()

    receiver.hold = held
    await tg.send_text(1, "first")    # 1
    await tg.send_text(1, "second")   # 2: Ann's again, after her first
    await tg.send_text(2, "Bob's")    # 3
    await tg.send_text(3, "Cid's")    # 4
    await call(http, "setWebhook", url=receiver.url)   # Telegram's 40 connections
    await receiver.until(lambda: len(receiver.in_flight) == 3)
    assert sorted(receiver.in_flight) == [1, 3, 4], "Ann's second waits for her first"
    assert sorted(tg.webhooks.in_flight) == [1, 3, 4]
    info = (await call(http, "getWebhookInfo"))["result"]
    assert (info["pending_update_count"], info["max_connections"]) == (4, 40)
    gate.set()
    await tg.wait_for(lambda: sorted(receiver.taken()) == [1, 2, 3, 4])
    assert receiver.taken().index(1) < receiver.taken().index(2)
    assert receiver.one_per_chat()
    assert (await call(http, "getWebhookInfo"))["result"]["pending_update_count"] == 0


async def test_no_more_posts_in_flight_than_max_connections(
        tg: FakeTelegram, receiver: Receiver, http: aiohttp.ClientSession) -> None:
    gate = asyncio.Event()

    async def held(update_id: int) -> None:
        await gate.wait()

    receiver.hold = held
    for user in (1, 2, 3, 4):
        await tg.send_text(user, "hello")
    # Queued before the webhook: its first look sees all four, and may start only two.
    await call(http, "setWebhook", url=receiver.url, max_connections=2)
    await receiver.until(lambda: len(receiver.in_flight) == 2)
    assert sorted(tg.webhooks.in_flight) == [1, 2]
    gate.set()
    await tg.wait_for(lambda: sorted(receiver.taken()) == [1, 2, 3, 4])
    assert max(len(ids) for ids in receiver.together) == 2


async def test_a_refused_update_is_posted_again_and_holds_back_its_chat_but_no_other(
        tg: FakeTelegram, receiver: Receiver, http: aiohttp.ClientSession) -> None:
    receiver.statuses_of = {1: [503]}

    async def held(update_id: int) -> None:
        if update_id == 1 and not receiver.got:
            # Bob's update is taken and confirmed while Ann's first, the oldest, is in flight.
            await tg.wait_for(lambda: pending_ids(tg) == [1, 2], timeout=HANG_GUARD)

    receiver.hold = held
    await tg.send_text(1, "first")    # 1
    await tg.send_text(1, "second")   # 2
    await tg.send_text(2, "Bob's")    # 3
    await call(http, "setWebhook", url=receiver.url)
    await tg.wait_for(lambda: sorted(receiver.taken()) == [1, 2, 3])
    assert receiver.answers() == [(3, 200), (1, 503), (1, 200), (2, 200)]
    assert receiver.one_per_chat()
    info = (await call(http, "getWebhookInfo"))["result"]
    assert info["last_error_message"] == "Wrong response from the webhook: 503 Service Unavailable"
    assert info["pending_update_count"] == 0


def test_confirm_takes_any_update_and_offer_again_puts_them_back_in_order() -> None:
    queue = UpdateQueue(1, on_new=lambda: None)
    for user in (1, 2, 1):
        queue.push("message", {"chat": {"id": user}, "text": "hi"})
    assert [u["update_id"] for u in queue.heads(set(), 10)] == [1, 2]
    assert [u["update_id"] for u in queue.heads({1}, 10)] == [2]
    queue.confirm(2)
    assert [u["update_id"] for u in queue.pending] == [1, 3]
    assert not queue.holds(2)
    queue.confirm(1)
    assert [u["update_id"] for u in queue.offer_again(2)] == [1, 2]
    assert [u["update_id"] for u in queue.pending] == [1, 2, 3]


@pytest.mark.parametrize(("kind", "payload", "key"), [
    ("message", {"chat": {"id": -100}, "from": {"id": 7}}, -100),
    ("callback_query", {"from": {"id": 7}, "message": {"chat": {"id": -100}}}, -100),
    ("callback_query", {"from": {"id": 7}, "inline_message_id": "i"}, 7),
    ("my_chat_member", {"chat": {"id": -100}, "from": {"id": 7}}, -100),
    ("poll_answer", {"user": {"id": 7}}, 7),
    ("poll", {"id": "p"}, None),
])
def test_an_update_belongs_to_its_chat_else_to_its_sender(
        kind: str, payload: dict, key: int | None) -> None:
    assert order_key({"update_id": 1, kind: payload}) == key
