"""ratings.py: who is rated, how a finishing order becomes ranks, and what the rating does."""

from __future__ import annotations

import itertools

import pytest

from tg_durak.play.ratings import Rating, ranks, rate

NEW = Rating()


def test_a_newcomer_shows_1000_and_the_scale_is_documented() -> None:
    assert NEW.shown == 1000
    assert NEW.games == 0
    assert Rating(mu=30.0, sigma=5.0).shown == 1000 + 40 * (30 - 15)


def test_ranks_follow_r8_2_and_leaving_is_last() -> None:
    results = [(1, "safe", 2), (2, "durak", 4), (3, "safe", 1), (4, "resigned", 0),
               (5, "resigned", 0)]
    assert ranks(results) == [2, 3, 1, 4, 4]
    assert ranks([(1, "draw", 1), (2, "draw", 2), (3, "draw", 3)]) == [1, 1, 1]
    # The resign path stores the others as safe with no place: they tie.
    assert ranks([(1, "resigned", 0), (2, "safe", 0), (3, "safe", 0)]) == [2, 1, 1]


def test_the_winner_gains_and_the_durak_loses() -> None:
    new = rate([(1, "safe", 1), (2, "durak", 2)], {})
    assert new[1].shown > NEW.shown > new[2].shown
    assert new[1].mu > NEW.mu > new[2].mu
    assert new[1].games == new[2].games == 1


def test_a_longer_finishing_order_is_rated_in_that_order() -> None:
    new = rate([(10, "safe", 3), (11, "safe", 1), (12, "durak", 4), (13, "safe", 2)], {})
    by_place = [new[11], new[13], new[10], new[12]]
    assert [r.mu for r in by_place] == sorted((r.mu for r in by_place), reverse=True)
    assert len({r.mu for r in by_place}) == 4


def test_a_draw_ties_everyone() -> None:
    new = rate([(1, "draw", 1), (2, "draw", 2), (3, "draw", 3)], {})
    assert len({(r.mu, r.sigma) for r in new.values()}) == 1
    assert new[1].mu == pytest.approx(NEW.mu)
    assert new[1].sigma < NEW.sigma


def test_the_one_who_left_ranks_below_the_durak() -> None:
    new = rate([(1, "safe", 1), (2, "durak", 2), (3, "resigned", 0)], {})
    assert new[1].mu > new[2].mu > new[3].mu
    # Leaving costs at least as much as losing: the same table with 3 as the durak instead.
    as_durak = rate([(1, "safe", 1), (2, "safe", 2), (3, "durak", 3)], {})
    assert new[3].mu <= as_durak[3].mu


def test_one_person_is_not_rated() -> None:
    assert rate([(1, "safe", 1)], {}) == {}
    assert rate([(1, "durak", 3)], {1: Rating(30.0, 4.0, 9)}) == {}
    assert rate([], {}) == {}


def test_computers_take_no_part() -> None:
    """Two people at a table of four (computers took places 1 and 3, and none was the durak):
    the people's order alone is rated, exactly as a table of the two of them."""
    mixed = rate([(1, "safe", 2), (2, "safe", 4)], {})
    alone = rate([(1, "safe", 1), (2, "durak", 2)], {})
    assert mixed == alone


def test_current_ratings_are_used() -> None:
    strong, weak = Rating(35.0, 3.0, 40), Rating(15.0, 3.0, 40)
    expected = rate([(1, "safe", 1), (2, "durak", 2)], {1: strong, 2: weak})
    upset = rate([(1, "durak", 2), (2, "safe", 1)], {1: strong, 2: weak})
    assert 0 < expected[1].mu - strong.mu < upset[2].mu - weak.mu
    assert expected[1].games == 41
    assert rate([(1, "safe", 1), (3, "durak", 2)], {1: strong})[3].games == 1  # 3 starts anew


def test_deterministic_whatever_the_order_of_the_rows() -> None:
    results = [(5, "safe", 1), (3, "safe", 2), (9, "durak", 3), (4, "resigned", 0)]
    current = {5: Rating(27.1, 7.2, 3), 9: Rating(22.4, 6.9, 5)}
    first = rate(results, current)
    for order in itertools.permutations(results):
        assert rate(list(order), current) == first  # equal floats, not approximately
