"""Every button's callback data (≤ 64 bytes), one factory per kind of button.

Callback data is untrusted: any client can send any bytes. aiogram's factories parse and type-check
them (an enum field accepts only its values); whatever fails to parse, or matches no handler's
filter, is answered as an unknown button by the fallback handler.

The enums' values are what travels, so they stay short and never change: buttons already sent
keep working after an upgrade.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from aiogram.filters.callback_data import CallbackData
from pydantic import Field

from tg_durak.play.options import OptionField

# A number the store can hold (SQLite's 64-bit INTEGER). A larger one is forged: it fails to
# parse like any other garbage, instead of failing deep in a query.
Number = Annotated[int, Field(ge=-(2**63), lt=2**63)]


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


class Move(CallbackData, prefix="m"):
    """A tap on the game message. `v` is the table version the player saw (stale taps)."""

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


class Setup(CallbackData, prefix="s"):
    """The /play setup message: the opponents, their strength, the screens, Start."""

    field: SetupField
    value: str = ""


class SetupOption(CallbackData, prefix="s"):
    """The /play setup message: set one table option (`value` as play_settings.encode writes it).

    It shares Setup's prefix, and OptionField's values are not SetupField's, so each string
    parses as exactly one of the two: the variant buttons of a setup message sent before the
    options existed ("s:variant:transfer") still work.
    """

    field: OptionField
    value: str


class Lang(CallbackData, prefix="l"):
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


class Kick(CallbackData, prefix="k"):
    """/kick's list: remove this person (who is away) from the table; host or admin only."""

    table: Number
    user: Number


class Menu(CallbackData, prefix="u"):
    """Buttons outside a game: play again, open setup, confirm or cancel a resignation, rules."""

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


class LobbyTap(CallbackData, prefix="g"):
    """The group message of a lobby (or a finished table): `table` is its table id."""

    table: Number
    verb: LobbyVerb
    value: str = ""


class LobbyOption(CallbackData, prefix="go"):
    """The lobby's settings: one table option (`value` as play_settings.encode writes it)."""

    table: Number
    field: OptionField
    value: str
