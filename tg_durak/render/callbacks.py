"""Every button's callback data (at most 64 bytes): what a tap on it asks for, declared once.

Screens pack these records into the button (`pack`); the Telegram side parses a tap with aiogram's
CallbackData factories, which `tg_durak.telegram.callbacks` makes from these same declarations, so
the format has one definition. Callback data is untrusted: any client can send any bytes; the
factories type-check every field (an enum field takes only its values) and whatever fails to
parse is answered as an unknown button.

The prefixes and the enums' values are what travels, so they stay short and never change: buttons
already sent keep working after an upgrade.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Annotated, ClassVar

from pydantic import Field

from engine import Variant
from tg_durak.play.options import OptionField

MAX_BYTES = 64   # Telegram's limit
SEPARATOR = ":"
# A number the store can hold (SQLite's 64-bit INTEGER). A larger one is forged: it fails to
# parse like any other garbage, instead of failing deep in a query.
Number = Annotated[int, Field(ge=-(2**63), lt=2**63)]


@dataclass(frozen=True, slots=True)
class CallbackRecord:
    """One kind of button's data: `prefix` and the fields, in order, separated by colons."""

    prefix: ClassVar[str]

    def pack(self) -> str:
        """The callback data, encoded as aiogram's CallbackData encodes it."""
        parts = [self.prefix]
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            text = "" if value is None else str(value.value if isinstance(value, Enum) else value)
            if SEPARATOR in text:
                raise ValueError(f"{f.name}={text!r} holds the separator {SEPARATOR!r}")
            parts.append(text)
        data = SEPARATOR.join(parts)
        if len(data.encode()) > MAX_BYTES:
            raise ValueError(f"callback data {data!r} is over {MAX_BYTES} bytes")
        return data


class Verb(StrEnum):
    """What a tap on the game message asks for."""

    CARD = "c"            # a card from the hand: attack, or defend (the target is asked if several)
    TARGET = "t"          # a defence card and the attack card it beats
    TRANSFER_MODE = "x"   # "Transfer": the card is asked if several fit
    TRANSFER = "X"        # the card to transfer with
    TAKE = "k"
    PASS = "p"
    SHOW_TRUMP = "s"
    CANCEL = "n"          # leave choosing a target or a transfer card


@dataclass(frozen=True, slots=True)
class Move(CallbackRecord):
    """A tap on the game message. `v` is the table version the player saw (stale taps)."""

    prefix: ClassVar[str] = "m"
    table: Number
    v: Number
    verb: Verb
    card: Number = -1   # card index 0..51
    target: Number = -1


class SetupField(StrEnum):
    """The private setup's own buttons; the table's options travel as SetupOption."""

    BOTS = "bots"
    LEVEL = "level"
    START = "start"
    MORE = "more"    # open the options screen
    BACK = "back"    # from the options screen to the setup


@dataclass(frozen=True, slots=True)
class Setup(CallbackRecord):
    """The /play setup message: the opponents, their strength, the screens, Start."""

    prefix: ClassVar[str] = "s"
    field: SetupField
    value: str = ""


@dataclass(frozen=True, slots=True)
class SetupOption(CallbackRecord):
    """The /play setup message: set one table option (`value` as play.options.encode writes it).

    It shares Setup's prefix, and OptionField's values are not SetupField's, so each string
    parses as exactly one of the two: the variant buttons of a setup message sent before the
    options existed ("s:variant:transfer") still work.
    """

    prefix: ClassVar[str] = "s"
    field: OptionField
    value: str


@dataclass(frozen=True, slots=True)
class Lang(CallbackRecord):
    prefix: ClassVar[str] = "l"
    code: str


class MenuAction(StrEnum):
    QUICK = "quick"      # play with the last settings
    AGAIN = "again"      # the same, from a finished game's message
    SETUP = "setup"
    RESIGN = "resign"
    KEEP = "keep"        # keep playing: the resignation is called off
    RULES = "rules"      # the full rules of one game
    LEAVE = "leave"      # Leave on a group game message: asks first
    LEAVE_SURE = "leave!"   # ... and the answer: a computer plays the seat on


class RuleBook(StrEnum):
    THROW_IN = "throw_in"
    TRANSFER = "transfer"
    OPTIONS = "options"    # what a player may set in /play


@dataclass(frozen=True, slots=True)
class Kick(CallbackRecord):
    """/kick's list: remove this person (who is away) from the table; host or admin only."""

    prefix: ClassVar[str] = "k"
    table: Number
    user: Number


@dataclass(frozen=True, slots=True)
class Menu(CallbackRecord):
    """Buttons outside a game: play again, open setup, confirm or cancel a resignation, rules."""

    prefix: ClassVar[str] = "u"
    action: MenuAction
    book: RuleBook | None = None   # which rules, for RULES


class LobbyVerb(StrEnum):
    """A tap on a group's lobby or finished-table message."""

    JOIN = "j"
    LEAVE = "l"
    COMPUTER = "c"     # value: the computer's strength
    SETTINGS = "s"     # open the settings on the lobby message
    BACK = "b"         # from the settings back to the lobby
    SEATS = "n"        # value: how many seats
    START = "go"
    CANCEL = "x"
    REMATCH = "r"      # on a finished table: a new lobby with the same people and settings


@dataclass(frozen=True, slots=True)
class LobbyTap(CallbackRecord):
    """The group message of a lobby (or a finished table): `table` is its table id."""

    prefix: ClassVar[str] = "g"
    table: Number
    verb: LobbyVerb
    value: str = ""


@dataclass(frozen=True, slots=True)
class LobbyOption(CallbackRecord):
    """The lobby's settings: one table option (`value` as play.options.encode writes it)."""

    prefix: ClassVar[str] = "go"
    table: Number
    field: OptionField
    value: str


@dataclass(frozen=True, slots=True)
class InlineOpen(CallbackRecord):
    """Join on a message a person sent via the bot (inline mode), before it shows a lobby: the
    first tap opens one, hosted by `host`, for the `variant` he chose; `sig` (play/inline.py's
    signature) shows the bot offered it."""

    prefix: ClassVar[str] = "i"
    variant: Variant
    host: Number
    sig: str


RECORDS: tuple[type[CallbackRecord], ...] = (Move, Setup, SetupOption, Lang, Kick, Menu,
                                             LobbyTap, LobbyOption, InlineOpen)
