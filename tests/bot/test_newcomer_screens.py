"""What a new player reads on his game message (issue 16), through the real bot and the emulator,
in English and Russian: the cards he may transfer with, nothing to throw in, the round closing,
who leads and why (R3), where the trump card went when every card was dealt (R2.3), a clock
that never claims more time than is left, and the last moves after a restart.

Each table is set up as a bot that stopped would have left it (its deal and log in the database),
and the bot then starts on it: so each screen is the one a player sees, on a deal the test
chose, with nothing inside the bot replaced.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import re
import time
from collections.abc import AsyncIterator, Callable

import pytest

from engine import Game, Rules
from tests.bot.conftest import ALICE, game_message, settings_for
from tests.helpers.deals import PASS, attack, deal, defend
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram
from tg_durak.play.ratings import rate
from tg_durak.play.rows import SeatRow, TableChange
from tg_durak.storage import Store

ALISA = 503   # a Russian-speaking newcomer
PERSON = {"en": ALICE, "ru": ALISA}
COMPUTER = {"en": "🤖 Computer {n} (Normal)", "ru": "🤖 Компьютер {n} (Средний)"}
LABEL = re.compile(r"⏳ \S+ (\d+) (?:s|с)$", re.M)


def full_deal(*hands: str, bottom: str, **options: object) -> Game:
    """A deal of the whole 36-card deck: the hands as given, `bottom` face up under the stock and
    the other cards above it (a computer reasons about every card it has not seen)."""
    used = set(" ".join(hands).split()) | {bottom}
    ranks = ["6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    rest = [f"{rank}{suit}" for suit in "shdc" for rank in ranks
            if f"{rank}{suit}" not in used]
    return deal(*hands, stock=" ".join([*rest, bottom]), **options)


def c(text: str) -> str:
    """A card as the screens spell it: 7♠ -> 7♠️ (the suit drawn as an emoji)."""
    return text + "\ufe0f"


class Table:
    """A person's private table against computers, stored as the bot keeps it, and the bot
    started on it."""

    def __init__(self, tg: FakeTelegram, db_path: str, lang: str) -> None:
        self.tg, self.db_path, self.lang, self.user = tg, db_path, lang, PERSON[lang]
        self.settings = settings_for(tg, db_path)
        self.app: BotApp | None = None
        self.id = 0

    async def start(self, game: Game, time_scale: float | None = None, seat: int = 0,
                    opened: bool = True) -> None:
        """`seat`: where the person sits; the others are computers. `opened`: he has written
        to the bot before (a bot may not open a private chat itself)."""
        if opened:
            first = BotApp(self.settings)
            await first.start()
            await self.tg.send_text(self.user, "/start")
            await self.tg.wait_for(lambda: self.tg.last_message(self.user) is not None,
                                   timeout=60)
            await first.stop()
        await self._store(game, seat)
        settings = self.settings
        if time_scale is not None:
            settings = dataclasses.replace(settings, time_scale=time_scale)
        self.app = BotApp(settings)
        await self.app.start()

    async def _store(self, game: Game, person: int) -> None:
        seats = [SeatRow(s, self.user, "Alice") if s == person else SeatRow(s, None, "", "normal")
                 for s in range(game.players)]
        store = await Store.open(self.db_path, rate=rate)
        try:
            # He has used the bot before (it knows his language), whether it may write to him
            # now or not.
            await store.users.ensure(self.user, "Alice")
            await store.users.set_language(self.user, self.lang)
            row = await store.tables.create(self.user, "private", "running", {}, seats,
                                            game.rewound(0).to_dict(log=False))
            self.id = row.id
            if game.log:
                await store.tables.record(TableChange(
                    row.id, 0, [Game.entry_to_json(e) for e in game.log],
                    game.to_dict(log=False), "running", []))
        finally:
            await store.close()

    async def screen(self, predicate: Callable[[str], bool] = bool, timeout: float = 60):
        """His game message once its text satisfies `predicate`."""
        def ready():
            m = game_message(self.tg, self.user)
            return m if m is not None and predicate(m.text) else None
        return await self.tg.wait_for(ready, timeout=timeout)

    async def stored_game(self) -> Game:
        store = await Store.open(self.db_path, rate=rate)
        try:
            row = await store.tables.get(self.id)
            return Game.from_dict({**row.snapshot, "log": await store.tables.log(self.id)})
        finally:
            await store.close()


@pytest.fixture(params=["en", "ru"])
async def table(request, tg: FakeTelegram, db_path: str) -> AsyncIterator[Table]:
    tg.add_user(ALISA, "Алиса", language_code="ru")
    t = Table(tg, db_path, request.param)
    yield t
    if t.app is not None:
        await t.app.stop()


def buttons(message) -> list[str]:
    return [b.text for row in message.buttons for b in row]


async def test_cards_one_may_transfer_with_are_marked(table: Table) -> None:
    now = time.time()
    game = full_deal("7h 9c Jd Qh As Kd", "7s 8s 9s 10h Ks Ah", bottom="6d",
                first_attacker=1, now=now, variant="transfer")
    game.apply(1, attack("7s"), now)
    await table.start(game)
    message = await table.screen(lambda text: "7♠" in text)
    marked = [b for b in buttons(message) if "⇄" in b]
    assert marked == [f"⇄{c('7♥')}"], buttons(message)   # 7♥ beats nothing: it transfers
    assert {"en": "You defend: beat the cards, transfer or take.",
            "ru": "Ты отбиваешься: бей, переводи или бери."}[table.lang] in message.text


async def test_an_attacker_with_nothing_to_throw_in_is_told_so_and_that_the_round_closes(
        table: Table) -> None:
    now = time.time()
    game = full_deal("6s 9c Jd Qh As Kd", "7s 8s 9s 10h Ks Ah", bottom="6d",
                first_attacker=0, now=now, close_grace_seconds=3.0)
    game.apply(0, attack("6s"), now)
    game.apply(1, defend("7s", 0), now)
    assert game.legal_actions(0) == [PASS], "the deal leaves her nothing to throw in"
    await table.start(game)
    # Nobody can throw in: the grace runs at once, and the bar that ran for seconds says why it
    # is nearly empty.
    nothing, closing, beaten = {
        "en": ("You · 5 cards · nothing to throw in", "nobody throws in more: the round closes",
               "Beaten: the cards go to the discard pile."),
        "ru": ("Ты · 5 карт · подкинуть нечего",
               "подкидывать больше некому — раунд закрывается", "Бито: карты уходят в отбой."),
    }[table.lang]
    await table.screen(lambda text: nothing in text and closing in text)
    message = await table.screen(lambda text: beaten in text)
    assert closing not in message.text


def _new_game(rules: Rules, wanted: Callable[[Game], bool]) -> Game:
    """The first shuffled deal (by seed) that `wanted` accepts."""
    now = time.time()
    return next(g for seed in itertools.count() if wanted(g := Game.new(rules, seed, now)))


@pytest.mark.parametrize("leader", ["person", "computer"])
async def test_the_first_screen_says_who_leads_and_which_trump_decided_it(
        table: Table, leader: str) -> None:
    seat = 0 if leader == "person" else 1
    game = _new_game(Rules(players=2), lambda g: g.opening() is not None
                     and g.opening()[0] == seat)
    trump = c(str(game.opening()[1]))
    await table.start(game)
    line = {("en", "person"): f"You lead first: the lowest trump, {trump}",
            ("ru", "person"): f"Первым ходишь ты: младший козырь — {trump}",
            ("en", "computer"): f"{COMPUTER['en'].format(n=1)} leads first: the lowest trump, "
                                f"{trump}",
            ("ru", "computer"): f"Первым ходит {COMPUTER['ru'].format(n=1)}: младший козырь — "
                                f"{trump}"}[table.lang, leader]
    await table.screen(lambda text: line in text)


async def test_without_trumps_in_hand_the_lowest_card_leads(table: Table) -> None:
    game = full_deal("7s 9h Jd Qh As Kd", "8s 6h 9s 10h Ks Ah", bottom="6c",
                first_attacker=None, now=time.time())
    await table.start(game)
    line = {"en": f"{COMPUTER['en'].format(n=1)} leads first: nobody holds a trump, and the "
                  f"lowest card is {c('6♥')}",
            "ru": f"Первым ходит {COMPUTER['ru'].format(n=1)}: козырей ни у кого нет, младшая "
                  f"карта — {c('6♥')}"}[table.lang]
    await table.screen(lambda text: line in text)


@pytest.mark.parametrize("person", [3, 0])
async def test_with_every_card_dealt_the_screen_says_who_holds_the_trump_card(
        table: Table, person: int) -> None:
    # Four players and 24 cards leave no stock: the last card dealt, to the fourth seat, names
    # trump (R2.3). Where a computer holds it, she leads, so that nobody plays it yet.
    game = _new_game(Rules(players=4, deck=24),
                     lambda g: person == 3 or g.opening()[0] == person)
    assert game.stock_count == 0 and game.view(0).trump_holder == 3
    trump = c(str(game.view(0).named_trump))
    await table.start(game, seat=person)
    held = {("en", 3): f"Trump {trump}, in your hand",
            ("ru", 3): f"Козырь {trump} — у тебя",
            ("en", 0): f"Trump {trump}, held by {COMPUTER['en'].format(n=3)}",
            ("ru", 0): f"Козырь {trump} — у игрока {COMPUTER['ru'].format(n=3)}"
            }[table.lang, person]
    await table.screen(lambda text: text.startswith(held))


async def test_the_last_moves_and_who_played_each_card_survive_a_restart(table: Table) -> None:
    now = time.time()
    # Her window to throw in more is a real minute: on a busy machine the tests' quick
    # clock could close it before her screen is read, and "Beaten" would push a move out.
    game = full_deal("6s 7h 9c Jd Qh As", "7s 8h 9s 10h Ks Ah", bottom="6d",
                first_attacker=0, now=now, turn_seconds=60.0)
    game.apply(0, attack("6s"), now)
    game.apply(1, defend("7s", 0), now)
    game.apply(0, attack("7h"), now)
    game.apply(1, defend("8h", 1), now)
    await table.start(game, time_scale=1.0)
    you, bot = {"en": ("You", COMPUTER["en"].format(n=1)),
                "ru": ("Ты", COMPUTER["ru"].format(n=1))}[table.lang]
    told = {"en": [f"{bot} beats {c('6♠')} with {c('7♠')}", f"You throw in {c('7♥')}",
                   f"{bot} beats {c('7♥')} with {c('8♥')}"],
            "ru": [f"{bot} бьёт {c('6♠')} картой {c('7♠')}", f"Ты подкидываешь {c('7♥')}",
                   f"{bot} бьёт {c('7♥')} картой {c('8♥')}"]}[table.lang]
    message = await table.screen(lambda text: told[-1] in text)
    assert [line for line in told if line in message.text] == told, message.text
    assert f"{c('6♠')} → {c('7♠')}   {you}" in message.text, "who led the card"
    assert f"{c('7♥')} → {c('8♥')}   {you}" in message.text


async def test_the_clock_never_claims_more_time_than_is_left(table: Table,
                                                             tg: FakeTelegram) -> None:
    now = time.time()
    game = full_deal("6h 9c Jd Qh As Kd", "7s 8s 9s 10h Ks Ah", bottom="6d",
                first_attacker=1, now=now, turn_seconds=12.0)
    game.apply(1, attack("7s"), now)
    changes = tg.subscribe(table.user)
    await table.start(game, time_scale=1.0)
    message = await table.screen(lambda text: "⏳" in text)
    due = (await table.stored_game()).view(0).turn_due   # with the downtime given back (R10.4)
    claims: list[tuple[int, float]] = []
    while time.time() < due:
        try:
            change = await asyncio.wait_for(changes.get(), timeout=max(0.1, due - time.time()))
        except TimeoutError:
            break
        if change.message_id == message.message_id and change.kind in ("edit", "message"):
            text = tg.message(table.user, change.message_id).text
            claims += [(int(n), due - time.time()) for n in LABEL.findall(text)]
    assert len(claims) >= 2, "the clock was redrawn as the turn ran"
    assert all(said <= left for said, left in claims), claims


async def test_a_person_the_bot_could_not_write_to_at_its_start_gets_his_game_when_he_writes(
        table: Table, tg: FakeTelegram) -> None:
    now = time.time()
    game = full_deal("7h 9c Jd Qh As Kd", "7s 8s 9s 10h Ks Ah", bottom="6d", first_attacker=1,
                     now=now, variant="transfer", turn_seconds=300.0)
    game.apply(1, attack("7s"), now)
    await table.start(game, opened=False)
    await tg.wait_for(lambda: [c for c in tg.calls_to("sendMessage")
                               if c.params.get("chat_id") == table.user and c.error_code == 403],
                      timeout=60)   # his screen, refused: a computer plays for him
    await tg.send_text(table.user, "/start")
    message = await table.screen(lambda text: "7♠" in text)
    mine = message.text.rsplit("\n", 1)[-1]
    assert mine == {"en": "You · 6 cards · defending", "ru": "Ты · 6 карт · отбиваешься"}[
        table.lang], "his seat is his again, not a computer's"
    await tg.press(table.user, message, {"en": "Take", "ru": "Беру"}[table.lang], timeout=60)
    taken = {"en": "You take", "ru": "Ты берёшь"}[table.lang]
    await table.screen(lambda text: taken in text)
