"""Every button's callback data (≤ 64 bytes), one factory per kind of button.

Callback data is untrusted: any client can send any bytes. aiogram's factories parse and type-check
them; whatever fails to parse is answered as an unknown button by the fallback handler.
"""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData


class Move(CallbackData, prefix="m"):
    """A tap on the game message. `v` is the table version the player saw (stale taps)."""

    table: int
    v: int
    verb: str        # "c" card, "t" target, "x" transfer mode, "X" transfer card,
                     # "k" take, "p" pass, "s" show trump, "n" cancel, "r" refresh
    card: int = -1   # card index 0..51
    target: int = -1


class Setup(CallbackData, prefix="s"):
    """The /play setup message: change one setting, or start."""

    field: str       # "variant", "bots", "level", "start"
    value: str = ""


class Lang(CallbackData, prefix="l"):
    code: str


class Menu(CallbackData, prefix="u"):
    """Buttons outside a game: play again, open setup, confirm or cancel a resignation."""

    action: str      # "quick", "again" (after a game), "setup", "resign", "keep", "rules"
    arg: str = ""
