"""The buttons' data of quick games and of /notify, declared once (as render/callbacks.py
declares the others'), with prefixes of their own; the Telegram side parses taps with the
factories made from them (telegram/handlers/quick.py, notify.py)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from engine import Variant
from tg_durak.play.matching import ReportReason
from tg_durak.render.callbacks import CallbackRecord, Number


class QuickVerb(StrEnum):
    OPEN = "o"     # the menu's Quick game: the choice, his last settings preselected
    CHOOSE = "c"   # another game, players, deck or wait chosen
    FIND = "f"     # into the queue
    LEAVE = "l"    # out of the queue
    START = "s"    # start now, computers in the empty seats (after his wait)


@dataclass(frozen=True, slots=True)
class QuickTap(CallbackRecord):
    """The quick game's message: the choice travels in every button (nothing is stored until
    he joins the queue)."""

    prefix: ClassVar[str] = "qg"
    verb: QuickVerb
    variant: Variant = Variant.THROW_IN
    players: Number = 2
    deck: Number = 36
    wait: Number = 30


@dataclass(frozen=True, slots=True)
class ReportTap(CallbackRecord):
    """After a quick game: report `user` of table `table` for `reason`."""

    prefix: ClassVar[str] = "qr"
    table: Number
    user: Number
    reason: ReportReason


class NotifyVerb(StrEnum):
    ON = "on"
    OFF = "off"


@dataclass(frozen=True, slots=True)
class NotifyTap(CallbackRecord):
    """A group lobby's 🔔: tell me when the next lobby opens here (or no more)."""

    prefix: ClassVar[str] = "nf"
    verb: NotifyVerb
    chat: Number = 0   # the group, on a private message's button (in the group: its own)
