"""The frames a page sends up (docs/mini-app.md), read strictly: anything else is a BadFrame.

A move becomes the same `Tap` a chat button makes, so it takes the chat's path into the table
service: the same lock, the same stale-tap rule, the same refusals.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from engine import Card
from tg_durak.play.taps import Attack, Beat, Pass, ShowTrump, Take, Tap, TransferWith

MAX_FRAME = 4096
_CARD = re.compile(r"(10|[2-9JQKA])[scdh]")
_CARD_MOVES = {"attack": Attack, "transfer": TransferWith, "show_trump": ShowTrump}
_PLAIN_MOVES = {"take": Take, "pass": Pass}


class BadFrame(Exception):
    """Not a frame of ours; `code` is the error frame's (bad_frame, too_big)."""

    def __init__(self, code: str = "bad_frame") -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True)
class Hello:
    init_data: str


@dataclass(frozen=True)
class Move:
    id: int
    version: int
    tap: Tap


@dataclass(frozen=True)
class Join:
    id: int


@dataclass(frozen=True)
class Again:
    id: int


Frame = Hello | Move | Join | Again


def _int(value: object, least: int = 0) -> int:
    if type(value) is not int or not least <= value < 2**53:
        raise BadFrame()
    return value


def _card(value: object) -> int:
    if not isinstance(value, str) or not _CARD.fullmatch(value):
        raise BadFrame()
    return Card.parse(value).index


def _tap(frame: dict) -> Tap:
    move = frame.get("move")
    if move in _PLAIN_MOVES:
        return _PLAIN_MOVES[move]()
    if move in _CARD_MOVES:
        return _CARD_MOVES[move](_card(frame.get("card")))
    if move == "defend":
        return Beat(_card(frame.get("card")), _int(frame.get("target")))
    raise BadFrame()


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
    if kind == "hello":
        init_data = frame.get("init_data")
        if not isinstance(init_data, str):
            raise BadFrame()
        return Hello(init_data)
    if kind == "move":
        return Move(_int(frame.get("id")), _int(frame.get("version")), _tap(frame))
    if kind == "join":
        return Join(_int(frame.get("id")))
    if kind == "again":
        return Again(_int(frame.get("id")))
    raise BadFrame()
