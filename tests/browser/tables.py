"""A person's private table at a position the test chose: its deal (and moves) stored as a bot
that stopped would have left it, then the bot started on it, as tests/bot/test_newcomer_screens.py
sets up the chat's screens. The person has written to the bot before, so the bot brings him his
game message, with the button that opens the app.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from engine import Action, Game, Rules
from tests.helpers.deals import deal
from tg_durak.emulator import FakeTelegram
from tg_durak.emulator.models import Message
from tg_durak.i18n.translate import translator
from tg_durak.play.ratings import rate
from tg_durak.play.rows import SeatRow, TableChange, TableKind, TableStatus
from tg_durak.storage import Store

RANKS = ["6", "7", "8", "9", "10", "J", "Q", "K", "A"]
DECK = [rank + suit for suit in "shdc" for rank in RANKS]   # 36 cards


def full_deal(*hands: str, bottom: str, **options: object) -> Game:
    """The hands as given, `bottom` face up under the stock, every other card above it: the whole
    deck, as a computer reasons about it (it samples the cards it has not seen)."""
    used = set(" ".join(hands).split()) | {bottom}
    rest = [c for c in DECK if c not in used]
    return deal(*hands, stock=" ".join([*rest, bottom]), **options)


@dataclass(frozen=True)
class Person:
    user_id: int
    name: str
    language: str = "en"

    @property
    def table_button(self) -> str:
        """The game message's button that opens the app, in his language."""
        return translator(self.language)("button.table")


async def store_table(db_path: str, game: Game, person: Person, seat: int = 0,
                      level: str = "normal") -> int:
    """The game stored as a running private table: `person` at `seat`, computers of `level` at
    the others. Returns the table's id."""
    seats = [SeatRow(s, person.user_id, person.name) if s == seat else
             SeatRow(s, None, "", level) for s in range(game.players)]
    store = await Store.open(db_path, rate=rate)
    try:
        await store.users.ensure(person.user_id, person.name, person.language)
        row = await store.tables.create(person.user_id, TableKind.PRIVATE, TableStatus.RUNNING,
                                        {}, seats, game.rewound(0).to_dict(log=False))
        if game.log:
            await store.tables.record(TableChange(
                row.id, 0, [Game.entry_to_json(e) for e in game.log], game.to_dict(log=False),
                TableStatus.RUNNING, []))
        return row.id
    finally:
        await store.close()


async def has_written(tg: FakeTelegram, person: Person) -> None:
    """He opened the bot's chat (before the bot starts: it reads the /start when it does)."""
    tg.add_user(person.user_id, person.name, language_code=person.language)
    await tg.send_text(person.user_id, "/start")


def game_message(tg: FakeTelegram, person: Person) -> Message | None:
    """His newest message with the app's button."""
    for m in reversed(tg.messages(person.user_id)):
        if any(b.text == person.table_button and b.web_app for row in m.buttons for b in row):
            return m
    return None


def launch_url(tg: FakeTelegram, person: Person, message: Message, **launch: object) -> str:
    return tg.open_web_app(person.user_id, message, person.table_button, **launch)


def _first(game: Game, seat: int, kind: str, trumps: bool = False) -> Action | None:
    """The seat's lowest legal move of `kind`, of a plain suit unless `trumps`."""
    moves = [a for a in game.legal_actions(seat) if a.kind == kind and a.card is not None
             and (trumps or a.card.suit != game.view(seat).trump_suit)]
    return min(moves, key=lambda a: a.card.rank) if moves else None


def six_players_mid_round(now: float) -> Game:
    """Six at a 36-card table: the whole deck dealt, so the card that named trump is in the last
    seat's hand (R2.3); that computer led, the person (seat 0) beat it, another card was thrown
    in, and the person is to beat it and can. The first shuffle (by seed) that allows it."""
    for seed in itertools.count():
        game = Game.new(Rules(players=6), seed, now)
        lead = _first(game, 5, "attack")
        if lead is None or game.view(0).trump_holder != 5:
            continue
        game.apply(5, lead, now)
        beat = _first(game, 0, "defend")
        if beat is None:
            continue
        game.apply(0, beat, now)
        throw = next(((s, a) for s in (1, 5, 4) if (a := _first(game, s, "attack"))), None)
        if throw is None:
            continue
        game.apply(*throw, now)
        if _first(game, 0, "defend", trumps=True) is not None:
            return game
    raise AssertionError("unreachable: itertools.count() never ends")
