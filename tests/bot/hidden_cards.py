"""The cards nobody may read at a given moment (RULES R11), and a scan for them in what the bot
writes: its messages, its answers to taps and its log.

A player sees his own hand, the table, the trump card until it is drawn, how many cards each has,
and the cards revealed (taken from the table, a shown trump, the deciding lowest trump, the last
dealt card). So a private message of a player may show his own hand and nothing else that is
hidden; a group's message, an answer in a group and a log line may show nothing hidden at all.
Hidden: every card in another's hand that is not revealed, and every card in the stock but the
face-up trump at its bottom.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

from engine import Card, Game
from engine.cards import CARDS
from tg_durak.i18n.translate import LOCALES, translator
from tg_durak.render.cards import card_label
from tg_durak.tables.service import TableService

Reader = tuple[Game, int | None]   # a game and the seat reading it (None: everybody)


def labels(card: Card) -> Iterator[str]:
    """The card as the screens and the logs could write it."""
    yield str(card)
    for locale in LOCALES:
        yield card_label(card, translator(locale))


def hidden(game: Game, seat: int | None) -> set[Card]:
    """The cards `seat` (None: everybody) may not know now."""
    known = {c for cards in game.view(0).known for c in cards}
    cards = {c for s in range(game.rules.players) if s != seat for c in game.hand(s)}
    cards |= {CARDS[i] for i in game.stock} - {game.trump_card}
    return cards - known


class HiddenCards:
    """Checks text against the cards hidden from its reader at the moment it is checked.

    `game` alone: one table, every text read by everybody. With `tables`, the readers are found
    by chat: a group's running table, or the table where the chat's person sits (his seat
    reads); a chat where no game is known has nothing to hide, and a text with no chat (a log
    line) must hide every game's cards from everybody. A table that ends stays watched.
    """

    def __init__(self, tables: TableService | None = None) -> None:
        self.game: Game | None = None
        self.tables = tables
        self.readers: dict[int, Reader] = {}
        self.checked = 0
        self.leaks: list[tuple[str, str]] = []

    def check(self, where: str, text: str, chat_id: int | None = None) -> None:
        readers = self._readers(chat_id)
        if not readers:
            return
        self.checked += 1
        for game, seat in readers:
            self.leaks += [(where, label) for card in hidden(game, seat)
                           for label in labels(card) if label in text]

    def _readers(self, chat_id: int | None) -> list[Reader]:
        if self.game is not None:
            return [(self.game, None)]
        if chat_id is None:
            return [(game, None) for game, _ in self.readers.values()]
        reader = self._running(chat_id)
        if reader is not None:
            self.readers[chat_id] = reader
        return [self.readers[chat_id]] if chat_id in self.readers else []

    def _running(self, chat_id: int) -> Reader | None:
        for live in () if self.tables is None else self.tables.core.tables.values():
            if live.row.kind == "group" and live.row.chat_id == chat_id:
                return live.game, None
            seat = live.seat_of(chat_id)
            if seat is not None:
                return live.game, seat
        return None


class Watch(logging.Handler):
    """Checks every log record at INFO or above, traceback included, as it is written."""

    def __init__(self, cards: HiddenCards) -> None:
        super().__init__(logging.INFO)
        self.cards = cards

    def emit(self, record: logging.LogRecord) -> None:
        self.cards.check(f"log {record.name}", self.format(record))
