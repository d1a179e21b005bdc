"""A round-robin reverse proxy for the end-to-end tests: the load balancer in front of several
webhook processes behind one address.

Each request goes to the next upstream in turn, with its method, path, query, body and headers
(the secret header among them), and the upstream's status and body come back. An upstream that
refuses the connection is passed over for the next, each tried at most once; when all refuse,
the answer is 502. An upstream whose connection drops mid-request (its process was killed) also
gets a 502 and no second try elsewhere: it may have applied the update, and Telegram offers it
again anyway.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from types import TracebackType

import aiohttp
from aiohttp import web

# Hop-by-hop headers and those the client library sets itself are not passed on.
NOT_FORWARDED = frozenset({
    "host", "content-length", "transfer-encoding", "connection", "keep-alive",
    "proxy-connection", "te", "trailer", "upgrade",
})
ANSWERED_HEADERS = ("Content-Type", "Content-Encoding")


class Balancer:
    """Round robin over `upstreams` (base URLs such as http://127.0.0.1:8081) on 127.0.0.1.

    `forwarded[url]` counts the requests that reached an upstream (refusals not counted),
    `dropped[url]` those of them whose connection dropped before the answer, `busy[url]` those
    under way now (sent, not yet answered).
    """

    def __init__(self, upstreams: Sequence[str], timeout: float = 60.0) -> None:
        self._upstreams = [url.rstrip("/") for url in upstreams]
        self._turns = itertools.count()
        self._timeout = timeout
        self.forwarded: Counter[str] = Counter()
        self.dropped: Counter[str] = Counter()
        self.busy: Counter[str] = Counter()
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None
        self._url: str | None = None

    @property
    def url(self) -> str:
        """The address the balancer listens on, e.g. http://127.0.0.1:40123."""
        if self._url is None:
            raise RuntimeError("start() the balancer first")
        return self._url

    @property
    def upstreams(self) -> list[str]:
        return list(self._upstreams)

    def set_upstreams(self, upstreams: Sequence[str]) -> None:
        """Send the next requests to these instead; requests under way finish where they are."""
        self._upstreams = [url.rstrip("/") for url in upstreams]

    async def start(self) -> str:
        # force_close: a fresh connection per request, so that a refusal means the upstream is
        # down, never a stale kept-alive connection to a process that has since died.
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(force_close=True, limit=0),
            timeout=aiohttp.ClientTimeout(total=self._timeout), auto_decompress=False)
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._forward)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        host, port = self._runner.addresses[0][:2]
        self._url = f"http://{host}:{port}"
        return self._url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def __aenter__(self) -> Balancer:
        await self.start()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        await self.stop()

    async def _forward(self, request: web.Request) -> web.Response:
        assert self._session is not None
        body = await request.read()
        headers = {name: value for name, value in request.headers.items()
                   if name.lower() not in NOT_FORWARDED}
        upstreams = self._upstreams
        if not upstreams:
            return web.Response(status=502, text="no upstream")
        first = next(self._turns) % len(upstreams)
        for upstream in upstreams[first:] + upstreams[:first]:
            answered = False
            self.busy[upstream] += 1
            try:
                async with self._session.request(
                        request.method, upstream + request.path_qs, data=body,
                        headers=headers) as answer:
                    answered = True
                    self.forwarded[upstream] += 1
                    content = await answer.read()
                    kept = {name: answer.headers[name] for name in ANSWERED_HEADERS
                            if name in answer.headers}
                    return web.Response(status=answer.status, reason=answer.reason,
                                        body=content, headers=kept)
            except aiohttp.ClientConnectorError:
                continue   # nothing reached it: the next one may take the request
            except (aiohttp.ClientError, TimeoutError) as exc:
                if not answered:
                    self.forwarded[upstream] += 1
                self.dropped[upstream] += 1
                return web.Response(status=502, text=f"upstream {upstream} failed: {exc!r}")
            finally:
                self.busy[upstream] -= 1
        return web.Response(status=502, text="every upstream refused the connection")
