"""Computer players' pacing (R10.3, R6.3), measured in game time on the table service.

Each computer's pause (1.5–3 s, seeded by the engine) runs from the table change it reacts to,
side by side with the others': a round where nobody adds anything closes within one pause and
the close grace after the last beat. Explicit deals, a fake clock and a hand-wound timer; the
computers decide by a fixed rule, at once or when a test lets them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from engine import Action, Card, Game, PlayerView, Rules
from engine.actions import ATTACK, DEFEND, PASS, TAKE
from engine.cards import CARDS
from tests.app.test_table_service import (
    START,
    USER,
    FakeClock,
    FakeComputers,
    World,
    same_time,
    service,
    stored,
)
from tg_durak.play.options import PlaySettings
from tg_durak.play.taps import Pass, PlayCard
from tg_durak.storage import Store
from tg_durak.tables.reactions import plan_reactions

SEED = 3
TRUMP = "A♥"   # the bottom of the stock: hearts are trumps


@dataclass
class ScriptedComputers(FakeComputers):
    """Decides by a fixed rule: lead the first card it may, beat with the first that beats,
    throw in the first card that fits (or pass, with `throw_in` off). Holds `gated_seat`'s
    decisions about a table with cards on it until `release` is set."""

    throw_in: bool = False
    gated_seat: int | None = None
    reached: asyncio.Event = field(default_factory=asyncio.Event)
    release: asyncio.Event = field(default_factory=asyncio.Event)

    async def choose(self, level: str, view: PlayerView, legal: list[Action],
                     seed: str) -> Action:
        if view.seat == self.gated_seat and view.table:
            self.reached.set()
            await self.release.wait()
        defences = [a for a in legal if a.kind == "defend"]
        attacks = [a for a in legal if a.kind == "attack"]
        if defences:
            action = defences[0]
        elif attacks and (self.throw_in or not view.table):
            action = attacks[0]
        else:
            action = PASS if PASS in legal else legal[0]
        self.asked.append((level, view.seat, action))
        return action

    @property
    def seats_asked(self) -> list[int]:
        return [seat for _, seat, _ in self.asked]


def scripted_world(store: Store, computers: ScriptedComputers) -> World:
    return service(store, FakeClock(START), computers)


def dealt(rules: Rules, hands: list[str], first: int, now: float, seed: int = SEED) -> Game:
    """`hands` (one per seat) dealt; seat `first` leads; the rest of the 36-card deck is the
    stock, with TRUMP at its bottom; `seed` draws the computers' pauses."""
    cards = [[Card.parse(c) for c in hand.split()] for hand in hands]
    trump = Card.parse(TRUMP)
    used = {c for hand in cards for c in hand} | {trump}
    stock = [c for c in CARDS if c.rank >= 6 and c not in used] + [trump]
    return Game.from_deal(rules, cards, stock, first_attacker=first, now=now, seed=seed)


def deal(monkeypatch: pytest.MonkeyPatch, hands: list[str], first: int, seed: int = SEED
         ) -> None:
    """The next table the service opens is `dealt`."""
    def new(cls: type[Game], rules: Rules, shuffle: object, now: float = 0.0) -> Game:
        return dealt(rules, hands, first, now, seed)

    monkeypatch.setattr(Game, "new", classmethod(new))


def moves(game: Game) -> list[tuple[float, int | None, str]]:
    """(time, seat, kind) of every move in the log; a fired deadline is (time, None, "tick")."""
    return [(e[5], e[1], str(e[2])) if e[0] == "act" else (e[1], None, e[0])
            for e in game.log if e[0] in ("act", "tick")]


def delay_after(game: Game, version: int, seat: int) -> float:
    """`seat`'s pause after the change that made `version` (the engine's seeded delay)."""
    d = game.to_dict()
    d["log"] = d["log"][:version]
    return Game.replay(d).reaction_delay(seat)


async def run_until(world: World, table_id: int, done: Callable[[Game], bool]) -> Game:
    """Wind the timer, one due time after another, until the stored game is `done`."""
    while True:
        _, game = await stored(world.store, table_id)
        if done(game):
            return game
        at = world.timer.armed[table_id]
        assert at < START + 60, "the table stalled"
        await world.timer.ring(table_id, max(at, world.clock.now))


def round_closed(game: Game) -> bool:
    return any(kind == "tick" for _, _, kind in moves(game))


