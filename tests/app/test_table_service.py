"""TableService without Telegram: a real store, and a fake publisher, computers, clock and timer.

Every change goes lock → engine → store → schedule → publish; these tests check each step's
result from the outside: what was stored (the log replays to the snapshot), what was shown, and
when the table asked to be woken.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import pytest

from engine import Action, Card, Game, PlayerView, Rules
from tests.store.helpers import ONE_PROCESS
from tg_durak.i18n.translate import translator
from tg_durak.outbox.queue import Priority
from tg_durak.outbox.reports import MessageSent, OutboxReports
from tg_durak.play.answers import Answer
from tg_durak.play.options import PlaySettings
from tg_durak.play.ratings import Outcome
from tg_durak.play.rows import SeatRow, TableRow, TableStatus
from tg_durak.play.taps import Cancel, Pass, PlayCard, Take, TransferMode, TransferWith
from tg_durak.render.callbacks import MenuAction, Verb
from tg_durak.render.cards import card_label
from tg_durak.render.screen import Screen
from tg_durak.storage import Store
from tg_durak.tables.reactions import BRISK
from tg_durak.tables.restart import HEARTBEAT_KEY
from tg_durak.tables.screens import NO_LINKS, ChatLinks
from tg_durak.tables.service import TableService
from tg_durak.telegram.callbacks import MenuCallback

USER, STRANGER = 7, 8
START = 1_700_000_000.0
ONE_COMPUTER = PlaySettings.from_dict({"variant": "throw-in", "bots": 1, "level": "normal"})


def same_time(t: float) -> object:
    """Equal to wall time `t` up to float rounding (approx's default tolerance is relative:
    about half an hour around an epoch time)."""
    return pytest.approx(t, rel=0, abs=1e-6)


class FakeClock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@dataclass(frozen=True)
class Shown:
    key: object
    chat_id: int
    message_id: int | None
    screen: Screen
    priority: Priority
    thread_id: int | None = None


@dataclass
class FakePublisher:
    shown: list[Shown] = field(default_factory=list)
    spare: bool = True   # the bot-wide budget has room for a timer bar

    def has_spare_budget(self) -> bool:
        return self.spare

    def show(self, key: object, chat_id: int, message_id: int | None, screen: Screen, *,
             priority: Priority = Priority.PLAYER, thread_id: int | None = None) -> None:
        self.shown.append(Shown(key, chat_id, message_id, screen, priority, thread_id))


@dataclass
class FakeComputers:
    """Plays the first legal move at once and remembers who was asked what."""

    asked: list[tuple[str, int, Action]] = field(default_factory=list)

    async def choose(self, level: str, view: PlayerView, legal: list[Action],
                     seed: str) -> Action:
        self.asked.append((level, view.seat, legal[0]))
        return legal[0]


class ManualTimer:
    """The scheduler's interface wound by hand: the test sets the clock and wakes the table."""

    def __init__(self, wake: Callable[[int], Awaitable[None]], clock: FakeClock) -> None:
        self.wake = wake
        self.clock = clock
        self.armed: dict[int, float] = {}

    def arm(self, table_id: int, at: float | None) -> None:
        if at is None:
            self.armed.pop(table_id, None)
        else:
            self.armed[table_id] = at

    async def ring(self, table_id: int, at: float) -> None:
        self.clock.now = at
        await self.wake(table_id)

    async def close(self) -> None:
        self.armed.clear()


@dataclass
class World:
    tables: TableService
    publisher: FakePublisher
    computers: FakeComputers
    clock: FakeClock
    store: Store

    @property
    def timer(self) -> ManualTimer:
        return self.tables.scheduler

    def shown_to(self, user_id: int) -> list[Shown]:
        return [s for s in self.publisher.shown if s.key[1] == user_id]


