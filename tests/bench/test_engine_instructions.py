"""bench/engine_instructions.py counts the instructions of the all-pairs games under valgrind."""

from __future__ import annotations

from bench import engine_instructions


def test_the_plain_engine_needs_more_instructions_a_game_than_the_engine() -> None:
    counts = engine_instructions.per_game("throw-in", 2, games=3)
    assert set(counts) == {"engine", "plain"}
    # A two-player game is thousands of Python steps: millions of instructions, not start-up.
    assert 1e6 < counts["engine"] < counts["plain"]
