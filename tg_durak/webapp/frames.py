"""The server's side of the page's protocol (docs/mini-app.md): the frames a page sends up, read
strictly (anything else is a BadFrame), and the codes a socket is closed with for good.

A move becomes the same `Tap` a chat button makes, so it takes the chat's path into the table
service: the same lock, the same stale-tap rule, the same refusals. The page holds the same
names in static/js/protocol.js and moves.js; tests/webapp/test_page_protocol.py keeps them alike.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from enum import StrEnum

from engine import Card
from tg_durak.play.taps import APP_MOVES, Tap

MAX_FRAME = 4096
# The page does not reconnect after these: its launch was refused, or it names no table.
CLOSE_REFUSED = 4401
CLOSE_NO_TABLE = 4404
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
class Ping:
    pass


Frame = Hello | MoveFrame | Join | Again | Start | Ping


def _int(value: object, least: int = 0) -> int:
    if type(value) is not int or not least <= value < 2**53:
        raise BadFrame()
    return value


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


def read_frame(text: object) -> Frame:
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
    kind = frame.get("type")
    if kind == FrameType.HELLO:
        init_data = frame.get("init_data")
        if not isinstance(init_data, str):
            raise BadFrame()
        return Hello(init_data)
    if kind == FrameType.MOVE:
        return MoveFrame(_int(frame.get("id")), _int(frame.get("version")), _tap(frame))
    if kind == FrameType.JOIN:
        return Join(_int(frame.get("id")))
    if kind == FrameType.AGAIN:
        return Again(_int(frame.get("id")))
    if kind == FrameType.START:
        return Start(_int(frame.get("id")))
    if kind == FrameType.PING:
        return Ping()
    raise BadFrame()
