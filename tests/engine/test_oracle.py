"""Random games checked step by step against a small reference reading of docs/rules.md.

The reference (Oracle) is written from the rules, not from the engine: it computes every seat's
legal moves (R4, R5, R6, R9), the attack limit (R5.3, R9.4), the standing passes (R5.4, R6.3),
who attacks after a transfer (R9.1), each time-out's effect (R10.2), the decided game that ends
at once (R8.5), and each round's close: discard or pick-up, drawing order, leaving, the end of
the game and who plays next (R6.4, R6.5, R7, R8, R9.6).
"""

from __future__ import annotations

import random
from itertools import permutations

from hypothesis import given
from hypothesis import strategies as st

from engine import Action, Card, Game, Rules
from tests.helpers.drivers import (
    MAX_STEPS,
    Driver,
    Step,
    budget,
    new_driver,
    seeds,
    tables,
    timeout_rates,
)

SUIT_ORDER = "♠♣♦♥"


def beats(card: Card, attack: Card, trump: str) -> bool:
    """R4.1, R4.2."""
    if card.suit == attack.suit:
        return card.rank > attack.rank
    return card.suit == trump


def forced_lead(hand: list[Card], trump: str) -> Card:
    """R10.2: lowest non-trump, else lowest; ties by the suit order of R3.2."""
    plain = [c for c in hand if c.suit != trump] or hand
    return min(plain, key=lambda c: (c.rank, SUIT_ORDER.index(c.suit)))


def clockwise(n: int, start: int, seats: list[int]) -> list[int]:
    """The given seats in clockwise order after `start` (start itself last, if present)."""
    return [s for s in ((start + i) % n for i in range(1, n + 1)) if s in seats]


