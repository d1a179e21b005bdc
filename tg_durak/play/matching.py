"""Quick games: who waits for which game, and who sits down together (pure: no SQL, no I/O).

A person in the quick-game queue waits for one game: the variant, the number of players and the
deck (`QuickGame`). A table opens as soon as enough people wait for the same game, the earliest
in the queue first, and never seats two people one of whom reported the other (nor anyone an
operator banned: the store leaves those out of the queue it hands here). A person who waited as
long as he chose may start at once: then whoever else waits for his game and may sit with him
comes along, and computers take the seats still empty.

The quick games' tables and ratings live in a scope of their own, `QUICK_CHAT`: the chat id of
their table rows (Telegram's chats are never 0). Their players' table of ratings is that scope's.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum

from engine import MAX_PLAYERS, Variant
from engine.rules import DECKS, SMALL_DECK_PLAYERS
from tg_durak.play.options import TableOptions

QUICK_CHAT = 0   # the chat id of every quick game's table: no Telegram chat has it
MIN_PLAYERS = 2
WAITS = (15, 30, 60)   # seconds a person may choose to wait before computers may fill in
DEFAULT_WAIT = 30
# How far down the queue a match looks: enough for any table once a few are blocked, and a
# bound on the search when many people wait.
LOOK_AHEAD = 64
_SEPARATOR = "/"


class ReportReason(StrEnum):
    """Why a person reported another after a quick game (stored in `quick_reports.reason`)."""

    LEFT = "left"   # left the game on purpose
    NAME = "name"   # an offensive name


@dataclass(frozen=True)
class QuickGame:
    """The game a person waits for: what must be equal for people to sit down together."""

    variant: Variant = Variant.THROW_IN
    players: int = 2
    deck: int = 36

    def __post_init__(self) -> None:
        if self.deck not in DECKS:
            raise ValueError(f"deck must be one of {DECKS}")
        most = SMALL_DECK_PLAYERS if self.deck == min(DECKS) else MAX_PLAYERS
        if not MIN_PLAYERS <= self.players <= most:
            raise ValueError(f"a {self.deck}-card deck seats {MIN_PLAYERS} to {most} players")

    @property
    def key(self) -> str:
        """The queue's name of the game (stored, and matched on)."""
        return _SEPARATOR.join((self.variant.value, str(self.players), str(self.deck)))

    @property
    def options(self) -> TableOptions:
        """The table options of the game: the usual ones, with its variant and deck."""
        return TableOptions(variant=self.variant, deck=self.deck)

    @classmethod
    def of_key(cls, key: str) -> QuickGame:
        """The game a stored key names; ValueError if it names none."""
        variant, players, deck = key.split(_SEPARATOR)
        return cls(Variant(variant), int(players), int(deck))

    @classmethod
    def fitting(cls, variant: Variant, players: int, deck: int) -> QuickGame:
        """The game chosen with the latest choice winning: too many players for a small deck
        bring back the usual one (as the private setup does)."""
        if deck == min(DECKS) and players > SMALL_DECK_PLAYERS:
            deck = cls.deck
        return cls(variant, players, deck)


Pair = frozenset[int]


def blocked_pairs(reports: Collection[tuple[int, int]]) -> frozenset[Pair]:
    """The pairs who never sit together: each report blocks both ways."""
    return frozenset(frozenset(pair) for pair in reports if pair[0] != pair[1])


def match(queue: Sequence[int], seats: int, blocked: Collection[Pair],
          first: int | None = None) -> tuple[int, ...] | None:
    """The people of `queue` (in the order they joined) who sit down together now, or None.

    Without `first`: `seats` people of whom no two are a blocked pair, the earliest joiners
    preferred (the first such group in the queue's order). With `first` (he waited long enough
    and starts now): `first` and as many others as fit, up to `seats`, so that computers take
    only the seats nobody waiting could; None if `first` is not in the queue.
    """
    people = list(dict.fromkeys(queue))[:LOOK_AHEAD]
    if first is None:
        return _first_group([], people, seats, blocked)
    if first not in people:
        return None
    others = [p for p in people if p != first and frozenset((first, p)) not in blocked]
    for size in range(seats, 0, -1):
        group = _first_group([first], others, size, blocked)
        if group is not None:
            return group
    return (first,)


def _first_group(chosen: list[int], rest: Sequence[int], size: int,
                 blocked: Collection[Pair]) -> tuple[int, ...] | None:
    """`chosen` grown to `size` people with the earliest of `rest` that fit (no blocked pair
    among them), or None if no such group exists."""
    if len(chosen) == size:
        return tuple(chosen)
    for i, person in enumerate(rest):
        if len(chosen) + len(rest) - i < size:
            return None   # too few people left to fill the table
        if all(frozenset((person, other)) not in blocked for other in chosen):
            group = _first_group([*chosen, person], rest[i + 1:], size, blocked)
            if group is not None:
                return group
    return None


@dataclass(frozen=True)
class QueueEntry:
    """One person waiting in the quick-game queue (a row of `quick_queue`)."""

    user_id: int
    game: QuickGame
    name: str
    chat_id: int              # his waiting message: its chat (his private chat) ...
    message_id: int | None    # ... and id; None: he joined in the Mini App, which shows it
    joined_at: float
    wait_until: float         # from then on he may start with computers


def counts(queue: Sequence[QueueEntry]) -> dict[str, int]:
    """How many wait for each game (by its key): what each waiting message shows."""
    found: dict[str, int] = {}
    for entry in queue:
        found[entry.game.key] = found.get(entry.game.key, 0) + 1
    return found


@dataclass(frozen=True)
class QueuePlace:
    """What a person waiting is shown of the queue: his game, how many wait for it (himself
    too), whether his wait is over (he may start with computers), and when it began and ends."""

    game: QuickGame
    waiting: int
    may_start: bool
    joined_at: float
    wait_until: float


def places(queue: Sequence[QueueEntry], now: float) -> dict[int, QueuePlace]:
    """Each waiting person's place, by his user id."""
    waiting = counts(queue)
    return {e.user_id: QueuePlace(e.game, waiting[e.game.key], e.wait_until <= now,
                                  e.joined_at, e.wait_until)
            for e in queue}
