"""Helpers for the engine tests: explicit deals written as strings, and a random-game driver."""

from __future__ import annotations

import contextlib
import os
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from engine import Action, Card, Game, IllegalMove, Rules

TAKE = Action("take")
PASS = Action("pass")
KINDS = ("attack", "defend", "transfer", "show_trump", "take", "pass")


def card(text: str) -> Card:
    return Card.parse(text)


def cards(text: str) -> list[Card]:
    """"6s 7h 10♦" -> [6♠, 7♥, 10♦]."""
    return [Card.parse(t) for t in text.split()]


def deal(
    *hands: str,
    stock: str = "",
    trump: str | None = None,
    first_attacker: int | None = 0,
    now: float = 0.0,
    **options: object,
) -> Game:
    """A game from an explicit deal: one string per seat, stock[0] drawn next, stock[-1] face up.

    `first_attacker` defaults to seat 0 so that scenario tests need not arrange R3; pass None to
    let the engine apply R3. The remaining keywords are Rules options (variant, throw_in, ...).
    """
    rules = Rules(players=len(hands), **options)
    return Game.from_deal(
        rules,
        [cards(h) for h in hands],
        cards(stock),
        trump=trump,
        first_attacker=first_attacker,
        now=now,
    )


def attack(text: str) -> Action:
    return Action("attack", card(text))


def defend(text: str, target: int) -> Action:
    return Action("defend", card(text), target)


def transfer(text: str) -> Action:
    return Action("transfer", card(text))


def show_trump(text: str) -> Action:
    return Action("show_trump", card(text))


def hand(game: Game, seat: int) -> set[str]:
    """A seat's hand as a set of card strings (the order of a hand is not part of the contract)."""
    return {str(c) for c in game.hand(seat)}


def table(game: Game) -> list[tuple[str, str | None]]:
    return [(str(a), None if d is None else str(d)) for a, d in game.table]


def kinds(game: Game, seat: int) -> set[str]:
    return {a.kind for a in game.legal_actions(seat)}


def passed(game: Game) -> frozenset[int]:
    """Seats whose pass currently stands; every player's view must agree."""
    assert all(game.view(s).passed == game.passed for s in range(game.rules.players))
    return game.passed


def play(game: Game, now: float, *moves: tuple[int, Action]) -> None:
    """Applies several moves at the same instant."""
    for seat, action in moves:
        game.apply(seat, action, now)


def assert_illegal(game: Game, seat: int, action: object, now: float) -> IllegalMove:
    """The move raises IllegalMove with a readable reason and leaves the game unchanged."""
    before = game.to_dict()
    with pytest.raises(IllegalMove) as info:
        game.apply(seat, action, now)
    assert str(info.value), "IllegalMove must carry a reason a player can read"
    assert game.to_dict() == before, "an illegal move must leave the game unchanged"
    return info.value


def finish_round(game: Game, limit: int = 20) -> None:
    """Lets the deadlines run until the current round has closed (or the game is over)."""
    for _ in range(limit):
        if game.is_over or not game.table or game.next_deadline is None:
            return
        game.advance(game.next_deadline)
    raise AssertionError("the round did not close")


# --- random games -------------------------------------------------------------------------------


# engine-ci is derandomized so CI is repeatable; engine-thorough searches afresh, 20x longer.
settings.register_profile(
    "engine-ci", deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "engine-thorough", deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
PROFILE_NAME = os.environ.get("DURAK_ENGINE_PROFILE", "engine-ci")
SCALE = 20 if PROFILE_NAME == "engine-thorough" else 1


def budget(examples: int) -> settings:
    return settings(settings.get_profile(PROFILE_NAME), max_examples=examples * SCALE)


MAX_STEPS = 3000


@st.composite
def tables(draw: st.DrawFn) -> Rules:
    """Every table the rules allow: both variants, 2-6 players, each deck that seats them."""
    players = draw(st.integers(2, 6))
    variant = draw(st.sampled_from(("throw-in", "transfer")))
    return Rules(
        variant=variant,
        players=players,
        deck=draw(st.sampled_from((24, 36, 52) if players <= 4 else (36, 52))),
        first_round_limit=draw(st.sampled_from((5, 6))),
        throw_in=draw(st.sampled_from(("all", "neighbours"))),
        show_trump=variant == "transfer" and draw(st.booleans()),
        no_draws=draw(st.booleans()),
    )


seeds = st.integers(0, 2**32 - 1)
timeout_rates = st.sampled_from((0.0, 0.05, 0.3))


@dataclass
class Step:
    """One recorded input: a move (seat, action) at time `now`, or a bare advance (seat None)."""

    now: float
    seat: int | None = None
    action: Action | None = None

    def run(self, game: Game) -> list:
        if self.seat is None:
            return game.advance(self.now)
        return game.apply(self.seat, self.action, self.now)


@dataclass
class Driver:
    """Plays a game with random legal moves at random times.

    Each step either makes a random legal move at a moment before the next deadline, or lets time
    run to (or past) the next deadline and calls advance(). Time never goes backwards, and no move
    is applied at or after a pending deadline without first advancing to it, as the app does.
    """

    game: Game
    rng: random.Random
    now: float = 0.0
    timeout_rate: float = 0.1
    steps: list[Step] = field(default_factory=list)

    def options(self) -> list[tuple[int, Action]]:
        return [(s, a) for s in range(self.game.rules.players) for a in self.game.legal_actions(s)]

    def next_step(self) -> Step | None:
        """Chooses the next input without applying it; None when the game is over or stuck."""
        game, rng = self.game, self.rng
        if game.is_over:
            return None
        deadline = game.next_deadline
        options = self.options()
        if deadline is not None and (
            not options or deadline <= self.now or rng.random() < self.timeout_rate
        ):
            late = rng.choice((0.0, 0.0, rng.uniform(0.0, 3.0), rng.uniform(0.0, 100.0)))
            return Step(max(deadline, self.now) + late)
        if not options:
            return None
        seat, action = rng.choice(options)
        room = 5.0 if deadline is None else (deadline - self.now)
        return Step(self.now + rng.choice((0.0, rng.random() * room * 0.9)), seat, action)

    def step(self) -> Step | None:
        step = self.next_step()
        if step is not None:
            step.run(self.game)
            self.now = max(self.now, step.now)
            self.steps.append(step)
        return step

    def play_out(
        self, max_steps: int = 3000, check: Callable[[Game], None] | None = None
    ) -> None:
        """Plays to the end, calling `check` after every step; fails if the game does not end."""
        for _ in range(max_steps):
            if self.step() is None:
                break
            if check is not None:
                check(self.game)
        assert self.game.is_over, (
            f"game not over after {len(self.steps)} steps and no input is possible"
            if len(self.steps) < max_steps else f"game not over after {max_steps} steps"
        )


def new_driver(rules: Rules, seed: int, timeout_rate: float = 0.1) -> Driver:
    return Driver(Game.new(rules, seed, now=0.0), random.Random(seed), timeout_rate=timeout_rate)


def all_cards_in(value: object) -> set[str]:
    """Every card named anywhere in a JSON-like value (a view's or a game's to_dict())."""
    found: set[str] = set()

    def walk(v: object) -> None:
        if isinstance(v, Card):
            found.add(str(v))
        elif isinstance(v, str):
            with contextlib.suppress(ValueError):
                found.add(str(Card.parse(v)))
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, Iterable):
            for x in v:
                walk(x)

    walk(value)
    return found