class Oracle:
    def __init__(self, game: Game) -> None:
        self.rules: Rules = game.rules
        self.n = game.rules.players
        self.first_round = True
        self.round_hand = len(game.hand(game.defender))
        self.passed: set[int] = set()
        self.shown: set[int] = set()

    # ---- expectations ------------------------------------------------------------------------

    def round_max(self) -> int:
        if self.first_round:
            return min(self.rules.max_attack, self.rules.first_round_limit)
        return self.rules.max_attack

    def limit(self) -> int:
        return min(self.round_max(), self.round_hand)

    def throwers(self, game: Game) -> set[int]:
        active, d = game.active_seats, game.defender
        if self.rules.throw_in == "all" or len(active) <= 3:
            return set(active) - {d}
        others = clockwise(self.n, d, [s for s in active if s != d])
        return {others[0], others[-1]}

    def legal(self, game: Game, seat: int) -> set[Action]:
        if game.is_over or seat not in game.active_seats:
            return set()
        hand = game.hand(seat)
        if not game.table:
            return {Action("attack", c) for c in hand} if seat == game.attacker else set()
        trump = game.trump_suit
        ranks = {c.rank for pair in game.table for c in pair if c is not None}
        if seat == game.defender:
            unbeaten = [t for t, (_, d) in enumerate(game.table) if d is None]
            if game.taking or not unbeaten:
                return set()
            out = {Action("defend", c, t) for t in unbeaten for c in hand
                   if beats(c, game.table[t][0], trump)}
            out.add(Action("take"))
            if self.rules.variant == "transfer" and len(unbeaten) == len(game.table):
                out |= self.transfers(game, seat, hand, ranks)
            return out
        if seat not in self.throwers(game):
            return set()
        out = set()
        if len(game.table) < self.limit():
            out = {Action("attack", c) for c in hand if c.rank in ranks}
        if seat not in self.passed:
            out.add(Action("pass"))
        return out

    def transfers(self, game: Game, seat: int, hand: list[Card], ranks: set[int]) -> set[Action]:
        """R9.1, R9.2, R9.7."""
        (rank,) = ranks
        nxt = clockwise(self.n, seat, game.active_seats)[0]
        if nxt == seat:
            return set()
        k, room = len(game.table), len(game.hand(nxt))
        out = set()
        if k + 1 <= self.round_max() and room >= k + 1:
            out |= {Action("transfer", c) for c in hand if c.rank == rank}
        if self.rules.show_trump and seat not in self.shown and room >= k:
            out |= {Action("show_trump", c) for c in hand
                    if c.rank == rank and c.suit == game.trump_suit}
        return out

    def decided(self, game: Game) -> bool:
        """R8.5: the stock is empty and at most one player holds cards, and no draw is left:
        he is not the defender, has declared Take, or cannot beat every unbeaten card with
        exactly his cards (with the no-draws option a draw does not count)."""
        if game.stock_count or len(game.active_seats) > 1:
            return False
        if not game.active_seats:
            return True
        (last,) = game.active_seats
        if last != game.defender or game.taking or self.rules.no_draws:
            return True
        unbeaten = [a for a, d in game.table if d is None]
        hand = game.hand(last)
        return len(hand) != len(unbeaten) or not any(
            all(beats(c, a, game.trump_suit) for c, a in zip(order, unbeaten, strict=True))
            for order in permutations(hand))

    def check_decided(self, game: Game) -> None:
        """R8.5 after a move or a time-out (a round's close is checked by check_close)."""
        if not self.decided(game):
            assert not game.is_over, "R8.5: the game is not decided yet"
            return
        assert game.is_over and game.next_deadline is None, "R8.5: a decided game ends at once"
        last = game.active_seats
        durak = last[0] if last else (game.defender if self.rules.no_draws else None)
        assert game.durak == durak, "R8.5, R8.2, R8.3"

    def check_state(self, game: Game) -> None:
        for seat in range(self.n):
            assert set(game.legal_actions(seat)) == self.legal(game, seat), f"seat {seat}"
        if game.table and not game.is_over:
            assert game.attack_limit == self.limit(), "R5.3 / R9.4 attack limit"
        assert game.view(0).passed == frozenset(self.passed), "R5.4 / R6.3 standing passes"

    # ---- transitions -------------------------------------------------------------------------

    def after_action(self, pre: Game, seat: int, action: Action, game: Game) -> None:
        ranks = {c.rank for pair in pre.table for c in pair if c is not None}
        if action.kind == "attack" and not pre.table:
            self.round_hand = len(pre.hand(pre.defender))
        if action.kind in ("attack", "defend") and action.card.rank not in ranks:
            self.passed.clear()
        if action.kind == "take":
            self.passed.clear()
        if action.kind == "pass":
            self.passed.add(seat)
        if action.kind in ("transfer", "show_trump"):
            nxt = clockwise(self.n, seat, pre.active_seats)[0]
            assert game.defender == nxt, "R9.1: the next active player defends"
            assert game.attacker == seat != game.defender, "R9.1: the transferrer attacks"
            assert game.round_starter == pre.round_starter, "R9.6: who began the round stays"
            self.round_hand = len(pre.hand(nxt))
            self.passed.clear()
            if action.kind == "show_trump":
                self.shown.add(seat)
                assert action.card in game.hand(seat), "R9.7: the shown trump stays in hand"
        if action.kind != "pass" and not game.stock_count and not game.hand(seat):
            assert seat not in game.active_seats, "R8.1: out of cards, out at once"
            assert game.finished_order[-1] == seat or seat == game.durak, "R8.1, R8.3"
        self.check_decided(game)

    def after_deadline(self, pre: Game, game: Game) -> None:
        if not pre.table:
            lead = forced_lead(pre.hand(pre.attacker), pre.trump_suit)
            assert game.table == [(lead, None)], "R10.2: forced lead"
            self.round_hand = len(pre.hand(pre.defender))
            self.check_decided(game)
            return
        if any(d is None for _, d in pre.table) and not pre.taking:
            assert game.taking, "R10.2: a defender who times out takes"
            assert game.table == pre.table
            self.passed.clear()
            self.check_decided(game)
            return
        self.check_close(pre, game)

    def check_close(self, pre: Game, game: Game) -> None:
        """R6.4, R6.5, R7.1, R7.2, R8.1-R8.4, R9.6."""
        n, d, taken = self.n, pre.defender, pre.taking
        table = {c for pair in pre.table for c in pair if c is not None}
        hands = {s: set(pre.hand(s)) for s in range(n)}
        if taken:
            hands[d] |= table
        assert game.discard_count == pre.discard_count + (0 if taken else len(table)), "R6.4"
        active = pre.active_seats
        starter = pre.round_starter
        order = [s for s in [starter, *clockwise(n, starter, active)] if s in active and s != d]
        order = list(dict.fromkeys(order)) + ([d] if d in active else [])
        stock = pre.stock_count
        drawn = {}
        for s in order:
            drawn[s] = min(max(0, 6 - len(hands[s])), stock)
            stock -= drawn[s]
        assert game.stock_count == stock
        for s in range(n):
            new = set(game.hand(s))
            assert hands[s] <= new and len(new) == len(hands[s]) + drawn.get(s, 0), (
                f"R7.1: seat {s} should draw {drawn.get(s, 0)} in order {order}")
        if pre.trump_card is not None and stock == 0:
            last = [s for s in order if drawn[s]][-1]
            assert pre.trump_card in game.hand(last), "R2.2: the face-up card is drawn last"
        leavers = [s for s in order if stock == 0 and not hands[s] and not drawn[s]]
        still = [s for s in active if s not in leavers]
        finished = [*pre.finished_order, *leavers]
        self.first_round = False
        self.passed.clear()
        if len(still) <= 1:
            assert game.is_over, "R8.2: at most one player holds cards"
            durak = still[0] if still else (d if self.rules.no_draws else None)
            assert game.durak == durak, "R8.2 / R8.3"
            assert game.finished_order == [s for s in finished if s != durak], "R8.2 ranking"
            return
        assert not game.is_over
        assert game.finished_order == finished, "R8.1, R8.2: ranked in drawing order"
        attacker = d if not taken and d in still else clockwise(n, d, still)[0]
        assert (game.attacker, game.defender) == (attacker, clockwise(n, attacker, still)[0]), (
            "R6.5 / R8.4: who plays next")
        assert game.round_starter == attacker, "R7.1: who begins the round draws first"
        self.round_hand = len(game.hand(game.defender))


