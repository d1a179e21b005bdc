"""Ratings of people from the finishing order of their games (pure: no SQL, no Telegram).

openskill's Plackett–Luce model, one player per team, ranks from RULES R8.2:

* safe players rank in the order they left the game (place 1 first; equal places tie);
* a draw ties everyone who drew;
* the durak ranks below every safe player;
* a person who resigned or left ranks last, below the durak, so that leaving costs at least as
  much as losing; several leavers tie.

Only the people's order among themselves is rated. A table moves ratings only when at least two
people played it; computers at a mixed table take no part (a computer has no rating to trade,
and beating an easy one says nothing about a person). A game against computers alone keeps its
own record and leaves the rating alone.

The shown number is ``1000 + 40·(μ − 3σ)``, rounded: the conservative estimate (three standard
deviations below the mean) that TrueSkill-style leaderboards show. A newcomer (μ = 25, σ = 25/3)
stands at 1000; winning a first two-person game gives about 1138 and losing one about 927. As σ
shrinks with every game, a draw between newcomers also raises both (to about 1032).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from openskill.models import PlackettLuce

MIN_PEOPLE = 2
SHOWN_BASE = 1000
SHOWN_SCALE = 40
_MODEL = PlackettLuce()


class Outcome(StrEnum):
    """How a person's game ended for him (stored in `results.outcome`)."""

    SAFE = "safe"
    DRAW = "draw"
    DURAK = "durak"
    RESIGNED = "resigned"   # left the table, or was removed from it


# Below every safe place; the order among the three is R8.2's plus "leaving is the worst".
_RANK_OF_OUTCOME = {Outcome.SAFE: 0, Outcome.DRAW: 1, Outcome.DURAK: 2, Outcome.RESIGNED: 3}

Result = tuple[int, Outcome, int]  # (user_id, outcome, place), as the store keeps it


@dataclass(frozen=True)
class Rating:
    mu: float = _MODEL.mu
    sigma: float = _MODEL.sigma
    games: int = 0  # rated games played

    @property
    def shown(self) -> int:
        """The one number players see."""
        return round(SHOWN_BASE + SHOWN_SCALE * (self.mu - 3 * self.sigma))


def ranks(results: Sequence[Result]) -> list[int]:
    """Each result's rank, 1 the best, equal ranks for a tie (see the module's rules)."""
    keys = [(_RANK_OF_OUTCOME[outcome], place if outcome == Outcome.SAFE else 0)
            for _, outcome, place in results]
    order = sorted(set(keys))
    return [order.index(key) + 1 for key in keys]


def rate(results: Sequence[Result], current: Mapping[int, Rating]) -> dict[int, Rating]:
    """The new ratings of a finished table's people; empty if the table is not rated.

    ``results`` hold one row per person (computers have none); ``current`` the ratings known so
    far (a person missing from it starts at the default). The people are taken in user id
    order, so the same table gives exactly the same floats however its rows were listed: a
    rebuild from the stored results reproduces the ratings written game by game.
    """
    if len(results) < MIN_PEOPLE:
        return {}
    people = sorted(results)
    before = [current.get(user_id, Rating()) for user_id, _, _ in people]
    teams = [[_MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    order: list[float] = list(ranks(people))   # openskill's type; the ranks stay whole numbers
    after = _MODEL.rate(teams, ranks=order)
    return {
        user_id: Rating(team[0].mu, team[0].sigma, old.games + 1)
        for (user_id, _, _), old, team in zip(people, before, after, strict=True)
    }