# The person (seat 0) leads 7♠ and holds nothing more to add; seat 1 beats it with 10♠ (a new
# rank: every pass so far is cancelled). Seat 2 holds a 7 and seat 3 a 10, so each must decide
# to pass; seat 4 (five players) has nothing to add: its only move is Pass.
ROUND_OF_PASSES = {
    4: ["7♠ 8♣ 9♣ J♦ Q♦ K♦", "10♠ 6♣ 6♦ 8♦ 9♦ K♣",
        "7♣ J♠ Q♠ K♠ A♠ J♣", "10♣ 8♠ 9♠ Q♣ A♣ A♦"],
    5: ["7♠ 8♣ 9♣ J♦ Q♦ K♦", "10♠ 6♣ 6♦ 8♦ 9♦ K♣",
        "7♣ J♠ Q♠ K♠ A♠ J♣", "10♣ 8♠ 9♠ Q♣ A♣ A♦", "6♠ 6♥ 8♥ 9♥ J♥ Q♥"],
}


@pytest.mark.parametrize("players", sorted(ROUND_OF_PASSES))
async def test_a_round_of_passes_closes_within_one_pause_and_the_grace(
    store: Store, monkeypatch: pytest.MonkeyPatch, players: int
) -> None:
    """R10.3, R6.3: every computer passes at its own time, side by side with the others'."""
    deal(monkeypatch, ROUND_OF_PASSES[players], first=0)
    world = scripted_world(store, ScriptedComputers())
    table_id = await world.tables.start_private(USER, "Ann", PlaySettings(bots=players - 1))
    await world.tables.moves.tap(USER, table_id, 0, PlayCard(Card.parse("7♠").index))
    await world.tables.moves.tap(USER, table_id, 1, Pass())

    game = await run_until(world, table_id, round_closed)
    timeline = moves(game)
    beat = max(t for t, _, kind in timeline if kind == "defend")
    closed = next(t for t, _, kind in timeline if kind == "tick")
    high = game.rules.bot_delay[1]
    assert closed - beat <= high + game.rules.close_grace_seconds
    assert [seat for _, seat, kind in timeline if kind == "attack"] == [0], "nobody added"

    # Seat 2 (a 7 in hand, nothing of the 10s) reacts to the lead, whatever others do meanwhile.
    first_pass = {}
    for t, seat, kind in timeline:
        if kind == "pass":
            first_pass.setdefault(seat, t)
    assert first_pass[2] == same_time(START + delay_after(game, 1, 2))
    assert {1, 2, 3} <= set(world.computers.seats_asked), "a real choice is thought out"
    if players == 5:
        assert first_pass[4] == same_time(START + delay_after(game, 1, 4)), \
            "nothing to add: it passes at its own time, not after the others"
        assert 4 not in world.computers.seats_asked, "a forced pass costs no worker's time"


async def test_two_computers_throw_in_side_by_side(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seats 2 and 3 both hold a 7: each throws it in one pause after the lead, neither waits
    for the other's move (nor for the defender's beat, which gives neither anything new)."""
    deal(monkeypatch, [*ROUND_OF_PASSES[4][:2], "7♣ J♠ Q♠ K♠ A♠ J♣", "7♦ 8♠ 9♠ Q♣ A♣ A♦"],
         first=0)
    world = scripted_world(store, ScriptedComputers(throw_in=True))
    table_id = await world.tables.start_private(USER, "Ann", PlaySettings(bots=3))
    await world.tables.moves.tap(USER, table_id, 0, PlayCard(Card.parse("7♠").index))

    def both_threw(game: Game) -> bool:
        return {2, 3} <= {seat for _, seat, kind in moves(game) if kind == "attack"}

    game = await run_until(world, table_id, both_threw)
    threw = {seat: t for t, seat, kind in moves(game) if kind == "attack" and seat in (2, 3)}
    for seat in (2, 3):
        assert threw[seat] == same_time(START + delay_after(game, 1, seat))


# Two players: the computer (seat 1) leads 7♠ and may throw in 7♣; it holds a 10 but no 9.
HEADS_UP = ["9♠ 10♠ 6♣ 8♣ J♦ 6♦", "7♠ 7♣ 10♣ Q♦ K♦ A♦"]


async def _computer_thinking_about_a_throw_in(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> tuple[World, int, asyncio.Task]:
    deal(monkeypatch, HEADS_UP, first=1)
    world = scripted_world(store, ScriptedComputers(throw_in=True, gated_seat=1))
    table_id = await world.tables.start_private(USER, "Ann", PlaySettings(bots=1))
    await run_until(world, table_id, lambda game: game.version == 1)   # the lead
    at = world.timer.armed[table_id]
    thinking = asyncio.create_task(world.timer.ring(table_id, at))
    await world.computers.reached.wait()   # asked as its pause began, held meanwhile
    await pause_ended(world, table_id, at, thinking)
    return world, table_id, thinking


async def pause_ended(world: World, table_id: int, at: float, ringing: asyncio.Task) -> None:
    """Until the timer `ringing` at `at` has claimed the computer's move: it awaits the
    decision, and the table's timer no longer waits for that move."""
    while world.timer.armed.get(table_id) == at and not ringing.done():
        await asyncio.sleep(0)


