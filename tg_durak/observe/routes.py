"""`/healthz`, `/readyz` and `/metrics` on the bot's web server.

`/metrics` tells how many play and how fast the bot answers: it is served to loopback clients
(a Prometheus beside the bot, or a reverse proxy that guards it) and, with DURAK_METRICS_TOKEN,
to whoever sends it as a bearer token.
"""

from __future__ import annotations

import hmac
import ipaddress

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

from tg_durak.observe.readiness import Readiness


def metrics_allowed(remote: str | None, authorization: str | None, token: str | None) -> bool:
    """Whether a client at `remote` with this Authorization header may read the metrics."""
    if token and authorization is not None and hmac.compare_digest(
            authorization.encode(), f"Bearer {token}".encode()):
        return True
    try:
        return remote is not None and ipaddress.ip_address(remote).is_loopback
    except ValueError:   # a Unix socket's peer, say: not an address we can vouch for
        return False


class HealthRoutes:
    def __init__(self, readiness: Readiness, registry: CollectorRegistry,
                 token: str | None) -> None:
        self._readiness = readiness
        self._registry = registry
        self._token = token

    def add_to(self, app: web.Application) -> None:
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/readyz", self._readyz)
        app.router.add_get("/metrics", self._metrics)

    async def _healthz(self, request: web.Request) -> web.StreamResponse:
        return web.Response(text="ok\n")   # answered at all: the event loop turns

    async def _readyz(self, request: web.Request) -> web.StreamResponse:
        problems = await self._readiness.problems()
        if problems:
            return web.Response(status=503, text="\n".join(problems) + "\n")
        return web.Response(text="ready\n")

    async def _metrics(self, request: web.Request) -> web.StreamResponse:
        if not metrics_allowed(request.remote, request.headers.get("Authorization"),
                               self._token):
            raise web.HTTPForbidden()
        return web.Response(body=generate_latest(self._registry),
                            headers={"Content-Type": CONTENT_TYPE_LATEST})
