"""t.me links to the bot: what a user opens to start it, and what the bot may answer a tap with."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

# The bot itself, optionally with a start payload (Telegram's deep-link payloads: 1-64 of
# A-Z a-z 0-9 _ -).
_START_LINK_RE = re.compile(
    r"(?:https?://)?(?:t|telegram)\.me/(?P<bot>[A-Za-z0-9_]+)"
    r"(?:\?start=(?P<payload>[A-Za-z0-9_-]{1,64}))?"
)


def start_link_payload(url: str, bot_username: str) -> str | None:
    """The start payload of a t.me link to this bot ("" without one); None if it is not one."""
    match = _START_LINK_RE.fullmatch(url.strip())
    if match is None or match["bot"].lower() != bot_username.lower():
        return None
    return match["payload"] or ""


# A direct link to a Mini App: t.me/<bot>/<app>[?startapp=<param>] opens the named app;
# t.me/<bot>?startapp[=<param>] the bot's main one (start parameters: up to 512 of A-Z a-z 0-9 _ -).
_START_APP_LINK_RE = re.compile(
    r"(?:https?://)?(?:t|telegram)\.me/(?P<bot>[A-Za-z0-9_]+)"
    r"(?:/(?P<app>[A-Za-z0-9_]+)(?:\?startapp=(?P<app_param>[A-Za-z0-9_-]{0,512}))?"
    r"|\?startapp(?:=(?P<main_param>[A-Za-z0-9_-]{0,512}))?)"
)
_APP_NAME_RE = re.compile(r"[A-Za-z0-9_]{3,30}")  # BotFather's rule for a short name
_LOCAL_HOSTS = ("127.0.0.1", "localhost")


@dataclass(frozen=True)
class StartAppLink:
    """What a t.me link to a Mini App names: the app (None: the bot's main app) and the start
    parameter (None: the link has none)."""

    app_name: str | None
    start_param: str | None


def start_app_link(url: str, bot_username: str) -> StartAppLink | None:
    """The Mini App a t.me link to this bot opens; None if it opens none."""
    match = _START_APP_LINK_RE.fullmatch(url.strip())
    if match is None or match["bot"].lower() != bot_username.lower():
        return None
    if match["app"] is not None:
        return StartAppLink(match["app"], match["app_param"] or None)
    return StartAppLink(None, match["main_param"] or None)


def is_web_app_url(url: str) -> bool:
    """Telegram opens only https Mini Apps; the emulator also takes plain http on this machine,
    for local play and tests."""
    parts = urlsplit(url)
    if not parts.hostname:
        return False
    return parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in _LOCAL_HOSTS)


class WebApps:
    """The bot's Mini Apps as BotFather records them: the main one and those made with /newapp
    (short name -> URL)."""

    def __init__(self) -> None:
        self.main: str | None = None
        self.named: dict[str, str] = {}

    def register(self, url: str, name: str | None = None) -> None:
        if not is_web_app_url(url):
            raise ValueError(f"{url!r} is no Mini App URL: https, or http on 127.0.0.1/localhost")
        if name is None:
            self.main = url
        elif _APP_NAME_RE.fullmatch(name):
            self.named[name] = url
        else:
            raise ValueError(f"{name!r} is no Mini App short name: 3-30 of A-Z a-z 0-9 _")

    def url(self, name: str | None, bot_username: str) -> str:
        """The URL of the app `name` (None: the main app)."""
        if name is None:
            if self.main is None:
                raise LookupError(f"@{bot_username} has no main Mini App: set_web_app(url) first")
            return self.main
        for known, url in self.named.items():
            if known.lower() == name.lower():  # t.me links ignore case
                return url
        raise LookupError(f"@{bot_username} has no Mini App {name!r}; it has "
                          f"{sorted(self.named)}: set_web_app(url, name={name!r}) first")