async def test_a_decision_stands_when_the_change_gives_its_seat_nothing_new(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    world, table_id, thinking = await _computer_thinking_about_a_throw_in(store, monkeypatch)
    decided_at = world.clock.now
    await world.tables.moves.tap(USER, table_id, 1, PlayCard(Card.parse("9♠").index))  # no 9s there
    world.computers.release.set()
    await thinking

    _, game = await stored(world.store, table_id)
    assert moves(game)[-1] == (decided_at, 1, "attack")
    assert game.table[-1] == (Card.parse("7♣"), None), "the throw-in it thought out"


async def test_a_change_that_gives_the_seat_a_new_choice_restarts_its_pause(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    world, table_id, thinking = await _computer_thinking_about_a_throw_in(store, monkeypatch)
    beat_at = world.clock.now
    await world.tables.moves.tap(USER, table_id, 1, PlayCard(Card.parse("10♠").index))  # a 10: new
    world.computers.release.set()
    await thinking
    _, game = await stored(world.store, table_id)
    assert game.version == 2, "the decision about the old table is dropped"

    game = await run_until(world, table_id, lambda game: game.version == 3)
    t, seat, kind = moves(game)[-1]
    assert (seat, kind) == (1, "attack")
    assert t == same_time(beat_at + delay_after(game, 2, 1)), "one pause from the beat"
    assert world.computers.seats_asked == [1, 1, 1, 1], \
        "the lead; a throw-in; one on the new table; the next, as its pause begins"


# Three players: seat 2 leads 7♠ at the person (seat 0), who holds two cards: two attack cards
# at most (R5.3). Seats 1 and 2 may each throw in a 7; seed 5 has seat 1 react first.
LIMITED = ["Q♥ J♥", "7♣ 9♦ 10♦ J♣ Q♣ K♣", "7♠ 7♦ 8♠ K♠ A♠ A♣"]


async def test_a_decision_made_illegal_meanwhile_is_thought_again_at_once(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    deal(monkeypatch, LIMITED, first=2, seed=5)
    world = scripted_world(store, ScriptedComputers(throw_in=True, gated_seat=1))
    table_id = await world.tables.start_private(USER, "Ann", PlaySettings(bots=2))
    game = await run_until(world, table_id, lambda game: game.version == 1)   # 7♠ led
    assert delay_after(game, 1, 1) < delay_after(game, 1, 2), "seat 1 reacts first"
    at = world.timer.armed[table_id]
    thinking = asyncio.create_task(world.timer.ring(table_id, at))
    await world.computers.reached.wait()
    await pause_ended(world, table_id, at, thinking)
    game = await run_until(world, table_id, lambda game: game.version == 2)   # seat 2: 7♦
    assert game.legal_actions(1) == [PASS], "the limit is reached"
    filled_at = world.clock.now
    world.computers.release.set()
    await thinking

    _, game = await stored(world.store, table_id)
    assert moves(game)[-1] == (filled_at, 1, "pass"), "its 7♣ no longer fits: it passes, at once"
    assert world.computers.seats_asked.count(1) == 1, "a forced pass costs no worker's time"



# ---- asked as the pause begins (tables.decisions) -----------------------------------------

THINK = 0.3   # seconds of the table's clock a slow computer's decision takes (hard's budget)
# Two players, the person (seat 0) to lead: after his 7♠ he may throw in 7♣ or pass; the
# computer beats the 7♠ with 9♠ or 10♠, or takes.
PERSON_LEADS = ["7♠ 7♣ 10♣ Q♦ K♦ A♦", "9♠ 10♠ 6♣ 8♣ J♦ 6♦"]
BEAT = DEFEND[Card.parse("9♠").index][0]   # the 7♠ (the table's first card) with 9♠


@dataclass
class SlowComputers(ScriptedComputers):
    """Each decision takes THINK seconds of the table's clock; with two cards or more to
    beat, it takes."""

    clock: FakeClock = field(kw_only=True)

    async def choose(self, level: str, view: PlayerView, legal: list[Action],
                     seed: str) -> Action:
        self.clock.now += THINK
        if TAKE in legal and sum(defence is None for _, defence in view.table) > 1:
            self.asked.append((level, view.seat, TAKE))
            return TAKE
        return await super().choose(level, view, legal, seed)

    @property
    def decided(self) -> list[Action]:
        return [action for _, _, action in self.asked]


def slow_world(store: Store) -> World:
    clock = FakeClock(START)
    return service(store, clock, SlowComputers(clock=clock))


async def test_a_slow_decision_is_ready_when_the_pause_ends(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R10.3: the computer is asked as its pause begins, so that its thinking runs inside the
    pause: it moves as the pause ends, not a search's time later."""
    deal(monkeypatch, HEADS_UP, first=1)   # the computer leads
    world = slow_world(store)
    table_id = await world.tables.start_private(USER, "Ann", PlaySettings(bots=1))
    due = world.timer.armed[table_id]
    await asyncio.sleep(0)   # the pause runs: what was asked meanwhile is answered
    assert world.computers.seats_asked == [1], "asked as its pause began"

    await world.timer.ring(table_id, due)
    _, game = await stored(world.store, table_id)
    [(t, seat, kind)] = moves(game)
    assert (seat, kind) == (1, "attack")
    assert t == same_time(due), "as its pause ends, not THINK later"


async def test_a_person_s_move_during_the_pause_drops_the_decision_asked_before_it(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The decision asked as the pause began (beat the 7♠) was about a table that has changed
    since (a 7♣ thrown in): it is dropped, and the one asked about the table as it is (take
    both) is played, one pause after the change."""
    deal(monkeypatch, PERSON_LEADS, first=0)
    world = slow_world(store)
    table_id = await world.tables.start_private(USER, "Ann", PlaySettings(bots=1))
    await world.tables.moves.tap(USER, table_id, 0, PlayCard(Card.parse("7♠").index))
    await asyncio.sleep(0)
    assert world.computers.decided == [BEAT], "asked as its pause began"

    world.clock.now = thrown_at = START + 0.5   # within the pause
    await world.tables.moves.tap(USER, table_id, 1, PlayCard(Card.parse("7♣").index))
    game = await run_until(world, table_id, lambda game: game.version == 3)
    assert world.computers.decided == [BEAT, TAKE], "asked again as the change came"
    t, seat, kind = moves(game)[-1]
    assert (seat, kind) == (1, "take"), "the decision about the table as it is"
    assert t == same_time(thrown_at + delay_after(game, 2, 1)), "one pause from the 7♣"


async def test_a_change_that_leaves_the_pause_as_planned_leaves_the_decision_too(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The person passes: the computer's choices stay as they were, and so do its pause
    (plan_reactions) and the decision asked as it began, played as the pause ends (still
    legal), not asked again."""
    deal(monkeypatch, PERSON_LEADS, first=0)
    world = slow_world(store)
    table_id = await world.tables.start_private(USER, "Ann", PlaySettings(bots=1))
    await world.tables.moves.tap(USER, table_id, 0, PlayCard(Card.parse("7♠").index))
    due = world.timer.armed[table_id]
    await asyncio.sleep(0)

    world.clock.now = START + 0.5
    await world.tables.moves.tap(USER, table_id, 1, Pass())
    assert world.timer.armed[table_id] == same_time(due), "its pause runs on"
    game = await run_until(world, table_id, lambda game: game.version == 3)
    assert world.computers.decided == [BEAT], "asked once"
    assert moves(game)[-1] == (same_time(due), 1, "defend")

# ---- whom a change concerns (wakeups.plan_reactions) ---------------------------------------


def test_whom_a_change_concerns() -> None:
    """A pass concerns nobody else; a take has every computer look again (R6.3: it cancels
    passes and changes what is worth throwing in)."""
    game = dealt(Rules(players=3), ROUND_OF_PASSES[4][:3], first=0, now=START)
    led = plan_reactions(game, {0}, {}, game.apply(0, ATTACK[Card.parse("7♠").index], START),
                         START)
    assert sorted(led) == [1, 2]
    assert led[2].at == same_time(START + game.reaction_delay(2))

    passed = plan_reactions(game, {0}, led, game.apply(0, PASS, START + 1), START + 1)
    assert passed[1] is led[1] and passed[2] is led[2], "their pauses run on"

    took = plan_reactions(game, {0}, passed, game.apply(1, TAKE, START + 2), START + 2)
    assert sorted(took) == [2]
    assert took[2].at == same_time(START + 2 + game.reaction_delay(2))