async def screens_out(world: World, count: int) -> None:
    """Until the screens a resume hands out in the background number `count`: after its
    postponement is stored (SQLite's thread, however slow the machine), a slice at a time. The
    deadline only bounds a hang."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 60
    while loop.time() < deadline:
        if len(world.publisher.shown) >= count:
            return
        await asyncio.sleep(0.001)
    raise AssertionError(f"{len(world.publisher.shown)} screens shown, not {count}")


def service(store: Store, clock: FakeClock, computers: FakeComputers | None = None,
            links: ChatLinks = NO_LINKS, reports: OutboxReports | None = None) -> World:
    publisher, computers = FakePublisher(), computers or FakeComputers()
    tables = TableService(store, publisher, computers, links=links, reports=reports,
                          clock=clock, make_scheduler=ManualTimer)
    return World(tables, publisher, computers, clock, store)


@pytest.fixture
def world(store: Store) -> World:
    return service(store, FakeClock(START))


async def take_up(world: World, table_id: int) -> None:
    """The stored table in the service's hands, as after a start: resumed with every other on
    SQLite (one process), read when first needed on a database several processes share."""
    if world.store.shared:   # as when its wake is claimed from the store
        await world.tables.wake_claimed(table_id)
        live = world.tables.core.live(table_id)
        assert live is not None
        world.tables.displays.show(live)   # as a start shows the tables it resumes
    else:
        assert await world.tables.restart.resume() == 1


def deal_where(monkeypatch: pytest.MonkeyPatch, wanted: Callable[[Game], bool],
               variant: str = "throw-in") -> None:
    """The next two-player game's shuffle is the first one that is `wanted`."""
    rules = Rules(players=2, variant=variant)
    seed = next(s for s in range(10_000) if wanted(Game.new(rules, s, START)))
    monkeypatch.setattr(secrets, "randbits", lambda bits: seed)


def person_leads(game: Game) -> bool:
    return game.attacker == 0


def computer_leads(game: Game) -> bool:
    return game.attacker == 1


async def stored(store: Store, table_id: int) -> tuple[TableRow, Game]:
    """The table as stored, and its game replayed from the log — which must equal the snapshot."""
    row = await store.tables.get(table_id)
    assert row is not None
    game = Game.replay({**row.snapshot, "log": await store.tables.log(table_id)})
    assert game.to_dict(log=False) == row.snapshot, "snapshot and log agree"
    return row, game


# ---- starting ------------------------------------------------------------------------------


async def test_start_private_stores_shows_and_arms_the_table(world: World) -> None:
    table_id = await world.tables.start_private(USER, "Ann", ONE_COMPUTER)
    assert table_id is not None

    row, game = await stored(world.store, table_id)
    assert (row.status, row.kind, row.version) == ("running", "private", 0)
    assert [(s.user_id, s.level) for s in row.seats] == [(USER, None), (None, "normal")]
    assert row.options == ONE_COMPUTER.to_dict()

    [shown] = world.publisher.shown
    assert (shown.key, shown.chat_id, shown.message_id) == ((table_id, USER), USER, None)
    hand = {card_label(c, translator("en")) for c in game.view(0).hand}
    buttons = {b.text.lstrip("•") for row in shown.screen.keyboard for b in row}
    assert hand <= buttons, "the hand is on the buttons"
    assert table_id in world.timer.armed
    assert await world.tables.running_table_of(USER) == table_id

    assert await world.tables.start_private(USER, "Ann", ONE_COMPUTER) is None, "one at a time"


async def test_a_game_can_take_over_the_setup_message(world: World) -> None:
    table_id = await world.tables.start_private(USER, "Ann", ONE_COMPUTER, message=(USER, 42))
    assert world.publisher.shown[-1].message_id == 42
    assert [(m.user_id, m.message_id) for m in await world.store.messages.of_table(table_id)] == [
        (USER, 42)]


# ---- taps ----------------------------------------------------------------------------------


