"""Telegram's webhook: the route on the bot's web server that Telegram posts each update to.

Telegram posts an update again until it gets a 2xx, so the answer says whether the update is
done with: 200 once it was handled (or skipped as handled before, or a tap answered "not
saved"), 503 when it was not (the store refused, a handler failed: update_claims.NotHandled; or
the bot is not taking updates, starting or stopping), 401 for a request without our secret
(nothing of it is read), 400 for a body that is no update (offering it again would not help).
aiogram's SimpleRequestHandler answers 200 before or whatever the handling did, which would lose
what Telegram would offer again.
"""

from __future__ import annotations

import hmac
import logging
from urllib.parse import urlsplit

from aiogram import Bot, Dispatcher
from aiogram.types import Update
from aiohttp import web

from tg_durak.storage import DatabaseDown
from tg_durak.telegram.update_claims import NotHandled

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


def webhook_path(url: str) -> str:
    """Where the bot's web server takes the posts for the public address `url`."""
    return urlsplit(url).path or "/"


class WebhookRoute:
    """POST at the webhook's path: each update fed to the dispatcher, one request each."""

    def __init__(self, dp: Dispatcher, bot: Bot, url: str, secret: str) -> None:
        self._dp = dp
        self._bot = bot
        self.path = webhook_path(url)
        self._secret = secret.encode()
        self._accepting = False   # while False (starting, stopping), posts are offered again later

    def add_to(self, app: web.Application) -> None:
        app.router.add_post(self.path, self._receive)

    @property
    def accepting(self) -> bool:
        return self._accepting

    def accept(self) -> None:
        """The bot is ready: updates are taken from now on."""
        self._accepting = True

    def refuse(self) -> None:
        """The bot stops: posts are answered 503, for Telegram to offer them again later."""
        self._accepting = False

    async def _receive(self, request: web.Request) -> web.Response:
        given = request.headers.get(SECRET_HEADER, "").encode()
        if not hmac.compare_digest(given, self._secret):
            return web.Response(status=401)
        if not self._accepting:
            return web.Response(status=503)
        try:
            update = Update.model_validate(await request.json(), context={"bot": self._bot})
        except ValueError:   # not JSON, or not one of Telegram's updates (ValidationError)
            return web.Response(status=400)
        try:
            await self._dp.feed_update(self._bot, update)
        except NotHandled as exc:
            # A database that does not answer was logged once by the store, not once per post.
            log.log(logging.INFO if isinstance(exc.__cause__, DatabaseDown) else logging.WARNING,
                    "%s; answered 503 for Telegram to offer it again", exc)
            return web.Response(status=503)
        except Exception:   # outside the handlers (a middleware of aiogram's): offered again too
            log.exception("update %s failed", update.update_id)
            return web.Response(status=503)
        return web.Response()