def run(driver: Driver, oracle: Oracle) -> None:
    game = driver.game
    oracle.check_state(game)
    for _ in range(MAX_STEPS):
        step = driver.next_step()
        if step is None:
            break
        if step.seat is None:
            while game.next_deadline is not None and game.next_deadline <= step.now:
                pre = game.copy()
                game.advance(game.next_deadline)
                oracle.after_deadline(pre, game)
            game.advance(step.now)
        else:
            pre = game.copy()
            step.run(game)
            oracle.after_action(pre, step.seat, step.action, game)
        driver.now = max(driver.now, step.now)
        driver.steps.append(Step(step.now, step.seat, step.action))
        oracle.check_state(game)
    assert game.is_over


@budget(40)
@given(rules=tables(), seed=seeds, timeout_rate=timeout_rates)
def test_random_games_follow_the_rules_step_by_step(
    rules: Rules, seed: int, timeout_rate: float
) -> None:
    """R4-R10: legal moves, limits, passes, time-outs and every round's close agree with a
    reference reading of the rules in random games of every table."""
    driver = new_driver(rules, seed, timeout_rate)
    run(driver, Oracle(driver.game))


@budget(20)
@given(seed=seeds, players=st.integers(4, 6), variant=st.sampled_from(("throw-in", "transfer")))
def test_neighbours_option_in_random_games(seed: int, players: int, variant: str) -> None:
    """R5.2 "neighbours" with 4-6 players, where it matters, against the reference."""
    rules = Rules(players=players, variant=variant, throw_in="neighbours")
    driver = Driver(Game.new(rules, seed), random.Random(seed), timeout_rate=0.05)
    run(driver, Oracle(driver.game))
