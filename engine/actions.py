"""Actions a seat can take, events the engine reports, and the error for an illegal move."""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from engine.cards import CARDS, Card


class ActionKind(StrEnum):
    ATTACK = "attack"          # a lead, or a throw-in (R5)
    DEFEND = "defend"          # the card beats table[target] (R4, R6.1)
    TRANSFER = "transfer"      # R9.1
    SHOW_TRUMP = "show_trump"  # R9.7
    TAKE = "take"              # R6.2
    PASS = "pass"              # R5.4


class Action(NamedTuple):
    """One move. `target` is the index into `game.table` that a "defend" card beats."""

    kind: str
    card: Card | None = None
    target: int | None = None

    def __str__(self) -> str:
        parts = [self.kind]
        if self.card is not None:
            parts.append(str(self.card))
        if self.target is not None:
            parts.append(f"@{self.target}")
        return " ".join(parts)


class EventKind:
    """The kinds of Event, as plain str constants: the hot path makes an event at every move
    (reading an enum member costs ten times a class constant on Python 3.11)."""

    ATTACK = "attack"          # seat put card on the table (a lead or a throw-in)
    DEFEND = "defend"          # seat beat table[target] with card
    TRANSFER = "transfer"      # seat transferred with card; to_seat defends now
    SHOW_TRUMP = "show_trump"  # seat showed card to transfer; to_seat defends now
    TAKE = "take"              # seat (the defender) declared Take
    PASS = "pass"              # seat passed
    TIMEOUT = "timeout"        # seat's turn clock ran out; the engine moves for him next
    TAKEN = "taken"            # seat picked up the table's count cards
    BEATEN = "beaten"          # the round's count cards went to the discard
    DRAW = "draw"              # seat drew count cards from the stock
    OUT = "out"                # seat has no cards left with the stock empty: safe (R8.1)
    ROUND = "round"            # a round begins: seat attacks, to_seat defends
    OVER = "over"              # the game is over; seat is the durak (None: a draw)


class Event(NamedTuple):
    """Something that happened: what the app tells players ("Bot 2 transferred with 7♥")."""

    kind: str                    # an EventKind
    seat: int | None = None
    card: Card | None = None
    target: int | None = None    # the attack card a "defend" beat
    to_seat: int | None = None   # who defends after a "transfer", "show_trump" or at a "round"
    # Cards "taken", "beaten" or drawn ("draw"). The field hides tuple.count, which mypy
    # refuses; renaming it would change what every caller and every test reads.
    count: int | None = None  # type: ignore[assignment]


class Refusal:
    """Why a move is illegal; the app shows `illegal.<code>` in the player's language.

    Plain str constants, like EventKind: legality checks return them on the hot path.
    """

    GAME_OVER = "game_over"
    NO_SEAT = "no_seat"
    OUT = "out"
    BAD_ACTION = "bad_action"
    NOT_IN_HAND = "not_in_hand"
    NOT_YOUR_LEAD = "not_your_lead"
    DEFENDING = "defending"
    NOT_THROWER = "not_thrower"
    LIMIT = "limit"
    RANK_NOT_ON_TABLE = "rank_not_on_table"
    NOT_DEFENDER = "not_defender"
    TAKING = "taking"
    BAD_TARGET = "bad_target"
    ALREADY_BEATEN = "already_beaten"
    DOES_NOT_BEAT = "does_not_beat"
    ALL_BEATEN = "all_beaten"
    EMPTY_TABLE = "empty_table"
    ALREADY_PASSED = "already_passed"
    NO_TRANSFER = "no_transfer"
    NO_SHOW_TRUMP = "no_show_trump"
    STARTED_BEATING = "started_beating"
    MIXED_RANKS = "mixed_ranks"
    WRONG_RANK = "wrong_rank"
    NO_ONE_NEXT = "no_one_next"
    NOT_TRUMP = "not_trump"
    SHOWN_BEFORE = "shown_before"
    TRANSFER_LIMIT = "transfer_limit"
    TRANSFER_HAND = "transfer_hand"


# One way to transfer, as the game weighs it: (the refusal, else None; the card mask it
# allows, 0 when refused).
TransferVerdict = tuple[str | None, int]


