"""HTTP face of the fake Bot API: `/bot<token>/<method>` with query, JSON, form or multipart."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

# (token, method, params) -> (HTTP status, JSON body)
ApiRoute = Callable[[str, str, dict[str, Any]], Awaitable[tuple[int, dict[str, Any]]]]

NOT_FOUND = {"ok": False, "error_code": 404, "description": "Not Found"}


async def read_params(request: web.Request) -> dict[str, Any]:
    """Parameters the way the Bot API takes them: URL query merged with the body."""
    params: dict[str, Any] = dict(request.query)
    if not request.body_exists:
        return params
    if request.content_type == "application/json":
        try:
            body = await request.json()
        except ValueError:
            body = None
        if isinstance(body, dict):
            params.update(body)
        return params
    form = await request.post()
    for key, value in form.items():
        params[key] = value.file.read() if isinstance(value, web.FileField) else value
    return params


def create_app(handle: ApiRoute) -> web.Application:
    async def api(request: web.Request) -> web.Response:
        params = await read_params(request)
        status, body = await handle(
            request.match_info["token"], request.match_info["method"], params
        )
        return web.json_response(body, status=status)

    async def not_found(request: web.Request) -> web.Response:
        return web.json_response(NOT_FOUND, status=404)

    app = web.Application()
    app.router.add_route("*", "/bot{token}/{method}", api)
    app.router.add_route("*", "/{tail:.*}", not_found)
    return app
