"""bench/race_bench.py values positions where cards are hidden by `hard`'s race and scores
players' moves against those values."""

from __future__ import annotations

import json
import sys

import pytest

from bench import race_bench
from engine.ai.search import hides_nothing


@pytest.mark.parametrize("players", [2, 3])
def test_its_positions_hide_cards_and_offer_a_choice(players: int) -> None:
    found = race_bench.cases(5, "transfer", seed=3, players=players)
    assert len(found) == 5
    for view, legal in found:
        assert not hides_nothing(view) and len(legal) > 1 and view.seat == 0
        assert len(view.hand_counts) == players


def test_the_reference_values_every_legal_move_as_a_chance() -> None:
    view, legal = race_bench.cases(1, "throw-in", seed=2)[0]
    values = race_bench.reference(view, legal, 20, seed=1)
    assert set(values) == set(legal)
    assert all(0 <= v <= 1 for v in values.values())
    assert values == race_bench.reference(view, legal, 20, seed=1)


def test_it_scores_each_player(monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "argv", ["race_bench", "--positions", "3", "--reference", "10",
                                      "--player", "budget=0.02", "--player",
                                      "budget=0.02,iterations=1"])
    race_bench.main()
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["player"] for r in rows] == ["budget=0.02", "budget=0.02,iterations=1"]
    for row in rows:
        assert row["decisions"] == 6 and 0 <= row["worse_moves"] <= 6 and row["mean_loss"] >= 0
    assert rows[1]["median_deals"] == 1