async def test_a_legal_tap_is_applied_once_stored_and_shown(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    deal_where(monkeypatch, person_leads)
    table_id = await world.tables.start_private(USER, "Ann", ONE_COMPUTER)
    _, game = await stored(world.store, table_id)
    card = game.legal_actions(0)[0].card
    shown = len(world.publisher.shown)

    assert await world.tables.moves.tap(USER, table_id, 0, PlayCard(card.index)) == Answer()
    row, game = await stored(world.store, table_id)
    assert row.version == game.version == 1
    assert game.table == [(card, None)]
    assert len(world.publisher.shown) == shown + 1
    assert f"{card_label(card, translator('en'))} → …" in world.publisher.shown[-1].screen.text

    again = await world.tables.moves.tap(USER, table_id, 0, PlayCard(card.index))
    assert again == Answer("tap.stale"), "the same button twice moves once"
    assert (await world.store.tables.get(table_id)).version == 1


async def test_a_stale_tap_refreshes_the_message_and_changes_nothing(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    deal_where(monkeypatch, person_leads)
    table_id = await world.tables.start_private(USER, "Ann", ONE_COMPUTER)
    _, game = await stored(world.store, table_id)
    card = game.legal_actions(0)[0].card

    for version in (-1, 1, 99):
        shown = len(world.shown_to(USER))
        tapped = await world.tables.moves.tap(USER, table_id, version, PlayCard(card.index))
        assert tapped == Answer("tap.stale")
        assert len(world.shown_to(USER)) == shown + 1, "the message is redrawn"
    row, _ = await stored(world.store, table_id)
    assert row.version == 0


async def test_a_foreign_or_unknown_table_tap_is_refused(world: World) -> None:
    table_id = await world.tables.start_private(USER, "Ann", ONE_COMPUTER)
    shown = len(world.publisher.shown)

    reply = await world.tables.moves.tap(STRANGER, table_id, 0, Take())
    assert reply == Answer("tap.not_seated", alert=True)
    reply = await world.tables.moves.tap(USER, table_id + 1, 0, Take())
    assert reply == Answer("tap.unknown_table", alert=True)
    assert len(world.publisher.shown) == shown
    assert (await world.store.tables.get(table_id)).version == 0


async def test_an_illegal_move_is_refused_with_the_engines_reason(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    deal_where(monkeypatch, person_leads)
    table_id = await world.tables.start_private(USER, "Ann", ONE_COMPUTER)

    reply = await world.tables.moves.tap(USER, table_id, 0, Take())   # the attacker cannot take
    assert reply.alert and reply.key.startswith("illegal.")
    reply = await world.tables.moves.tap(USER, table_id, 0, TransferMode())   # a throw-in game
    assert reply == Answer("tap.cannot_transfer", alert=True)
    assert (await world.store.tables.get(table_id)).version == 0


def _transfer_choice(game: Game) -> bool:
    """The computer leads its first legal card and the person can transfer with two cards."""
    if game.attacker != 1:
        return False
    game.apply(1, game.legal_actions(1)[0], START)
    return sum(a.kind == "transfer" for a in game.legal_actions(0)) >= 2


def _verbs(shown: Shown) -> set[str]:
    return {b.callback_data.split(":")[3] for row in shown.screen.keyboard
            for b in row if b.callback_data.startswith("m:")}


async def test_a_choice_is_shown_then_cancelled_or_played(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    deal_where(monkeypatch, _transfer_choice, variant="transfer")
    settings = PlaySettings.from_dict({"variant": "transfer", "bots": 1, "level": "normal"})
    table_id = await world.tables.start_private(USER, "Ann", settings)
    await world.timer.ring(table_id, world.timer.armed[table_id])   # the computer attacks
    _, game = await stored(world.store, table_id)
    assert game.version == 1
    fits = [a for a in game.legal_actions(0) if a.kind == "transfer"]

    reply = await world.tables.moves.tap(USER, table_id, 1, TransferMode())
    assert reply == Answer("tap.choose_transfer")
    assert _verbs(world.shown_to(USER)[-1]) == {Verb.TRANSFER, Verb.CANCEL}
    assert await world.tables.moves.tap(USER, table_id, 1, Cancel()) == Answer()
    assert Verb.TRANSFER not in _verbs(world.shown_to(USER)[-1])
    assert Verb.CARD in _verbs(world.shown_to(USER)[-1])

    await world.tables.moves.tap(USER, table_id, 1, TransferMode())
    tapped = await world.tables.moves.tap(USER, table_id, 1, TransferWith(fits[1].card.index))
    assert tapped == Answer()
    row, game = await stored(world.store, table_id)
    assert row.version == 2 and game.table[-1] == (fits[1].card, None)
    assert Verb.TRANSFER not in _verbs(world.shown_to(USER)[-1]), "the choice ends with the move"


# ---- the clock -----------------------------------------------------------------------------


async def test_a_computer_moves_when_the_clock_reaches_its_delay(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    deal_where(monkeypatch, computer_leads)
    table_id = await world.tables.start_private(USER, "Ann", ONE_COMPUTER)
    _, game = await stored(world.store, table_id)
    due = START + game.reaction_delay(1)
    assert world.timer.armed[table_id] == same_time(due)

    await world.timer.ring(table_id, due - 0.1)
    assert (await world.store.tables.get(table_id)).version == 0, "asked, but not moved yet"
    assert world.timer.armed[table_id] == same_time(due), "armed again for the same time"

    shown = len(world.shown_to(USER))
    await world.timer.ring(table_id, due)
    [(level, seat, action)] = world.computers.asked
    assert (level, seat) == ("normal", 1)
    row, game = await stored(world.store, table_id)
    assert row.version == 1
    assert game.table == [(action.card, None)]
    assert len(world.shown_to(USER)) == shown + 1


async def test_a_deadline_fires(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    deal_where(monkeypatch, person_leads)
    table_id = await world.tables.start_private(USER, "Ann", ONE_COMPUTER)
    _, game = await stored(world.store, table_id)
    due = game.next_deadline
    assert due is not None and due > START

    await world.timer.ring(table_id, due - 0.1)
    assert (await world.store.tables.get(table_id)).version == 0

    await world.timer.ring(table_id, due)
    row, game = await stored(world.store, table_id)
    assert row.version > 0, "the time-out is in the log"
    assert game.next_deadline != due
    assert {seat for _, seat, _ in world.computers.asked} <= {1}, \
        "the engine played the time-out; only the computer's answer to it was asked for"


async def test_timer_bars_are_redrawn_with_low_priority(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    deal_where(monkeypatch, person_leads)
    table_id = await world.tables.start_private(USER, "Ann", ONE_COMPUTER)
    bar_at = world.timer.armed[table_id]
    await world.timer.ring(table_id, bar_at)
    assert world.publisher.shown[-1].priority is Priority.BAR
    assert (await world.store.tables.get(table_id)).version == 0


# ---- the end, and a restart ----------------------------------------------------------------


async def test_resign_finishes_the_game_and_stores_the_result(world: World) -> None:
    table_id = await world.tables.start_private(USER, "Ann", ONE_COMPUTER)

    assert await world.tables.absences.resign(USER)
    row = await world.store.tables.get(table_id)
    assert row.status == "aborted"
    assert (await world.store.results.stats(USER)).resigned == 1
    again = MenuCallback(action=MenuAction.AGAIN).pack()
    final = world.publisher.shown[-1].screen
    assert [b.callback_data for r in final.keyboard for b in r] == [again]
    assert table_id not in world.timer.armed
    assert await world.tables.running_table_of(USER) is None

    assert not await world.tables.absences.resign(USER)
    assert await world.tables.moves.tap(USER, table_id, 0, Take()) == Answer("tap.game_over")


@ONE_PROCESS
async def test_resume_rearms_and_gives_back_the_downtime(store: Store) -> None:
    before = service(store, FakeClock(START))
    table_id = await before.tables.start_private(USER, "Ann", ONE_COMPUTER, message=(USER, 42))
    await store.users.ensure(USER, "Ann")
    await store.users.set_language(USER, "uk")
    before.clock.now = START + 10
    await before.tables.restart.heartbeat()
    assert await store.meta.get(HEARTBEAT_KEY) == START + 10
    _, game = await stored(store, table_id)
    due = game.next_deadline

    after = service(store, FakeClock(START + 110))   # a new process, 100 s later
    assert await after.tables.restart.resume() == 1
    await screens_out(after, 1)
    await after.tables.restart.postponed()
    row, game = await stored(store, table_id)
    assert row.version == 1, "the postponement is in the log"
    assert game.next_deadline == same_time(due + 100)
    [shown] = after.publisher.shown
    assert (shown.key, shown.chat_id, shown.message_id) == ((table_id, USER), USER, 42)
    assert after.tables.languages.of(USER) == "uk"
    assert after.timer.armed[table_id] > START + 110
    assert await after.tables.running_table_of(USER) == table_id


async def test_a_new_message_is_remembered_for_later_edits(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    deal_where(monkeypatch, person_leads)
    table_id = await world.tables.start_private(USER, "Ann", ONE_COMPUTER)
    await world.tables.chats.message_sent((table_id, USER), USER, 99)
    assert [m.message_id for m in await world.store.messages.of_table(table_id)] == [99]
    await world.store.users.ensure(USER, "Ann")
    await world.store.users.set_language(USER, "pl")   # as /lang does, then the table follows
    await world.tables.change_locale(USER)
    assert world.publisher.shown[-1].message_id == 99
    assert world.tables.languages.of(USER) == "pl"


async def test_the_outboxs_reports_are_acted_on_and_one_that_fails_stops_none(
    store: Store
) -> None:
    reports = OutboxReports()
    world = service(store, FakeClock(START), reports=reports)
    table_id = await world.tables.start_private(USER, "Ann", ONE_COMPUTER)

    async def message_ids() -> list[int]:
        return [m.message_id for m in await world.store.messages.of_table(table_id)]

    await reports.put(MessageSent((table_id, USER), USER, 97))   # nobody reads yet: it waits
    assert await message_ids() == []
    await world.tables.resume()
    # While the service reads, a report is acted on by the time the publisher goes on.
    await reports.put(MessageSent((table_id + 1000, USER), USER, 98))   # no such table: refused
    assert await message_ids() == [97], "what waited came first"
    await reports.put(MessageSent((table_id, USER), USER, 99))
    assert await message_ids() == [99]
    await world.tables.stop_reading_reports()
    await reports.put(MessageSent((table_id, USER), USER, 100))   # after the stop: it waits
    assert await message_ids() == [99]
    await world.tables.stop_reading_reports()   # a stop acts on what is left
    assert await message_ids() == [100]
    await world.tables.close()


# ---- several people at one table: taps that race each other --------------------------------

PEOPLE = ((11, "Ann"), (12, "Bob"), (13, "Cid"))
ANN, BOB, CID = (user for user, _ in PEOPLE)
HANDS = [["6s", "6c", "9d", "Ks", "Qd", "10c"], ["7s", "8s", "7h", "Jh", "Ac", "Jd"],
         ["6d", "9s", "7c", "Kc", "Qs", "10d"]]   # hearts trump; Ann leads against Bob


async def three_people(world: World) -> int:
    """A running table of Ann, Bob and Cid (no computers), loaded as after a restart."""
    game = Game.from_deal(Rules(players=3), HANDS, ["8d", "8c", "Ah"], first_attacker=0,
                          now=START)
    seats = [SeatRow(i, user, name) for i, (user, name) in enumerate(PEOPLE)]
    row = await world.store.tables.create(-100, "group", "running", {}, seats,
                                         game.to_dict(log=False))
    await take_up(world, row.id)
    await screens_out(world, len(PEOPLE))
    return row.id


def card(text: str) -> int:
    return Card.parse(text).index


def drawn_at(shown: Shown) -> int:
    """The table version a game message's buttons carry."""
    return int(shown.screen.keyboard[0][0].callback_data.split(":")[2])


async def test_throw_ins_racing_a_defence_are_each_applied_once(world: World) -> None:
    table_id = await three_people(world)
    assert await world.tables.moves.tap(ANN, table_id, 0, PlayCard(card("6s"))) == Answer()
    # All three pressed on the screen of version 1, at the same moment.
    taps = [(BOB, PlayCard(card("7s"))), (ANN, PlayCard(card("6c"))), (CID, PlayCard(card("6d")))]
    replies = await asyncio.gather(*(world.tables.moves.tap(u, table_id, 1, t) for u, t in taps))
    assert replies == [Answer()] * 3
    row, game = await stored(world.store, table_id)
    assert row.version == 4
    assert sorted(a for a, _ in game.table) == sorted(map(Card.parse, ("6s", "6c", "6d")))
    assert (Card.parse("6s"), Card.parse("7s")) in game.table
    again = await asyncio.gather(*(world.tables.moves.tap(u, table_id, 1, t) for u, t in taps))
    assert again == [Answer("tap.stale")] * 3, "each tap moves once"
    assert (await world.store.tables.get(table_id)).version == 4


async def test_a_tap_whose_meaning_changed_is_stale_with_a_fresh_screen(world: World) -> None:
    table_id = await three_people(world)
    await world.tables.moves.tap(ANN, table_id, 0, PlayCard(card("6s")))
    await world.tables.moves.tap(CID, table_id, 1, PlayCard(card("6d")))
    shown = len(world.shown_to(BOB))
    # On Bob's screen 7♥ beat the one card there; now it beats either six.
    tapped = await world.tables.moves.tap(BOB, table_id, 1, PlayCard(card("7h")))
    assert tapped == Answer("tap.stale")
    assert len(world.shown_to(BOB)) == shown + 1
    assert drawn_at(world.shown_to(BOB)[-1]) == 2, "the fresh screen"
    assert (await world.store.tables.get(table_id)).version == 2


async def test_a_tap_from_a_round_that_closed_is_never_played_in_the_next(world: World) -> None:
    """A chat's button and a Mini App's move reach the table alike (`moves.tap` with the version
    the tap was made at): Cid's throw-in pressed in the first round, arriving after it closed,
    is not led in the second, where he attacks and 6♦ would be legal."""
    table_id = await three_people(world)
    await world.tables.moves.tap(ANN, table_id, 0, PlayCard(card("6s")))
    await world.tables.moves.tap(BOB, table_id, 1, Take())
    while (await stored(world.store, table_id))[1].table:   # the window closes: a new round
        await world.timer.ring(table_id, world.timer.armed[table_id])
    _, game = await stored(world.store, table_id)
    assert PEOPLE[game.attacker][0] == CID
    assert Action("attack", Card.parse("6d")) in game.legal_actions(game.attacker)
    shown = len(world.shown_to(CID))
    late = await world.tables.moves.tap(CID, table_id, 1, PlayCard(card("6d")))
    assert late == Answer("tap.stale")
    assert len(world.shown_to(CID)) == shown + 1, "he sees the table as it is"
    assert (await stored(world.store, table_id))[1].version == game.version


async def next_wake(world: World, table_id: int) -> None:
    """The table's next wake-up. The deadline only bounds a hang."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 60
    while table_id not in world.timer.armed and world.tables.live(table_id) is not None:
        assert loop.time() < deadline, "the table was never armed again"
        await asyncio.sleep(0.001)
    if table_id in world.timer.armed:
        await world.timer.ring(table_id, world.timer.armed[table_id])


async def test_a_person_out_first_watches_the_computers_name_the_durak(store: Store) -> None:
    """Ann leads her last card with the stock empty: she is out (safe), and the two computers
    play on at a brisk pace until one of them is the durak; her result names her place."""
    world = service(store, FakeClock(START))
    game = Game.from_deal(Rules(players=3), [["6s"], ["7s", "8c", "9d"], ["6d", "10c", "Kd"]],
                          [], trump="h", first_attacker=0, now=START)
    seats = [SeatRow(0, ANN, "Ann"), SeatRow(1, None, "", "normal"),
             SeatRow(2, None, "", "normal")]
    row = await world.store.tables.create(ANN, "private", "running", {}, seats,
                                         game.to_dict(log=False))
    await take_up(world, row.id)
    assert await world.tables.moves.tap(ANN, row.id, 0, PlayCard(card("6s"))) == Answer()
    live = world.tables.live(row.id)
    assert live is not None
    for _ in range(100):   # she passes when her clock runs out; the round closes
        if live.watched:
            break
        await next_wake(world, row.id)
    assert not live.finished and live.reactions, "the computers play on"
    high = live.game.rules.bot_delay[1]
    assert all(r.at - world.clock.now <= high * BRISK for r in live.reactions.values())
    for _ in range(1000):   # until it ends and leaves memory
        if world.tables.live(row.id) is None:
            break
        await next_wake(world, row.id)
    stored_row, game = await stored(world.store, row.id)
    assert stored_row.status == TableStatus.FINISHED and game.is_over
    assert game.durak in (1, 2), "a computer is the durak, and the result says which"
    record = await world.store.tables.whole(row.id)
    assert record is not None and record.results == [(ANN, Outcome.SAFE, 1)]
    assert "durak" in world.shown_to(ANN)[-1].screen.text


async def test_the_round_start_is_found_again_after_a_restart(store: Store) -> None:
    before = service(store, FakeClock(START))
    table_id = await three_people(before)
    await before.tables.moves.tap(ANN, table_id, 0, PlayCard(card("6s")))
    await before.tables.moves.tap(BOB, table_id, 1, Take())
    while (await stored(store, table_id))[1].table:   # the window closes: a new round
        await before.timer.ring(table_id, before.timer.armed[table_id])
    _, game = await stored(store, table_id)
    round_from, leader = game.version, PEOPLE[game.attacker][0]
    lead = game.legal_actions(game.attacker)[0].card
    assert leader == CID and await before.tables.moves.tap(CID, table_id, round_from,
                                                     PlayCard(lead.index)) == Answer()

    after = service(store, FakeClock(before.clock.now))
    await take_up(after, table_id)
    tapped = await after.tables.moves.tap(CID, table_id, 1, Pass())
    assert tapped == Answer("tap.stale"), "old round"
    # Bob pressed Pass on the screen that showed the round begin, before Cid led: it stands.
    assert await after.tables.moves.tap(BOB, table_id, round_from, Pass()) == Answer()
    _, game = await stored(store, table_id)
    assert game.passed == {1}
