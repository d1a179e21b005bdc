"""Random games: invariants that hold at every step, whatever the table, the moves and the timing.

Games are driven by tests.helpers.drivers.Driver with a seed drawn by Hypothesis, so a failure
reports a seed and a table that reproduce it. Set DURAK_ENGINE_PROFILE=engine-thorough for a
longer search.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given

from engine import Action, Card, Game, IllegalMove, Rules
from engine.actions import MESSAGES
from tests.helpers.deals import KINDS, all_cards_in
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

LOWEST = {24: 9, 36: 6, 52: 2}


def deck_of(rules: Rules) -> set[str]:
    return {str(Card(r, s)) for r in range(LOWEST[rules.deck], 15) for s in "♠♣♦♥"}


def check_invariants(game: Game) -> None:
    """R1-R8 invariants of any reachable state."""
    rules, n = game.rules, game.rules.players
    state = game.to_dict()["state"]
    # Every card exactly once among hands, table, stock and discard (R1.1, R6.4, R7).
    places = [c for h in state["hands"] for c in h] + state["stock"] + state["discard"]
    places += [c for pair in state["table"] for c in pair if c is not None]
    assert len(places) == rules.deck
    assert {str(Card.parse(c)) for c in places} == deck_of(rules)
    hands = [game.hand(s) for s in range(n)]
    on_table = [c for a, d in game.table for c in (a, d) if c is not None]
    assert sum(map(len, hands)) + len(on_table) + game.stock_count + game.discard_count == (
        rules.deck
    )
    # R2.2: the face-up card is the last card of the stock, there exactly while the stock lasts.
    if game.stock_count:
        assert game.trump_card is not None
        assert state["stock"][-1] == str(game.trump_card)
        assert game.trump_card.suit == game.trump_suit
    else:
        assert game.trump_card is None
    # R8.1, R8.2: seats are either active or finished; with no stock nobody active is empty-handed.
    assert set(game.active_seats).isdisjoint(game.finished_order)
    assert len(set(game.finished_order)) == len(game.finished_order)
    if game.is_over:
        assert game.next_deadline is None
        assert all(game.legal_actions(s) == [] for s in range(n))
        everyone = [*game.finished_order, *([] if game.durak is None else [game.durak])]
        assert sorted(everyone) == list(range(n))
        return
    assert sorted([*game.active_seats, *game.finished_order]) == list(range(n))
    assert game.attacker != game.defender, "R9.1: never attacker and defender at once"
    if not game.stock_count:
        assert all(hands[s] for s in game.active_seats), "R8.1: out of cards, out of the game"
    for s in range(n):
        if s not in game.active_seats:
            assert game.legal_actions(s) == []
    assert game.acting_seats == [s for s in range(n) if game.legal_actions(s)]
    # R5.3: the attack limit; R6.1: never more unbeaten cards than the defender can answer.
    if game.table:
        assert len(game.table) <= game.attack_limit <= rules.max_attack <= 6
        unbeaten = sum(d is None for _, d in game.table)
        if not game.taking:
            assert unbeaten <= len(hands[game.defender])
    else:
        # R7.1: between rounds, while the stock lasts, everyone holds at least six cards.
        if game.stock_count:
            assert all(len(hands[s]) >= 6 for s in game.active_seats)
        assert game.legal_actions(game.attacker), "the leading attacker may always lead"


def play_checked(driver: Driver) -> None:
    driver.play_out(MAX_STEPS, check_invariants)


@budget(40)
@given(rules=tables(), seed=seeds, timeout_rate=timeout_rates)
def test_random_games_keep_invariants_and_end(rules: Rules, seed: int, timeout_rate: float) -> None:
    """R1-R10: cards are conserved, limits hold, and every game ends in a bounded number of steps
    (a state with no legal move and no deadline must be a finished game)."""
    driver = new_driver(rules, seed, timeout_rate)
    check_invariants(driver.game)
    play_checked(driver)
    game = driver.game
    assert game.durak is not None or not rules.no_draws, "R8.3: no draws with the option on"


@budget(100)
@given(rules=tables(), seed=seeds, timeout_rate=timeout_rates)
def test_replay_rebuilds_the_same_game(rules: Rules, seed: int, timeout_rate: float) -> None:
    """R10.5, API: Game.replay(to_dict()) reproduces the state exactly, mid-game and at the end."""
    driver = new_driver(rules, seed, timeout_rate)
    stop = random.Random(seed).randint(0, 60)
    for _ in range(stop):
        if driver.step() is None:
            break
    d = driver.game.to_dict()
    assert Game.replay(d).to_dict() == d
    driver.play_out(MAX_STEPS)
    d = driver.game.to_dict()
    assert d["log"], "the log records what happened"
    assert Game.replay(d).to_dict() == d
    assert driver.game.version == len(driver.game.log)


@budget(60)
@given(rules=tables(), seed=seeds, timeout_rate=timeout_rates)
def test_json_round_trip_and_restored_game_continues_identically(
    rules: Rules, seed: int, timeout_rate: float
) -> None:
    """API: to_dict -> JSON -> from_dict -> to_dict is exact, and the restored game answers the
    same inputs with the same states to the end."""
    driver = new_driver(rules, seed, timeout_rate)
    stop = random.Random(seed).randint(0, 80)
    for _ in range(stop):
        if driver.step() is None:
            break
    d = driver.game.to_dict()
    restored = Game.from_dict(json.loads(json.dumps(d)))
    assert restored.to_dict() == d
    for _ in range(MAX_STEPS):
        step = driver.step()
        if step is None:
            break
        step.run(restored)
        assert restored.to_dict() == driver.game.to_dict()
        assert restored.next_deadline == driver.game.next_deadline
    assert restored.is_over == driver.game.is_over


def random_action(rng: random.Random, rules: Rules) -> tuple[int, Action]:
    """Any action at all: random seat (one past the table too), kind, card of 52, target."""
    seat = rng.randint(0, rules.players)
    kind = rng.choice((*KINDS, "bogus"))
    card = rng.choice((None, Card(rng.randint(2, 14), rng.choice("♠♣♦♥"))))
    target = rng.choice((None, None, -1, 0, 1, 2, 5, 6))
    return seat, Action(kind, card, target)


@budget(30)
@given(rules=tables(), seed=seeds)
def test_actions_outside_legal_actions_are_illegal_and_change_nothing(
    rules: Rules, seed: int
) -> None:
    """API: legal_actions lists every legal move: anything else raises IllegalMove and leaves
    to_dict() unchanged; every listed move is accepted (tried on a copy)."""
    driver = new_driver(rules, seed)
    rng = random.Random(seed ^ 0x5EED)
    for n in range(MAX_STEPS):
        game = driver.game
        for _ in range(4):
            seat, action = random_action(rng, rules)
            if seat < rules.players and action in game.legal_actions(seat):
                continue
            before = game.to_dict()
            with pytest.raises(IllegalMove) as info:
                game.apply(seat, action, driver.now)
            assert str(info.value) and info.value.code in MESSAGES
            assert game.to_dict() == before, f"illegal {action} by {seat} changed the game"
        for seat in range(rules.players) if n % 3 == 0 else ():
            for action in game.legal_actions(seat):
                game.copy().apply(seat, action, driver.now)
        if driver.step() is None:
            break
    assert driver.game.is_over


@budget(60)
@given(rules=tables(), seed=seeds, timeout_rate=timeout_rates)
def test_one_advance_equals_deadline_by_deadline(
    rules: Rules, seed: int, timeout_rate: float
) -> None:
    """R10.5: advance(t) fires each due deadline at its own time: the same as stepping through
    the deadlines one by one, from any state."""
    driver = new_driver(rules, seed, timeout_rate)
    rng = random.Random(seed)
    for _ in range(rng.randint(0, 80)):
        if driver.step() is None:
            break
    later = driver.now + rng.choice((1.0, 10.0, 40.0, 200.0, 5000.0))
    big, small = driver.game.copy(), driver.game.copy()
    big.advance(later)
    while small.next_deadline is not None and small.next_deadline <= later:
        small.advance(small.next_deadline)
    small.advance(later)
    assert big.to_dict() == small.to_dict()


@budget(100)
@given(rules=tables(), seed=seeds)
def test_copy_is_independent(rules: Rules, seed: int) -> None:
    """API: a copy plays on without touching the original, and starts equal to it."""
    driver = new_driver(rules, seed)
    for _ in range(random.Random(seed).randint(0, 60)):
        if driver.step() is None:
            break
    original = driver.game
    before = original.to_dict()
    twin = original.copy()
    assert twin.to_dict() == before
    Driver(twin, random.Random(seed + 1), now=driver.now).play_out(MAX_STEPS)
    assert original.to_dict() == before
    twin_end = twin.to_dict()
    driver.play_out(MAX_STEPS)
    assert twin.to_dict() == twin_end


def public_cards_after(game: Game, step: Step) -> set[str]:
    """Cards put face up on the table while `step` runs, seen deadline by deadline on a copy."""
    seen: set[str] = set()
    shadow = game.copy()
    if step.seat is not None:
        step.run(shadow)
        if step.action.kind == "show_trump":
            seen.add(str(step.action.card))
    else:
        while shadow.next_deadline is not None and shadow.next_deadline <= step.now:
            shadow.advance(shadow.next_deadline)
            seen |= {str(c) for pair in shadow.table for c in pair if c is not None}
    seen |= {str(c) for pair in shadow.table for c in pair if c is not None}
    return seen


def check_views(game: Game, public: set[str],
                memo: dict[int, tuple[object, frozenset[str]]]) -> None:
    """R11: a view names own cards, the table, the face-up trump card, and cards that were shown
    in public; never a stock card or an unrevealed card of another hand."""
    n = game.rules.players
    state = game.to_dict()["state"]
    stock = set(state["stock"])
    trump_card = None if game.trump_card is None else str(game.trump_card)
    hands = [{str(c) for c in game.hand(s)} for s in range(n)]
    for seat in range(n):
        view = game.view(seat)
        seen = all_cards_in(view, memo)
        assert {str(c) for c in view.hand} == hands[seat]
        assert list(view.hand_counts) == [len(h) for h in hands]
        assert view.stock_count == game.stock_count
        assert view.discard_count == game.discard_count
        assert seen & stock <= {trump_card}, "R11.2: stock cards are hidden"
        for other in range(n):
            known = {str(c) for c in view.known[other]}
            assert known <= hands[other], "known cards must really be in that hand"
            assert known <= public, "R11.1: only cards shown in public may be known"
            if other != seat:
                assert seen & hands[other] <= known, "R11.2: another hand leaked into a view"
        assert seen <= hands[seat] | public | {trump_card}


@budget(30)
@given(rules=tables(), seed=seeds, timeout_rate=timeout_rates)
def test_views_hide_what_r11_hides(rules: Rules, seed: int, timeout_rate: float) -> None:
    """R11, R2.3, R3.1: views reveal only own hand, the table, the trump card and public cards."""
    driver = new_driver(rules, seed, timeout_rate)
    game = driver.game
    # Cards shown at the deal: the face-up trump card, R2.3's card, R3.1's deciding trump.
    public = {str(c) for k in game.view(0).known for c in k}
    if game.trump_card is not None:
        public.add(str(game.trump_card))
    memo: dict[int, tuple[object, frozenset[str]]] = {}
    check_views(game, public, memo)
    for _ in range(MAX_STEPS):
        step = driver.next_step()
        if step is None:
            break
        public |= public_cards_after(game, step)
        step.run(game)
        driver.now = max(driver.now, step.now)
        driver.steps.append(step)
        check_views(game, public, memo)
    assert game.is_over
