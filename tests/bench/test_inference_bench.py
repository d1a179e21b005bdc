"""bench/inference_bench.py scores where weighted deals put the other hand's cards; its scores
must reward the truth, or its figures would say nothing about the inference."""

from __future__ import annotations

import math
import random
import sys

import pytest

from bench import inference_bench
from engine.ai.search import deals


@pytest.mark.parametrize("replay", [0, 1, 3])
def test_the_forecasts_share_out_exactly_the_other_players_hidden_cards(replay: int) -> None:
    _, view = next(inference_bench.positions(1, "throw-in", 5, seed=2))
    shares = inference_bench.forecast(view, deals(view, replay=replay), 40, random.Random(1))
    hidden = view.hand_counts[1] - len(view.known[1])
    assert set(shares) == {c.index for c in view.unseen}
    assert sum(shares.values()) == pytest.approx(hidden)
    assert all(0 <= p <= 1 for p in shares.values())


def test_it_scores_the_four_ways_of_dealing(monkeypatch, capsys) -> None:
    # Against `easy`, whose plays soon show that his moves say little, trusting him and
    # checking him deal differently.
    monkeypatch.setattr(sys, "argv", ["inference_bench", "--games", "2", "--deals", "10",
                                      "--against", "easy"])
    inference_bench.main()
    out = capsys.readouterr().out.splitlines()
    assert "against easy" in out[0]
    rows = {line.split()[0]: line.split() for line in out[1:5]}
    assert list(rows) == ["uniform", "trusting", "weighted", "replayed"]
    for row in rows.values():
        assert 0 < float(row[3]) < 2 and float(row[-4]) > 0   # bits a card; ms a deal
    assert len({row[3] for row in rows.values()}) == 4, "each row deals its own way"


def test_the_truth_scores_nothing_and_a_coin_one_bit_a_card() -> None:
    held = (1 << 0) | (1 << 5)
    cards = [0, 5, 7, 9]
    truth = {c: float(held >> c & 1) for c in cards}
    loss, brier = inference_bench.score(truth, held)
    assert loss == pytest.approx(-4 * math.log2(1 - inference_bench.FLOOR))
    assert brier == 0
    loss, brier = inference_bench.score(dict.fromkeys(cards, 0.5), held)
    assert loss == pytest.approx(4.0) and brier == pytest.approx(1.0)


def test_missed_counts_no_more_read_than_said(monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "argv", ["inference_bench", "--missed", "--games", "3"])
    inference_bench.main()
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[2:]]
    by_move = {" ".join(r[:-5]): [int(x) for x in r[-5:]] for r in rows}
    assert "lead" in by_move and "defend" in by_move
    for moves, said, read, _, _ in by_move.values():
        assert moves > 0 and 0 <= read <= said
    assert sum(v[2] for v in by_move.values()) > 0
