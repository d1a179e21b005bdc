"""Random games for property tests: tables Hypothesis draws, and a driver of random moves."""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from engine import Action, Game, Rules

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
