"""The public surface promised by notes/ENGINE_API.md (types of the read-only helpers)."""

from __future__ import annotations

from engine import Game, IllegalMove, PlayerView, Rules
from tests.engine.conftest import PASS, attack, deal


def test_api_read_only_helpers_have_the_documented_types() -> None:
    """API: passed and away are frozensets of seats; version counts the log."""
    game = deal("7s 7d Kd", "8c 9s 10s Jd", "7c Qs", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    game.apply(2, PASS, 2.0)
    assert game.passed == frozenset({2}), "ENGINE_API: game.passed -> frozenset[int]"
    assert game.away == frozenset()
    assert game.version == len(game.log) == 2
    assert game.taking is False
    assert isinstance(game.attack_limit, int)
    assert isinstance(game.view(0), PlayerView)


def test_api_illegal_move_is_a_value_error() -> None:
    """API: IllegalMove subclasses ValueError."""
    assert issubclass(IllegalMove, ValueError)


def test_api_new_game_starts_with_empty_log() -> None:
    """API: a fresh game has version 0 and an empty log."""
    game = Game.new(Rules(), seed=1)
    assert game.version == 0
    assert list(game.log) == []
