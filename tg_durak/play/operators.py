"""The operators' records (DURAK_OPERATORS): what they did, bans, broadcasts and their progress,
the bot's figures for /opstats. Plain values, as the store reads and writes them."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from tg_durak.play.answers import Answer, refused

# A broadcast goes to everyone who used the bot this many days back.
AUDIENCE_DAYS = 90


def minutes_of(seconds: float) -> int:
    """Whole minutes, rounded up: "1 min" until the last second."""
    return max(1, math.ceil(seconds / 60))


def maintenance_refusal(left: float) -> Answer:
    """What someone who wants a new game reads while maintenance is on (`left`: seconds,
    math.inf: until an operator switches it off)."""
    if left == math.inf:
        return refused("maintenance.notice_open")
    return refused("maintenance.notice", minutes=minutes_of(left))


class OperatorAction(StrEnum):
    """What the operator log records."""

    BAN = "ban"
    UNBAN = "unban"
    MAINTENANCE_ON = "maintenance_on"
    MAINTENANCE_OFF = "maintenance_off"
    BROADCAST_DRAFT = "broadcast_draft"
    BROADCAST_SEND = "broadcast_send"
    BROADCAST_CANCEL = "broadcast_cancel"
    BROADCAST_STOP = "broadcast_stop"
    OPSTATS = "opstats"


class BroadcastStatus(StrEnum):
    DRAFT = "draft"           # shown to its operator, not confirmed yet
    SENDING = "sending"       # confirmed: some process sends it
    STOPPED = "stopped"       # /broadcast stop
    DONE = "done"             # nobody left waiting
    CANCELLED = "cancelled"   # the draft's Cancel


class RecipientState(StrEnum):
    WAITING = "waiting"
    SENDING = "sending"   # handed to Telegram: stored before the request goes
    SENT = "sent"
    FAILED = "failed"     # Telegram refused it (he blocked the bot meanwhile, say)
    UNKNOWN = "unknown"   # its process died with it in flight: never sent again


@dataclass(frozen=True)
class BroadcastRow:
    id: int
    operator: int
    text: str
    status: BroadcastStatus
    message_id: int | None   # the operator's progress message


@dataclass(frozen=True)
class Progress:
    """How far a broadcast went: its recipients by state."""

    broadcast: BroadcastRow
    counts: dict[RecipientState, int]

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def count(self, state: RecipientState) -> int:
        return self.counts.get(state, 0)


@dataclass(frozen=True)
class BotFigures:
    """/opstats: the shared database's figures and this process's last hour."""

    tables_running: int
    lobbies_open: int
    players_today: int
    players_week: int
    processes_alive: int
    errors_429: int            # this process, the last hour
    answer_p99: float | None   # seconds; None: no update answered in the last hour
    maintenance_minutes: int | None   # minutes left (0: until switched off); None: off
    banned: int
