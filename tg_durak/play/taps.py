"""What a tap on the game message means: an engine move, or a change of what the player chooses.

Pure: a tap (parsed by its handler from the button's callback data) and the player's position
(his view, his legal moves, what he is in the middle of choosing) go in; an `TapOutcome` comes out.
The table service applies it. A defender's card that beats several attack cards asks for the
target; "Transfer" asks for the card when several fit (issue 4, "The player's side").
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from engine import Action, Card, Phase
from engine.actions import PASS, TAKE, ActionKind
from engine.cards import CARDS
from tg_durak.play.answers import OK, Answer


@dataclass(frozen=True)
class Choosing:
    """What one player is in the middle of choosing; screen state, never game state."""

    card: Card | None = None   # a defence card waiting for its target
    transfer: bool = False     # picking the card to transfer with


UNKNOWN = Answer("tap.unknown", alert=True)


@dataclass(frozen=True)
class Choose:
    """The player now chooses `state`; the game does not change."""

    state: Choosing
    reply: Answer = OK


TapOutcome = Action | Choose | Answer  # a Answer alone refuses the tap


class TableSide(Protocol):
    """What a tap reads of the screen it was pressed on: a `PlayerView` is one."""

    @property
    def seat(self) -> int: ...
    @property
    def defender(self) -> int: ...
    @property
    def phase(self) -> str: ...
    @property
    def table(self) -> Sequence[tuple[Card, Card | None]]: ...


@dataclass(frozen=True)
class Position:
    """What a tap is read against: one player's side of the table."""

    view: TableSide
    legal: Sequence[Action]
    choosing: Choosing = Choosing()


class Tap(ABC):
    """A tap on one kind of game button."""

    @abstractmethod
    def outcome(self, at: Position) -> TapOutcome:
        """The move this tap makes, the choice it opens, or the reason it is refused."""


@dataclass(frozen=True)
class Take(Tap):
    def outcome(self, at: Position) -> TapOutcome:
        return TAKE


@dataclass(frozen=True)
class Pass(Tap):
    def outcome(self, at: Position) -> TapOutcome:
        return PASS


@dataclass(frozen=True)
class Cancel(Tap):
    def outcome(self, at: Position) -> TapOutcome:
        return Choose(Choosing())


@dataclass(frozen=True)
class TransferMode(Tap):
    def outcome(self, at: Position) -> TapOutcome:
        fits = [a for a in at.legal if a.kind == ActionKind.TRANSFER]
        if len(fits) == 1:
            return fits[0]
        if not fits:
            return Answer("tap.cannot_transfer", alert=True)
        return Choose(Choosing(transfer=True), Answer("tap.choose_transfer"))


@dataclass(frozen=True)
class _CardTap(Tap):
    card: int   # the card's index as the button sent it; anything else is a forged button

    def outcome(self, at: Position) -> TapOutcome:
        if not 0 <= self.card < len(CARDS):
            return UNKNOWN
        return self.with_card(CARDS[self.card], at)

    @abstractmethod
    def with_card(self, card: Card, at: Position) -> TapOutcome:
        """The outcome once the card is known to exist."""


@dataclass(frozen=True)
class PlayCard(_CardTap):
    """A card from the hand: an attack or throw-in, a defence, or the card to transfer with."""

    def with_card(self, card: Card, at: Position) -> TapOutcome:
        view = at.view
        if at.choosing.transfer:
            return Action(ActionKind.TRANSFER, card)
        if not (view.seat == view.defender and view.phase == Phase.DEFEND):
            return Action(ActionKind.ATTACK, card)
        targets = [a.target for a in at.legal if a.kind == ActionKind.DEFEND and a.card is card]
        if len(targets) == 1:
            return Action(ActionKind.DEFEND, card, targets[0])
        if targets:
            return Choose(Choosing(card=card), Answer("tap.choose_target"))
        first_open = next(i for i, (_, beaten_by) in enumerate(view.table) if beaten_by is None)
        return Action(ActionKind.DEFEND, card, first_open)  # the engine says why it cannot


@dataclass(frozen=True)
class Attack(PlayCard):
    """A card from the hand laid as an attack or throw-in (the Mini App says which move it
    means; a chooser left open in the chat does not change it)."""

    def with_card(self, card: Card, at: Position) -> TapOutcome:
        return Action(ActionKind.ATTACK, card)


@dataclass(frozen=True)
class Beat(_CardTap):
    """A defence card with the attack card (its index on the table) it beats."""

    target: int

    def with_card(self, card: Card, at: Position) -> TapOutcome:
        return Action(ActionKind.DEFEND, card, self.target)


@dataclass(frozen=True)
class TransferWith(_CardTap):
    def with_card(self, card: Card, at: Position) -> TapOutcome:
        return Action(ActionKind.TRANSFER, card)


@dataclass(frozen=True)
class ShowTrump(_CardTap):
    def with_card(self, card: Card, at: Position) -> TapOutcome:
        return Action(ActionKind.SHOW_TRUMP, card)


@dataclass(frozen=True)
class AppMove:
    """One kind of move as the Mini App sends it: the tap it is read into, from the fields the
    frame carries (in this order)."""

    tap: Callable[..., Tap]
    card: bool = False     # the card played, as its code ("10h")
    target: bool = False   # the attack card it beats, by its index on the table


# The moves a page may send, by the engine's names: read into taps by webapp/frames.py, offered
# in the page's `legal` list by render/app_state.py. A new kind of move is one more line here and
# its row in the page's MOVE_KINDS (static/js/moves.js; tests/webapp/test_page_protocol.py).
APP_MOVES: dict[str, AppMove] = {
    ActionKind.ATTACK: AppMove(Attack, card=True),
    ActionKind.DEFEND: AppMove(Beat, card=True, target=True),
    ActionKind.TRANSFER: AppMove(TransferWith, card=True),
    ActionKind.SHOW_TRUMP: AppMove(ShowTrump, card=True),
    ActionKind.TAKE: AppMove(Take),
    ActionKind.PASS: AppMove(Pass),
}
