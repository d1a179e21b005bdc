"""Inline buttons of the menus, the setup and the lobby."""

from __future__ import annotations

from tg_durak.render.callbacks import CallbackRecord
from tg_durak.render.screen import Button


def button(text: str, data: CallbackRecord) -> Button:
    return Button(text, data.pack())


def marked(text: str, chosen: bool) -> str:
    """One choice among several: the chosen one carries the mark."""
    return f"✅ {text}" if chosen else text


def toggled(text: str, on: bool) -> str:
    """A setting that is on or off: both states carry a box, so it reads as a switch."""
    return f"{'✅' if on else '⬜'} {text}"


def open_bot(text: str, bot_username: str, start: str | None = None) -> Button:
    """A link that opens the private chat with the bot (with `/start <start>`, if given)."""
    link = f"https://t.me/{bot_username}"
    return Button(text, url=link if start is None else f"{link}?start={start}")


def startapp_link(bot_username: str, app_name: str | None, start: str) -> str:
    """The t.me link that opens the Mini App at a table from a group (where Telegram allows no
    web_app button): the app BotFather registered under `app_name`, else the bot's Main Mini
    App."""
    bot = f"https://t.me/{bot_username}"
    return f"{bot}/{app_name}?startapp={start}" if app_name else f"{bot}?startapp={start}"
