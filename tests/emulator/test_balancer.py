"""The test balancer (tests/helpers/balancer.py): round robin over the webhook processes, past
one that refuses the connection, and a 502 with no second try when one dies mid-request."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiohttp import web

from tests.helpers.balancer import Balancer
from tg_durak.emulator import DEFAULT_TOKEN, FakeTelegram

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


class Upstream:
    """A webhook process: answers each request with `status` and its own name, and records
    (path with query, body, secret header) of each."""

    def __init__(self, name: str, status: int = 200) -> None:
        self.name = name
        self.status = status
        self.got: list[tuple[str, bytes, str | None]] = []
        self.url = ""
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/{tail:.*}", self._receive)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _receive(self, request: web.Request) -> web.Response:
        self.got.append((request.path_qs, await request.read(),
                         request.headers.get(SECRET_HEADER)))
        return web.Response(status=self.status, text=self.name)


class Dying:
    """A webhook process killed while it handles a request: it reads the request, then its
    connection is cut without an answer (reset, or closed as the kernel closes a dead
    process's sockets)."""

    def __init__(self, reset: bool) -> None:
        self.reset = reset
        self.reached = 0
        self.url = ""
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._receive, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _receive(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        self.reached += 1
        if self.reset:
            writer.transport.abort()
        else:
            writer.close()


def closed_url() -> str:
    """An address where nothing listens: connecting there is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


@pytest.fixture
async def upstreams() -> AsyncIterator[list[Upstream]]:
    started = [Upstream(name) for name in ("a", "b", "c")]
    for upstream in started:
        await upstream.start()
    yield started
    for upstream in started:
        await upstream.stop()


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def post(http: aiohttp.ClientSession, lb: Balancer, path: str = "/telegram/updates",
               body: bytes = b'{"update_id": 1}') -> tuple[int, str]:
    async with http.post(lb.url + path, data=body, headers={SECRET_HEADER: "s3cret"}) as r:
        return r.status, await r.text()


async def test_requests_go_round_robin_with_path_body_and_secret(
        upstreams: list[Upstream], http: aiohttp.ClientSession) -> None:
    a, b, c = upstreams
    async with Balancer([a.url, b.url, c.url]) as lb:
        answers = [await post(http, lb, f"/telegram/updates?n={n}", b'{"n": %d}' % n)
                   for n in range(6)]
    assert answers == [(200, name) for name in "abcabc"]
    assert a.got == [("/telegram/updates?n=0", b'{"n": 0}', "s3cret"),
                     ("/telegram/updates?n=3", b'{"n": 3}', "s3cret")]
    assert lb.forwarded == {a.url: 2, b.url: 2, c.url: 2}
    assert not lb.dropped


async def test_an_upstream_answer_comes_back_as_it_is_and_is_not_tried_elsewhere(
        upstreams: list[Upstream], http: aiohttp.ClientSession) -> None:
    a, b, _ = upstreams
    a.status = 503
    async with Balancer([a.url, b.url]) as lb:
        assert await post(http, lb) == (503, "a")
    assert (len(a.got), b.got) == (1, [])


async def test_a_refusing_upstream_is_passed_over_for_the_next(
        upstreams: list[Upstream], http: aiohttp.ClientSession) -> None:
    a, b, _ = upstreams
    down = closed_url()
    async with Balancer([a.url, down, b.url]) as lb:
        answers = [await post(http, lb) for _ in range(3)]
    assert answers == [(200, "a"), (200, "b"), (200, "b")]
    assert lb.forwarded == {a.url: 1, b.url: 2}


async def test_502_when_every_upstream_refuses_or_there_is_none(
        http: aiohttp.ClientSession) -> None:
    async with Balancer([closed_url(), closed_url()]) as lb:
        assert (await post(http, lb))[0] == 502
        lb.set_upstreams([])
        assert (await post(http, lb))[0] == 502
    assert not lb.forwarded


@pytest.mark.parametrize("reset", [True, False], ids=["reset", "closed"])
async def test_502_when_an_upstream_dies_mid_request_and_no_second_try(
        upstreams: list[Upstream], http: aiohttp.ClientSession, reset: bool) -> None:
    dying, good = Dying(reset), upstreams[0]
    await dying.start()
    try:
        async with Balancer([dying.url, good.url]) as lb:
            status, _ = await post(http, lb)
            assert status == 502
            assert (dying.reached, good.got) == (1, []), "the update may have been applied"
            assert (lb.forwarded, lb.dropped) == ({dying.url: 1}, {dying.url: 1})
            assert await post(http, lb) == (200, "a"), "the next request goes on in turn"
    finally:
        await dying.stop()


async def test_upstreams_can_change_at_run_time(
        upstreams: list[Upstream], http: aiohttp.ClientSession) -> None:
    a, b, c = upstreams
    async with Balancer([a.url]) as lb:
        assert await post(http, lb) == (200, "a")
        lb.set_upstreams([b.url, c.url + "/"])
        assert lb.upstreams == [b.url, c.url]
        answers = [await post(http, lb) for _ in range(2)]
    assert sorted(answers) == [(200, "b"), (200, "c")]
    assert lb.forwarded == {a.url: 1, b.url: 1, c.url: 1}


async def test_the_emulator_delivers_through_it_to_every_process(
        upstreams: list[Upstream], http: aiohttp.ClientSession) -> None:
    a, b, _ = upstreams
    async with FakeTelegram() as tg, Balancer([a.url, b.url]) as lb:
        for user in (1, 2, 3, 4):
            tg.add_user(user, f"User {user}")
            await tg.send_text(user, "hello")
        params = {"url": lb.url + "/telegram/updates", "secret_token": "s3cret"}
        async with http.post(f"{tg.url}/bot{DEFAULT_TOKEN}/setWebhook", json=params) as r:
            assert r.status == 200
        await tg.wait_for(lambda: not tg.pending_updates)
    assert lb.forwarded == {a.url: 2, b.url: 2}
    assert {secret for _, _, secret in a.got + b.got} == {"s3cret"}
