"""The engine and the kernel side by side: the differential check that holds the kernel to the
rules (tests/ai/test_kernel_diff.py, and bench/kernel_diff.py for a million steps).

From the same state, at every step: each seat's legal actions (in the engine's order), the
first seat the driver asks, `normal`'s choice for every seat with a move, and after the step the
whole state (`layout.encode` of the engine's game against the kernel's array). A step is a move
of a random seat among those with a move (by `normal`, or at random), or the next deadline.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from engine.actions import EventKind, Refusal
from engine.ai.driver import seats_to_ask
from engine.ai.policy import normal_action
from engine.game import Game
from engine.kernel import normal as kernel_normal
from engine.kernel import play
from engine.kernel.layout import SLOT_NAMES, action_code, action_of, encode, encode_rules
from engine.rules import DECKS, MAX_ATTACK, SMALL_DECK_PLAYERS, Rules, ThrowIn, Variant

MAX_STEPS = 3_000   # a random game that goes round for longer is cut (cards can circle)


@dataclass
class Tally:
    """What a run compared: steps, differences (the first few described), corners reached."""

    steps: int = 0
    games: int = 0
    differences: int = 0
    described: list[str] = field(default_factory=list)
    corners: Counter[str] = field(default_factory=Counter)
    tables: Counter[str] = field(default_factory=Counter)   # games by players and variant

    def differ(self, what: str) -> None:
        self.differences += 1
        if len(self.described) < 10:
            self.described.append(what)


def random_rules(rng: random.Random) -> Rules:
    """Any table the rules allow: 2-6 players, every deck, both games, every option."""
    players = rng.randint(2, 6)
    decks = [d for d in DECKS if d != 24 or players <= SMALL_DECK_PLAYERS]
    variant = rng.choice((Variant.THROW_IN, Variant.TRANSFER))
    return Rules(
        variant=variant, players=players, deck=rng.choice(decks),
        max_attack=MAX_ATTACK if rng.random() < 0.7 else rng.randint(1, MAX_ATTACK),
        first_round_limit=rng.choice((MAX_ATTACK, 5, rng.randint(1, MAX_ATTACK))),
        throw_in=rng.choice((ThrowIn.ALL, ThrowIn.NEIGHBOURS)),
        show_trump=variant == Variant.TRANSFER and rng.random() < 0.5,
        no_draws=rng.random() < 0.2,
    )


def _corners(g: Game, tally: Tally) -> None:
    """Count the hidden-rule corners this state is in, so a run can show it reached them."""
    if g.is_over:
        return
    d = g.defender
    if g.attacks and g.unbeaten == len(g.attacks) and not g.taking \
            and g.rules.variant == Variant.TRANSFER:
        (refusal, _), (_, trumps) = g._transfers(d)
        if refusal == Refusal.TRANSFER_HAND and g.hands[d] & g.table_ranks:
            tally.corners["transfer refused: receiver holds too few cards"] += 1
        if trumps:
            tally.corners["show-trump transfer open"] += 1
    if g.first_round and g.round_limit < g.rules.max_attack and len(g.attacks) == g.round_limit:
        tally.corners["first round's limit reached"] += 1
    if g.attacks and not g.stock and not g.hands[d]:
        tally.corners["defender out of cards mid-round"] += 1


def _compare(g: Game, s: np.ndarray, r: np.ndarray, buf: np.ndarray, tally: Tally,
             where: str) -> list[list[int]]:
    """Compare everything at one state; each seat's legal action codes (the engine's)."""
    mine = encode(g)
    if not np.array_equal(mine, s):
        slots = [f"{SLOT_NAMES[i]}: engine {mine[i]}, kernel {s[i]}"
                 for i in np.flatnonzero(mine != s)[:4]]
        tally.differ(f"{where}: state differs: " + "; ".join(slots))
        s[:] = mine   # go on from the engine's state: one difference, not a cascade
    asked = seats_to_ask(g)
    first = asked[0] if asked else -1
    if play.first_to_ask(s, r) != first:
        tally.differ(f"{where}: first seat asked: engine {first}, kernel "
                     f"{play.first_to_ask(s, r)}")
    codes: list[list[int]] = []
    for seat in range(g.players):
        legal = g.legal_actions(seat)
        want = [action_code(a) for a in legal]
        n = play.legal_actions(s, r, seat, buf)
        if list(buf[:n]) != want:
            got = [str(action_of(int(c))) for c in buf[:n]]
            tally.differ(f"{where}: seat {seat}'s legal actions: engine "
                         f"{list(map(str, legal))}, kernel {got}")
        codes.append(want)
        if legal:
            choice = action_code(normal_action(g, seat, legal))
            kernel_choice = kernel_normal.normal_action(s, r, seat, buf, n)
            if kernel_choice != choice:
                tally.differ(f"{where}: seat {seat}'s normal choice: engine "
                             f"{action_of(choice)}, kernel {action_of(int(kernel_choice))}")
    return codes


def _last_time(g: Game) -> float:
    """The clock at `g`'s last log entry (a move's time, a deadline's), 0 for a fresh deal."""
    for entry in reversed(g.log):
        if entry[0] == "act":
            return float(entry[5])
        if entry[0] == "tick":
            return float(entry[1])
    return 0.0


def play_game(g: Game, rng: random.Random, tally: Tally, normal_share: float = 0.5,
              wait_chance: float = 0.03) -> None:
    """The game `g` played on (in place) side by side; each step's differences go into
    `tally`."""
    rules = g.rules
    s, r = encode(g), encode_rules(rules)
    buf = np.empty(play.MAX_ACTIONS, dtype=np.int64)
    tally.games += 1
    tally.tables[f"{rules.players} players, {rules.variant}"] += 1
    now = _last_time(g)
    for step in range(MAX_STEPS):
        where = f"{rules} seed {g.seed} step {step}"
        codes = _compare(g, s, r, buf, tally, where)
        _corners(g, tally)
        if g.is_over:
            return
        movers = [seat for seat, legal in enumerate(codes) if legal]
        tally.steps += 1
        if not movers or rng.random() < wait_chance:
            due = g.next_deadline
            assert due is not None   # a game not over always has a clock running
            now = due
            events = g.advance(now)
            play.fire(s, r)
            if any(e.kind == EventKind.TIMEOUT for e in events):
                tally.corners["time-out"] += 1
            continue
        seat = rng.choice(movers)
        legal = g.legal_actions(seat)
        action = (normal_action(g, seat, legal) if rng.random() < normal_share
                  else rng.choice(legal))
        g.apply(seat, action, now)
        play.apply(s, r, seat, action_code(action))
    _compare(g, s, r, buf, tally, f"{rules} seed {g.seed} end")


def run(games: int, seed: int, tally: Tally | None = None) -> Tally:
    """`games` random games on random tables (`random_rules`), side by side."""
    tally = tally or Tally()
    rng = random.Random(seed)
    for i in range(games):
        play_game(Game.new(random_rules(rng), seed * 1_000_003 + i), rng, tally,
                  normal_share=rng.choice((0.0, 0.5, 0.9, 1.0)))
    return tally


def games_until(steps: int, seed: int) -> Iterator[Tally]:
    """Random games until `steps` steps were compared; the tally after each game."""
    tally = Tally()
    rng = random.Random(seed)
    i = 0
    while tally.steps < steps:
        play_game(Game.new(random_rules(rng), seed * 1_000_003 + i), rng, tally,
                  normal_share=rng.choice((0.0, 0.5, 0.9, 1.0)))
        i += 1
        yield tally
