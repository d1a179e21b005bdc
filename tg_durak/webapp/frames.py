"""The server's side of the page's protocol (docs/mini-app.md): the frames a page sends up, read
strictly (anything else is a BadFrame), and the codes a socket is closed with for good.

A move becomes the same `Tap` a chat button makes, so it takes the chat's path into the table
service: the same lock, the same stale-tap rule, the same refusals; a quick game's frame, the
same `QuickTap` as the chat's quick-game buttons. The page holds the same names in
static/js/protocol.js and moves.js; tests/webapp/test_page_protocol.py keeps them alike.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar

from engine import Card, Variant
from tg_durak.play.taps import APP_MOVES, Tap
from tg_durak.render.quick import QuickChoice
from tg_durak.render.quick_taps import QuickTap, QuickVerb

MAX_FRAME = 4096
# The page does not reconnect after these: its launch was refused, or it names no table.
CLOSE_REFUSED = 4401
CLOSE_NO_TABLE = 4404
E = TypeVar("E", bound=StrEnum)
_CARD = re.compile(r"(10|[2-9JQKA])[scdh]")
# The answer to a ping, at once: a page that hears nothing for a few seconds knows it is offline
# long before a dead socket closes.
PONG = {"type": "pong"}


class FrameType(StrEnum):
    """The `type` of a frame the page sends up."""

    HELLO = "hello"
    MOVE = "move"
    JOIN = "join"
    AGAIN = "again"
    START = "start"
    QUICK = "quick"
    PING = "ping"


class BadFrame(Exception):
    """Not a frame of ours; `code` is the error frame's (bad_frame, too_big)."""

    def __init__(self, code: str = "bad_frame") -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True)
class Hello:
    init_data: str


@dataclass(frozen=True)
class MoveFrame:
    id: int
    version: int
    tap: Tap


@dataclass(frozen=True)
class Join:
    id: int


@dataclass(frozen=True)
class Again:
    id: int


@dataclass(frozen=True)
class Start:
    """The host starts his group's lobby."""

    id: int


@dataclass(frozen=True)
class QuickFrame:
    """The quick game, from the app with no table: a choice, Find players, Leave the queue or
    Start with computers, as the chat's buttons."""

    id: int
    tap: QuickTap


@dataclass(frozen=True)
class Ping:
    pass


Frame = Hello | MoveFrame | Join | Again | Start | QuickFrame | Ping


def _int(value: object, least: int = 0) -> int:
    if type(value) is not int or not least <= value < 2**53:
        raise BadFrame()
    return value


def _member(kind: type[E], value: object) -> E:
    """The member of the string enum `kind` that `value` names."""
    if not isinstance(value, str):
        raise BadFrame()
    try:
        return kind(value)
    except ValueError:
        raise BadFrame() from None


def _card(value: object) -> int:
    if not isinstance(value, str) or not _CARD.fullmatch(value):
        raise BadFrame()
    return Card.parse(value).index


def _tap(frame: dict) -> Tap:
    kind = frame.get("move")
    move = APP_MOVES.get(kind) if isinstance(kind, str) else None
    if move is None:
        raise BadFrame()
    fields = [_card(frame.get("card"))] if move.card else []
    if move.target:
        fields.append(_int(frame.get("target")))
    return move.tap(*fields)


def _quick(frame: dict) -> QuickTap:
    """The tap a quick game's frame makes: Leave and Start carry nothing else; a choice and
    Find carry the whole choice, which must be one the chat's buttons could carry."""
    verb = _member(QuickVerb, frame.get("verb"))
    if verb in (QuickVerb.LEAVE, QuickVerb.START):
        return QuickTap(verb)
    tap = QuickTap(verb, _member(Variant, frame.get("variant")), _int(frame.get("players")),
                   _int(frame.get("deck")), _int(frame.get("wait")))
    if verb not in (QuickVerb.CHOOSE, QuickVerb.FIND) or QuickChoice.of(tap) is None:
        raise BadFrame()
    return tap


# The frames that carry nothing but their id.
_BARE: dict[str, type[Join | Again | Start]] = {
    FrameType.JOIN: Join, FrameType.AGAIN: Again, FrameType.START: Start}


def _object(text: object) -> dict:
    """The frame's JSON object."""
    if not isinstance(text, str):
        raise BadFrame()
    if len(text) > MAX_FRAME:
        raise BadFrame("too_big")
    try:
        frame = json.loads(text)
    except ValueError:
        raise BadFrame() from None
    if not isinstance(frame, dict):
        raise BadFrame()
    return frame


def read_frame(text: object) -> Frame:
    frame = _object(text)
    kind = frame.get("type")
    if kind == FrameType.HELLO:
        init_data = frame.get("init_data")
        if not isinstance(init_data, str):
            raise BadFrame()
        return Hello(init_data)
    if kind == FrameType.MOVE:
        return MoveFrame(_int(frame.get("id")), _int(frame.get("version")), _tap(frame))
    bare = _BARE.get(kind) if isinstance(kind, str) else None
    if bare is not None:
        return bare(_int(frame.get("id")))
    if kind == FrameType.QUICK:
        return QuickFrame(_int(frame.get("id")), _quick(frame))
    if kind == FrameType.PING:
        return Ping()
    raise BadFrame()
