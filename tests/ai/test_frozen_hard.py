"""The frozen `hard` (`hard` of 2026-12-07 without its kernel, engine/ai/frozen_hard.py) still
plays as it did.

`data/frozen_hard_decisions.json` holds the decisions `hard` with `kernel=False` made at commit
2dd09de, with a fixed number of deals and solver nodes (so that time plays no part): 40 positions
of random games on random tables, then 20 heads-up endings with nothing hidden (searched exactly,
or deeper and deeper to a horizon). The frozen player must make the same ones, whatever the
engine, `normal`, inference or the new `hard` became since, or the arena's figures against it
would measure something else.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

from engine import Game
from engine.ai import get_player
from engine.ai.frozen_hard import hides_nothing
from tests.helpers.positions import positions

DECISIONS = Path(__file__).parent / "data" / "frozen_hard_decisions.json"


def endings(count: int) -> Iterator[tuple[Game, int]]:
    """Heads-up positions whose view hides nothing (a known deal: the solvers' path)."""
    known = ((g, seat) for g, seat in positions(seed=43, games=400)
             if hides_nothing(g.view(seat)))
    return islice(known, count)


def test_the_frozen_hard_makes_the_decisions_hard_made_on_2026_12_07() -> None:
    expected = json.loads(DECISIONS.read_text())
    frozen = get_player("frozen-hard", budget=60.0, iterations=6, nodes=2000)
    cases = [*islice(positions(seed=41, games=30, every=7), 40), *endings(20)]
    made = []
    for i, (g, seat) in enumerate(cases):
        action = frozen.choose(g.view(seat), g.legal_actions(seat), random.Random(i))
        made.append([action.kind, None if action.card is None else str(action.card),
                     action.target])
    assert len(expected) == 60
    assert made == expected