# The English reason for each refusal; `{...}` fields come from IllegalMove's keywords.
MESSAGES: dict[str, str] = {
    Refusal.GAME_OVER: "The game is over.",
    Refusal.NO_SEAT: "You have no seat at this table.",
    Refusal.OUT: "You have left the game: you hold no cards.",
    Refusal.BAD_ACTION: "That is not a move.",
    Refusal.NOT_IN_HAND: "{card} is not in your hand.",
    Refusal.NOT_YOUR_LEAD: "It is not your turn to lead.",
    Refusal.DEFENDING: "You are defending: beat the cards or take.",
    Refusal.NOT_THROWER: "Only the defender's neighbours may throw in.",
    Refusal.LIMIT: "No more cards this round: the limit is {attack_limit}.",
    Refusal.RANK_NOT_ON_TABLE: "Throw in only ranks already on the table.",
    Refusal.NOT_DEFENDER: "You are not defending.",
    Refusal.TAKING: "You have decided to take the cards.",
    Refusal.BAD_TARGET: "Choose an attack card on the table.",
    Refusal.ALREADY_BEATEN: "That card is already beaten.",
    Refusal.DOES_NOT_BEAT: "{card} does not beat {target}.",
    Refusal.ALL_BEATEN: "Every card is beaten.",
    Refusal.EMPTY_TABLE: "Nothing is on the table yet.",
    Refusal.ALREADY_PASSED: "You have already passed.",
    Refusal.NO_TRANSFER: "This table plays the throw-in game: no transfers.",
    Refusal.NO_SHOW_TRUMP: "Showing a trump to transfer is off at this table.",
    Refusal.STARTED_BEATING: "You have started beating: defend or take.",
    Refusal.MIXED_RANKS: "The attack cards must all share one rank.",
    Refusal.WRONG_RANK: "Transfer with a card of the attack's rank.",
    Refusal.NO_ONE_NEXT: "There is nobody to transfer to.",
    Refusal.NOT_TRUMP: "Show a trump of the attack's rank.",
    Refusal.SHOWN_BEFORE: "You have already shown a trump this game.",
    Refusal.TRANSFER_LIMIT: "At most {round_limit} attack cards.",
    Refusal.TRANSFER_HAND: "The next player holds too few cards.",
}


class IllegalMove(ValueError):
    """A move the rules do not allow now; the message is a reason a player can read.

    `code` names the reason (a Refusal) so the app can show it in the player's language.
    """

    def __init__(self, code: str, **details: object) -> None:
        super().__init__(MESSAGES[code].format(**details))
        self.code = code


# Shared instances keep legal_actions() allocation-free on the hot path.
MAX_TABLE = 6
TAKE = Action(ActionKind.TAKE)
PASS = Action(ActionKind.PASS)
ATTACK = tuple(Action(ActionKind.ATTACK, c) for c in CARDS)
TRANSFER = tuple(Action(ActionKind.TRANSFER, c) for c in CARDS)
SHOW_TRUMP = tuple(Action(ActionKind.SHOW_TRUMP, c) for c in CARDS)
DEFEND = tuple(tuple(Action(ActionKind.DEFEND, c, t) for t in range(MAX_TABLE)) for c in CARDS)

# The ATTACK actions of each suit's 13-bit slice of a card mask, filled as slices are met.
_ATTACK_SLICES: tuple[dict[int, tuple[Action, ...]], ...] = ({}, {}, {}, {})


def attack_actions(cards: int) -> list[Action]:
    """The ATTACK action of every card in the mask `cards`, lowest index first (a lead)."""
    s0, s1, s2, s3 = _ATTACK_SLICES
    try:
        return [*s0[cards & 0x1FFF], *s1[cards >> 13 & 0x1FFF], *s2[cards >> 26 & 0x1FFF],
                *s3[cards >> 39]]
    except KeyError:
        for suit, slices in enumerate(_ATTACK_SLICES):
            part = cards >> 13 * suit & 0x1FFF
            slices[part] = tuple(ATTACK[13 * suit + i] for i in range(13) if part >> i & 1)
        return attack_actions(cards)
