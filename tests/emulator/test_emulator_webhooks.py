"""Delivery by webhook: after setWebhook the emulator posts each update to the bot, in order,
with the secret header, and again after a non-2xx or a failed connection, until one is taken."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiohttp import web

from tg_durak.emulator import DEFAULT_TOKEN, FakeTelegram

SECRET = "s3cret_token-1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Receiver:
    """The bot's end: records each post (its update id and secret header) and answers with the
    next status of `statuses` (200 once they are used up)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}/hook"
        self.statuses: list[int] = []
        self.got: list[tuple[int, str | None, int]] = []   # (update_id, secret, answered)
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/hook", self._receive)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _receive(self, request: web.Request) -> web.Response:
        update = await request.json()
        status = self.statuses.pop(0) if self.statuses else 200
        secret = request.headers.get("X-Telegram-Bot-Api-Secret-Token")
        self.got.append((update["update_id"], secret, status))
        return web.Response(status=status)

    def taken(self) -> list[int]:
        return [update_id for update_id, _, status in self.got if status == 200]


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as fake:
        fake.add_user(1, "Ann")
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
