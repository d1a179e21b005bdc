"""The arena: mirrored deals, tallies and the printed report."""

from __future__ import annotations

import pytest

from engine import Rules, arena
from engine.arena import main, run, wilson


def test_wilson_interval_matches_the_textbook_values() -> None:
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize("variant", ["throw-in", "transfer"])
def test_normal_beats_easy_heads_up(variant: str) -> None:
    a, b, records = run("normal", "easy", 200, Rules(variant=variant), seed=7)
    assert len(records) == 200
    assert a.wins == b.losses and a.losses == b.wins
    assert a.wins / (a.wins + a.losses) > 0.7


def test_every_deal_is_played_once_per_seat_rotation() -> None:
    _, _, records = run("easy", "easy", 8, Rules(players=4), seed=3)
    by_deal: dict[int, list] = {}
    for rec in records:
        by_deal.setdefault(rec["deal"], []).append(rec["a_seats"])
    assert all(sorted(seats) == [[0], [1], [2], [3]] for seats in by_deal.values())


def test_a_game_that_will_not_end_is_cut_short_and_scored_a_draw(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Cards can go round for ever (nobody draws with six or more); the arena must still finish.
    monkeypatch.setattr(arena, "MAX_STEPS", 10)
    a, b, records = run("easy", "normal", 4, Rules(players=4, variant="transfer"), seed=5)
    assert [rec["unfinished"] for rec in records] == [True] * 4
    assert (a.draws, b.draws) == (4, 12)


def test_six_players_of_mixed_levels_finish_their_games() -> None:
    _, _, records = run("easy", "normal", 12, Rules(players=6, variant="transfer"), seed=5,
                        a_seats=3)
    assert len(records) == 12 and sum(rec["unfinished"] for rec in records) <= 1


def test_the_command_line_prints_one_line_per_side(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--a", "hard", "--b", "normal", "--games", "2", "--budget", "0.02", "--seed", "2"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("2 games, 2 players, throw-in")
    for line, name in zip(lines[1:3], ("hard", "normal"), strict=True):
        assert name in line and "win" in line and "durak" in line and "p99" in line
