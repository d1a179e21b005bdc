"""What a message should show: its text and its buttons, row by row; pure data.

Screens are compared (an edit that changes nothing is never sent) and a running table keeps a few
of them, so a button is a small tuple: about 100 bytes where aiogram's model takes 1 KB. The
Telegram side builds aiogram's keyboard from it when a message is sent.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple


class Button(NamedTuple):
    """An inline button: a tap sends `callback_data` (render.callbacks packs it), opens `url`,
    or opens the Mini App at `web_app` (private chats only: Telegram refuses it in groups)."""

    text: str
    callback_data: str | None = None
    url: str | None = None
    web_app: str | None = None


Keyboard = tuple[tuple[Button, ...], ...]


@dataclass(frozen=True, slots=True, init=False)
class Screen:
    text: str
    keyboard: Keyboard | None

    def __init__(self, text: str, keyboard: Iterable[Iterable[Button]] | None = None) -> None:
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "keyboard",
                           None if keyboard is None else tuple(tuple(row) for row in keyboard))
