"""t.me links to the bot: what a user opens to start it, and what the bot may answer a tap with."""

from __future__ import annotations

import re

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
