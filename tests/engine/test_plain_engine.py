"""engine/ against bench/plain_engine.py, a plain second implementation of the same rules:
random games of every table, the same inputs to both, the same answers and states at each step.
"""

from __future__ import annotations

from hypothesis import given

from bench.plain_engine import PlainGame
from engine import Game, Rules
from tests.helpers.drivers import MAX_STEPS, budget, new_driver, seeds, tables, timeout_rates


def public_state(game: Game | PlainGame) -> dict:
    n = game.rules.players
    return {
        "legal": [game.legal_actions(s) for s in range(n)],
        "hands": [set(game.hand(s)) for s in range(n)],
        "table": game.table,
        "counts": (game.stock_count, game.discard_count, game.trump_card),
        "roles": (game.round_starter, game.attacker, game.defender, game.taking, game.passed),
        "seats": (game.active_seats, game.finished_order),
        "limit": game.attack_limit if isinstance(game, Game) else game.limit(),
        "time": (game.phase, game.next_deadline),
        "end": (game.is_over, game.durak),
    }


@budget(40)
@given(rules=tables(), seed=seeds, timeout_rate=timeout_rates)
def test_engine_and_plain_engine_agree_on_random_games(
    rules: Rules, seed: int, timeout_rate: float
) -> None:
    """R1-R10: the same deal, moves and times give the same legal moves (in the same order),
    events and states."""
    driver = new_driver(rules, seed, timeout_rate)
    plain = PlainGame.new(rules, seed)
    assert public_state(plain) == public_state(driver.game)
    for _ in range(MAX_STEPS):
        step = driver.next_step()
        if step is None:
            break
        events = step.run(driver.game)
        assert step.run(plain) == events, f"after {len(driver.steps)} steps"
        driver.now = max(driver.now, step.now)
        driver.steps.append(step)
        assert public_state(plain) == public_state(driver.game), f"after {len(driver.steps)}"
    assert driver.game.is_over
