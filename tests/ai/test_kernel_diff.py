"""The kernel against the engine, step by step (engine/kernel/compare.py): the legal actions of
every seat, the seat the driver asks, `normal`'s choice for every seat with a move, and the whole
state after every move and every deadline. The engine is the authority; a rule changed in it and
not in the kernel fails here (the self-checks at the end change one and see the check fail).

bench/kernel_diff.py runs the same check for a million steps.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

import engine.ai.policy as policy
import engine.game as engine_game
from engine.actions import Action, Refusal
from engine.cards import Card
from engine.game import Game
from engine.kernel import compare
from engine.rules import Rules, ThrowIn, Variant

STEPS = 30_000   # about 4 s once the kernel is compiled (a cold compile adds about a minute)


def test_the_kernel_matches_the_engine_in_random_games() -> None:
    tally = compare.Tally()
    for tally in compare.games_until(STEPS, seed=40):   # noqa: B007 (the last tally is read)
        pass
    assert tally.steps >= STEPS
    assert tally.differences == 0, "\n".join(tally.described)
    # Every table size in both games, and the corners of the rules nobody writes a test for.
    assert {f"{p} players, {v}" for p in range(2, 7) for v in Variant} <= set(tally.tables)
    for corner in ("transfer refused: receiver holds too few cards", "show-trump transfer open",
                   "first round's limit reached", "defender out of cards mid-round", "time-out"):
        assert tally.corners[corner] >= 5, (corner, tally.corners)


def _played_on(start: Callable[[], Game], games: int = 30) -> compare.Tally:
    """`games` random continuations of one position, side by side."""
    tally = compare.Tally()
    rng = random.Random(7)
    for _ in range(games):
        compare.play_game(start(), rng, tally, normal_share=rng.choice((0.0, 0.5, 1.0)))
    assert tally.differences == 0, "\n".join(tally.described)
    return tally


def _attacked(rules: Rules, hands: list[list[str]], stock: list[str], lead: str,
              trump: str | None = None) -> Callable[[], Game]:
    """A deal where seat 0 has led `lead` (a fresh game each call)."""
    def start() -> Game:
        g = Game.from_deal(rules, hands, stock, trump=trump, first_attacker=0)
        g.apply(0, Action("attack", Card.parse(lead)), 0.0)
        return g
    return start


def test_a_transfer_to_a_hand_too_small_is_refused_alike() -> None:
    rules = Rules(variant=Variant.TRANSFER, players=3)
    start = _attacked(rules, [["7s", "Ks", "9d"], ["7h", "9c", "10d"], ["Ac"]],
                      ["6d", "8d", "Jd", "Qh"], "7s")
    g = start()
    (refusal, _), _ = g._transfers(1)
    assert refusal == Refusal.TRANSFER_HAND   # seat 2 holds one card: two would reach him
    assert _played_on(start).corners["transfer refused: receiver holds too few cards"]


def test_a_show_trump_transfer_is_played_alike() -> None:
    rules = Rules(variant=Variant.TRANSFER, players=3, show_trump=True)
    start = _attacked(rules, [["7s", "Ks", "9d"], ["7h", "9c", "10d"], ["Ac", "Kc", "8c"]],
                      ["6d", "8d", "Jd", "Qh"], "7s")   # hearts are trump: 7♥ may be shown
    g = start()
    assert Action("show_trump", Card.parse("7h")) in g.legal_actions(1)
    assert _played_on(start).corners["show-trump transfer open"]


def test_the_first_rounds_limit_is_kept_alike() -> None:
    rules = Rules(players=3, first_round_limit=5)
    # Low beaters open ranks the attackers hold: five cards can reach the table.
    start = _attacked(rules, [["6s", "6c", "7c", "8s", "9d", "10d"],
                              ["7s", "8c", "9s", "9c", "10s", "10c"],
                              ["6d", "6h", "7d", "8d", "9h", "10h"]],
                      ["Jd", "Qd", "Kd", "Ad", "Jh"], "6s")
    assert _played_on(start, games=60).corners["first round's limit reached"]


def test_a_defender_out_of_cards_mid_round_is_played_alike() -> None:
    rules = Rules(players=3, throw_in=ThrowIn.NEIGHBOURS)
    start = _attacked(rules, [["7s", "8s", "9s"], ["As"], ["9c", "10c", "8c"]], [], "7s",
                      trump="h")
    g = start()
    # His last card, the stock empty: he is out.
    g.apply(1, Action("defend", Card.parse("As"), 0), 0.0)
    assert 1 not in g.active_seats and not g.is_over
    assert _played_on(start).corners["defender out of cards mid-round"]


# ---- the check can fail: a rule changed in the engine alone ----------------------------------

def _loose_transfers(original: Callable) -> Callable:
    """R9.2 forgotten: a transfer to a hand too small is allowed."""
    def transfers(self: Game, seat: int) -> tuple:
        (refusal, cards), shown = original(self, seat)
        if refusal == Refusal.TRANSFER_HAND:
            refusal, cards = None, self.hands[seat] & self.table_ranks
        return (refusal, cards), shown
    return transfers


@pytest.mark.parametrize("change", ["hand size", "R9.2", "normal takes"])
def test_self_check_a_rule_changed_in_the_engine_alone_is_found(
        change: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if change == "hand size":
        monkeypatch.setattr(engine_game, "HAND_SIZE", 5)   # R7.1: draw up to five
    elif change == "R9.2":
        monkeypatch.setattr(Game, "_transfers", _loose_transfers(Game._transfers))
    else:
        monkeypatch.setattr(policy, "_should_take", lambda *args: False)
    for tally in compare.games_until(STEPS, seed=41):
        if tally.differences:
            break
    assert tally.differences, f"{change}: no difference found in {tally.steps} steps"
