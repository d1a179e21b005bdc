"""A group lobby's rules: its settings, who may do what, and what a tap on it means.

Pure: the table service reads a `Lobby` from the lobby's stored row, asks it whether a tap is
allowed (a refusal is a catalog key the tapper sees as an alert) and what the lobby becomes,
then writes the change. Seat order is join order; people and computers alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum

from engine import MIN_PLAYERS
from tg_durak.play.answers import Answer, refused
from tg_durak.play.options import LEVELS, OptionField, TableOptions, with_option
from tg_durak.play.rows import SeatRow, TableRow

LOBBY_SECONDS = 600.0      # an unstarted lobby closes after 10 minutes
DEFAULT_SEATS = 4
SEATS_KEY = "seats"        # the seat count, stored beside the table options
_SUPERGROUP_PREFIX = "-100"


class LobbyEnd(StrEnum):
    """Why a lobby closed unstarted (its texts' keys say it: lobby.<reason>.private)."""

    CANCELLED = "cancelled"   # by its host
    EXPIRED = "expired"       # LOBBY_SECONDS passed
    REMOVED = "removed"       # the bot left the group


@dataclass(frozen=True)
class LobbySettings:
    """The table's options and how many seats the lobby has (2 to what the deck allows)."""

    options: TableOptions = field(default_factory=TableOptions)
    seats: int = DEFAULT_SEATS

    def __post_init__(self) -> None:
        if not (type(self.seats) is int and MIN_PLAYERS <= self.seats <= self.max_seats):
            raise ValueError(f"seats must be {MIN_PLAYERS} to {self.max_seats}")

    @property
    def max_seats(self) -> int:
        return self.options.max_players

    def to_dict(self) -> dict:
        return {**self.options.to_dict(), SEATS_KEY: self.seats}

    @classmethod
    def from_dict(cls, d: dict | None) -> LobbySettings:
        """Whatever is readable is kept; the seats fit the deck."""
        d = d if isinstance(d, dict) else {}
        options = TableOptions.from_dict(d)
        seats = d.get(SEATS_KEY)
        if not (type(seats) is int and seats >= MIN_PLAYERS):
            seats = DEFAULT_SEATS
        return cls(options, min(seats, options.max_players))


@dataclass(frozen=True)
class Lobby:
    """One open lobby as stored: its host, its settings and who sits where."""

    table_id: int
    host_id: int
    settings: LobbySettings
    seated: tuple[SeatRow, ...]

    @classmethod
    def of(cls, row: TableRow) -> Lobby:
        return cls(row.id, row.host_id or 0, LobbySettings.from_dict(row.options), row.seats)

    @property
    def full(self) -> bool:
        return len(self.seated) >= self.settings.seats

    @property
    def people(self) -> tuple[int, ...]:
        return tuple(s.user_id for s in self.seated if s.user_id is not None)

    def seat_of(self, user_id: int) -> int | None:
        return next((s.seat for s in self.seated if s.user_id == user_id), None)

    def may_manage(self, user_id: int, admin: bool) -> bool:
        """Settings, Start and Cancel belong to the host and the chat's administrators."""
        return user_id == self.host_id or admin

    def join_refusal(self, user_id: int) -> Answer | None:
        if self.seat_of(user_id) is not None:
            return Answer("lobby.already_in")
        if self.full:
            return refused("lobby.full")
        return None

    def computer_refusal(self, level: str) -> Answer | None:
        if level not in LEVELS:
            return refused("tap.unknown")
        if self.full:
            return refused("lobby.full")
        return None

    def start_refusal(self, user_id: int, admin: bool) -> Answer | None:
        if not self.may_manage(user_id, admin):
            return refused("lobby.host_only")
        if len(self.seated) < MIN_PLAYERS:
            return refused("lobby.too_few")
        if not self.people:
            return refused("lobby.no_people")
        return None

    def with_option(self, field: OptionField, text: str) -> LobbySettings | Answer:
        """The settings with one option changed, or why not (a forged value, or a deck that
        seats fewer than are already seated)."""
        options = with_option(self.settings.options, field, text)
        if options is None:
            return refused("tap.unknown")
        if len(self.seated) > options.max_players:
            return refused("lobby.too_many_for_deck", n=options.max_players)
        return LobbySettings(options, min(self.settings.seats, options.max_players))

    def with_seats(self, text: str) -> LobbySettings | Answer:
        # isascii: '²' is a digit to str.isdigit, and no number to int()
        if not (text.isascii() and text.isdigit()) \
                or not MIN_PLAYERS <= int(text) <= self.settings.max_seats:
            return refused("tap.unknown")
        seats = int(text)
        if seats < len(self.seated):
            return refused("lobby.seats_taken", n=len(self.seated))
        return replace(self.settings, seats=seats)

    def final_seats(self) -> list[SeatRow]:
        """The seats as the game numbers them: 0.. in join order."""
        return [SeatRow(i, s.user_id, s.name, s.level) for i, s in enumerate(self.seated)]


def message_link(chat_id: int, message_id: int) -> str | None:
    """A link that opens a group's message: supergroups have one, basic groups none."""
    text = str(chat_id)
    if not text.startswith(_SUPERGROUP_PREFIX):
        return None
    return f"https://t.me/c/{text[len(_SUPERGROUP_PREFIX):]}/{message_id}"
