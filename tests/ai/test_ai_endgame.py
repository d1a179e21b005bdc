"""The exact endgame solver: with the stock empty and two players left, nothing is hidden."""

from __future__ import annotations

import random

from engine import Action, Game
from engine.ai import get_player
from engine.ai.baseline import Solver, perfect_information, reward
from engine.ai.driver import seats_to_ask
from engine.ai.policy import normal_action
from engine.ai.search import HorizonSolver, LeanSolver, cards_first
from tests.helpers.deals import cards
from tests.helpers.positions import endgame, positions

FAR = float("inf")


def test_leading_the_unbeatable_trump_wins_where_the_low_card_only_draws() -> None:
    # Trump ♠. Seat 0: A♠ 6♥; seat 1: 7♥ 8♣. Lead A♠: seat 1 cannot beat it and takes (R6.1),
    # seat 0 leads again with 6♥, its last card, and is safe (R8.1). Lead 6♥ instead: seat 1
    # beats it with 7♥, leads 8♣ (his last card) and seat 0's A♠ beats it: both out, a draw.
    g = endgame("As 6h", "7h 8c", trump="s")
    assert perfect_information(g, 0)
    action, value = Solver(0, FAR).best(g, g.legal_actions(0))
    assert (action, value) == (Action("attack", cards("As")[0]), 1.0)
    low = g.copy()
    low.apply(0, Action("attack", cards("6h")[0]), 0.0)
    assert Solver(0, FAR).value(low, 0.0, 1.0) == 0.5
    # The heuristic leads low here; the hard player finds the win.
    assert normal_action(g, 0, g.legal_actions(0)) == Action("attack", cards("6h")[0])
    hard = get_player("hard", budget=30.0, iterations=10, nodes=10_000)
    assert hard.choose(g.view(0), g.legal_actions(0), random.Random(1)).card == cards("As")[0]


def test_a_defender_who_cannot_win_saves_the_draw() -> None:
    # Trump ♥. Seat 1 leads 9♣ and keeps 9♦; seat 0 holds 10♣ A♥. Beating with 10♣ lets seat 1
    # throw in 9♦ (R5.2) and leave; A♥ beats it with seat 0's last card: a draw (R8.3). Beating
    # with A♥ first leaves 10♣, which cannot beat 9♦: seat 0 must take and is the durak.
    g = endgame("10c Ah", "9c 9d", trump="h", attacker=1)
    g.apply(1, Action("attack", cards("9c")[0]), 0.0)
    action, value = Solver(0, FAR).best(g, g.legal_actions(0))
    assert (action, value) == (Action("defend", cards("10c")[0], 0), 0.5)
    trump_first = g.copy()
    trump_first.apply(0, Action("defend", cards("Ah")[0], 0), 0.0)
    assert Solver(0, FAR).value(trump_first, 0.0, 1.0) == 0.0


def _minimax(g: Game, seat: int) -> float:
    """Plain minimax over the driver's turn order: no pruning, no table (a reference)."""
    g = g.copy()
    while not g.is_over and not seats_to_ask(g):
        g.advance(g.next_deadline)
    if g.is_over:
        return reward(g, seat)
    mover = seats_to_ask(g)[0]
    values = []
    for a in g.legal_actions(mover):
        child = g.copy()
        child.apply(mover, a, 0.0)
        values.append(_minimax(child, seat))
    return max(values) if mover == seat else min(values)


def test_the_solvers_agree_with_plain_minimax_on_small_endgames() -> None:
    rng = random.Random(5)
    deck = [str(c) for c in cards("9s 10s Js Qs Ks As 9h 10h Jh Qh Kh Ah "
                                  "9d 10d Jd Qd Kd Ad 9c 10c Jc Qc Kc Ac")]
    checked = 0
    while checked < 40:
        rng.shuffle(deck)
        a, b = rng.randint(1, 3), rng.randint(1, 3)
        variant = rng.choice(("throw-in", "transfer"))
        g = endgame(" ".join(deck[:a]), " ".join(deck[a:a + b]), trump=rng.choice("shdc"),
                    attacker=rng.randint(0, 1), variant=variant, deck=24)
        seat = rng.randint(0, 1)
        if seats_to_ask(g) != [seat]:
            seat = seats_to_ask(g)[0]
        expected = _minimax(g, seat)
        assert Solver(seat, FAR).best(g, g.legal_actions(seat))[1] == expected
        assert LeanSolver(seat, FAR).best(g, g.legal_actions(seat))[1] == expected
        checked += 1


