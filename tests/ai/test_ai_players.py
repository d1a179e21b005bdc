"""Every computer player answers with one of the legal actions, on every kind of table."""

from __future__ import annotations

import pickle
import random

import pytest

from engine.ai import PLAYERS, get_player
from engine.ai.policy import easy_action, normal_action
from tests.helpers.positions import positions


def test_get_player_builds_each_level_by_name() -> None:
    assert {name: type(get_player(name)).__name__ for name in PLAYERS} == {
        "easy": "EasyPlayer", "normal": "NormalPlayer", "hard": "HardPlayer",
        "baseline": "BaselinePlayer", "frozen-hard": "FrozenHardPlayer"}
    assert get_player("hard", budget=0.5).budget == 0.5
    assert get_player("normal", new_rank_cost=0.0).style.new_rank_cost == 0.0


def test_get_player_refuses_unknown_names_and_bad_budgets() -> None:
    with pytest.raises(ValueError, match="no computer player"):
        get_player("grandmaster")
    with pytest.raises(ValueError):
        get_player("hard", budget=0)


def test_players_survive_pickling_for_worker_processes() -> None:
    hard = pickle.loads(pickle.dumps(get_player("hard", budget=0.2, iterations=5)))
    assert (hard.budget, hard.iterations) == (0.2, 5)
    normal = pickle.loads(pickle.dumps(get_player("normal", throw_all_stock=-1)))
    assert normal.style.throw_all_stock == -1


@pytest.mark.parametrize("name", ["easy", "normal"])
def test_quick_players_choose_a_legal_action_everywhere(name: str) -> None:
    player = get_player(name)
    rng = random.Random(1)
    tables = set()
    for g, seat in positions(seed=11, games=60):
        legal = g.legal_actions(seat)
        assert player.choose(g.view(seat), legal, rng) in legal
        tables.add((g.rules.players, g.rules.variant))
    assert len(tables) == 10  # 2-6 players, both games


def test_policies_choose_a_legal_action_inside_games_too() -> None:
    """The playout policies run on full games; they must stay legal there as well."""
    rng = random.Random(2)
    for g, seat in positions(seed=12, games=80):
        legal = g.legal_actions(seat)
        assert normal_action(g, seat, legal) in legal
        assert easy_action(g, seat, legal, rng) in legal


def test_policies_choose_among_what_they_are_offered() -> None:
    """A seat whose pass stands has no "pass" to choose; a player must still pick a legal move."""
    rng = random.Random(3)
    checked = 0
    for g, seat in positions(seed=13, games=40):
        legal = g.legal_actions(seat)
        for subset in (legal[:1], legal[-1:], legal[1:]):
            if subset:
                assert normal_action(g, seat, subset) in subset
                assert easy_action(g, seat, subset, rng) in subset
                checked += 1
    assert checked > 100


def test_hard_chooses_a_legal_action_on_every_kind_of_table() -> None:
    hard = get_player("hard", budget=5.0, iterations=3)
    rng = random.Random(4)
    seen = set()
    for g, seat in positions(seed=14, games=30, every=7):
        key = (g.rules.players, g.rules.variant, g.phase)
        if key in seen:
            continue
        seen.add(key)
        legal = g.legal_actions(seat)
        assert hard.choose(g.view(seat), legal, rng) in legal
    assert len(seen) >= 20
