"""Inline buttons of the menus, the setup and the lobby."""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardButton


def button(text: str, data: CallbackData) -> InlineKeyboardButton:
    return InlineKeyboardButton(text=text, callback_data=data.pack())


def marked(text: str, chosen: bool) -> str:
    """One choice among several: the chosen one carries the mark."""
    return f"✅ {text}" if chosen else text


def toggled(text: str, on: bool) -> str:
    """A setting that is on or off: both states carry a box, so it reads as a switch."""
    return f"{'✅' if on else '⬜'} {text}"
