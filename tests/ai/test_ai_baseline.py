"""The frozen baseline (`hard` as it was before issue 19) still plays as it did.

`data/baseline_decisions.json` holds the decisions the old `engine/ai/search.py` (commit
0dd185c) made on these positions with a fixed number of deals and solver nodes (so that time
plays no part): the baseline must make the same ones, whatever the engine or the new `hard`
became since, or the arena's figures against it would measure something else.
"""

from __future__ import annotations

import json
import random
from itertools import islice
from pathlib import Path

from engine.ai import get_player
from tests.helpers.positions import positions

DECISIONS = Path(__file__).parent / "data" / "baseline_decisions.json"


def test_the_baseline_makes_the_decisions_it_made_before_issue_19() -> None:
    expected = json.loads(DECISIONS.read_text())
    baseline = get_player("baseline", budget=60.0, iterations=6, nodes=2000)
    made = []
    for i, (g, seat) in enumerate(islice(positions(seed=41, games=30, every=7), len(expected))):
        action = baseline.choose(g.view(seat), g.legal_actions(seat), random.Random(i))
        made.append([action.kind, None if action.card is None else str(action.card),
                     action.target])
    assert len(expected) == 40
    assert made == expected