def test_the_solver_ends_where_cards_can_go_round_for_ever() -> None:
    # Transfers and takes can bring a position back (found by search); a line that returns to
    # a position scores a draw instead of recursing without end.
    g = endgame("Jd 10s 9h 10d", "9c 10c Js 9d", trump="s", variant="transfer", deck=24)

    class Watched(set):
        returns = 0

        def __contains__(self, key: object) -> bool:
            found = set.__contains__(self, key)
            Watched.returns += found
            return found

    solver = Solver(0, FAR)
    solver.line = Watched()
    _, value = solver.best(g, g.legal_actions(0))
    assert Watched.returns > 0
    assert value in (0.0, 0.5, 1.0)


def test_the_lean_order_tries_cards_first_plain_before_trump_and_take_or_pass_last() -> None:
    # Trump ♥. Seat 0 attacks with 9♣; seat 1 may beat it with 10♣ or a trump, take, or (in the
    # transfer game) transfer with 9♠ or show 9♥ (R9.7).
    g = endgame("9c 6d", "10c 7h 9s 9h", trump="h", variant="transfer")
    g.apply(0, Action("attack", cards("9c")[0]), 0.0)
    order = cards_first(g, g.legal_actions(1))
    assert order[-1] == Action("take")
    trumps = [i for i, a in enumerate(order) if a.card and a.card.suit_index == g.trump]
    plain = [i for i, a in enumerate(order) if a.card and a.card.suit_index != g.trump]
    assert trumps and plain and max(plain) < min(trumps)
    assert sorted(order) == sorted(g.legal_actions(1))


def big_endings(count: int) -> list[tuple[Game, int]]:
    """Heads-up endings with the stock empty and many cards in hand, from random games."""
    found = [(g, seat) for g, seat in positions(seed=36, games=200, every=1)
             if perfect_information(g, seat) and not g.attacks
             and sum(map(int.bit_count, g.hands)) >= 12]
    return found[:count]


def test_the_horizon_search_is_exact_when_it_reaches_the_end_and_cut_otherwise() -> None:
    g = endgame("As 6h", "7h 8c", trump="s")
    deep = HorizonSolver(0, FAR, depth=40)
    assert deep.best(g, g.legal_actions(0)) == LeanSolver(0, FAR).best(g, g.legal_actions(0))
    assert not deep.cut
    for g, seat in big_endings(6):
        shallow = HorizonSolver(seat, FAR, depth=2)
        action, value = shallow.best(g, g.legal_actions(seat))
        assert shallow.cut and 0.0 <= value <= 1.0 and action in g.legal_actions(seat)


def test_where_the_exact_search_does_not_fit_hard_answers_from_the_deepest_it_finished() -> None:
    hard = get_player("hard", budget=30.0, iterations=10, nodes=3_000)
    baseline = get_player("baseline", budget=30.0, iterations=10, nodes=3_000)
    cases = big_endings(8)
    assert len(cases) >= 4
    deepened = 0
    for g, seat in cases:
        legal = g.legal_actions(seat)
        assert hard.choose(g.view(seat), legal, random.Random(2)) in legal
        assert "deals" not in hard.last   # never the noisy playouts of the one known deal
        deepened += not hard.last["solved"] and hard.last["depth"] >= 2
        baseline.choose(g.view(seat), legal, random.Random(2))
        assert baseline.last["solved"] or baseline.last["deals"] > 0
    assert deepened >= 2
