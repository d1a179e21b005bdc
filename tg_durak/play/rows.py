"""What the bot keeps about people, tables and results, as plain records.

The store reads and writes them; the pure layers (lobby rules, screens) read them without knowing
where they come from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from tg_durak.play.ratings import Rating, Result


class TableKind(StrEnum):
    PRIVATE = "private"   # one person against computers, in his private chat
    GROUP = "group"       # a group's table: a lobby first, then the game


class TableStatus(StrEnum):
    LOBBY = "lobby"         # a group's table before its start
    RUNNING = "running"
    FINISHED = "finished"   # played to its end
    ABORTED = "aborted"     # a lobby closed unstarted, or a table ended before its end


class SeatStatus(StrEnum):
    PLAYING = "playing"
    LEFT = "left"       # a computer plays the seat on
    KICKED = "kicked"   # removed by the table: a computer plays the seat on


@dataclass(frozen=True)
class UserRow:
    id: int
    name: str
    language: str | None
    settings: dict
    reachable: bool = False  # the bot may write to him privately (he has opened it)


@dataclass(frozen=True)
class SeatRow:
    seat: int
    user_id: int | None  # None: a computer player
    name: str
    level: str | None = None  # computer strength
    status: SeatStatus = SeatStatus.PLAYING

    @property
    def user(self) -> int:
        """The person of a person's seat (a computer's seat has none: a program's error)."""
        if self.user_id is None:
            raise ValueError(f"seat {self.seat} is a computer's")
        return self.user_id


@dataclass(frozen=True)
class TableRow:
    id: int
    chat_id: int
    kind: TableKind
    status: TableStatus
    options: dict
    snapshot: dict | None
    version: int
    seats: tuple[SeatRow, ...]
    created_at: float
    updated_at: float
    # Group tables: who opened the lobby, its forum topic, its deep-link payload, when the
    # unstarted lobby expires, and the language of the group's message.
    host_id: int | None = None
    thread_id: int | None = None
    invite: str | None = None
    expires_at: float | None = None
    language: str | None = None


@dataclass(frozen=True)
class TableChange:
    """What one move (or a few) does to a running table: ``entries`` appended to its log at
    ``expected_version``, the new ``snapshot``, and at its end the status and the results."""

    table_id: int
    expected_version: int
    entries: list
    snapshot: dict
    status: TableStatus = TableStatus.RUNNING
    results: Sequence[Result] = ()


@dataclass(frozen=True)
class TableRecord:
    """Everything stored about one table, read at one moment."""

    row: TableRow
    log: list[list]
    results: list[Result]


@dataclass(frozen=True)
class MessageRow:
    table_id: int
    user_id: int | None  # None: the group's public message
    chat_id: int
    message_id: int | str   # str: an inline message's inline_message_id (play/inline.py)


@dataclass(frozen=True)
class Stats:
    games: int
    durak: int
    safe: int
    draws: int
    resigned: int


@dataclass(frozen=True)
class PlayerRecord:
    people: Stats  # rated games (against people)
    computers: Stats  # games that moved no rating (against computers alone)
    rating: Rating | None  # None before the first rated game


@dataclass(frozen=True)
class Standing:
    """One line of a chat's table of players."""

    position: int  # 1 the best
    user_id: int
    name: str
    rating: int  # the shown number
    games: int  # rated games
    durak: int  # of them, times the durak


@dataclass(frozen=True)
class Rebuilt:
    people: int
    tables: int
