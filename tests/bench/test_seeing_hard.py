"""bench/seeing_hard.py tells `hard` more than its view; what it tells must be the truth, or its
figures (the gap to the bar that the hidden cards make) would say nothing."""

from __future__ import annotations

import random

from bench.seeing_hard import told_hands
from engine import Game, Rules
from engine.sampling import sample


def test_told_the_hands_every_deal_it_samples_holds_the_true_other_hand() -> None:
    for players, seed in ((2, 3), (3, 4)):
        g = Game.new(Rules(players=players), seed)
        view = told_hands(g, 0)
        assert view.hand == g.view(0).hand
        for draw in range(5):
            deal = sample(view, random.Random(draw))
            for s in range(1, players):
                assert sorted(deal.hand(s)) == sorted(g.hand(s))
        assert sorted(sample(g.view(0), random.Random(0)).hand(1)) != sorted(g.hand(1))
