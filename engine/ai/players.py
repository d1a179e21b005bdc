"""Computer players: `choose(view, legal, rng)` from a seat's view, nothing more (R11)."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, ClassVar

from engine.actions import Action
from engine.ai.policy import NORMAL, easy_action, normal_action
from engine.sampling import sample
from engine.views import PlayerView

# The policies read only what the seat knows, so any game dealt from the view gives the same
# answer; a fixed deal keeps the player's own rng stream untouched by that detail.
_DEAL_SEED = 0


class Player:
    """Base of the computer players; subclasses are plain, picklable objects."""

    name: ClassVar[str] = ""

    def choose(self, view: PlayerView, legal: list[Action], rng: random.Random) -> Action:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class EasyPlayer(Player):
    """A plausible beginner: a random sensible move."""

    name = "easy"

    def choose(self, view: PlayerView, legal: list[Action], rng: random.Random) -> Action:
        if len(legal) == 1:
            return legal[0]
        return easy_action(sample(view, random.Random(_DEAL_SEED)), view.seat, legal, rng)


class NormalPlayer(Player):
    """A solid heuristic player (engine/ai/policy.py).

    Keyword options override `policy.Style` fields, to measure what a rule is worth
    (`python -m engine.arena --a normal --a-opt throw_all_stock=-1 --b normal`).
    """

    name = "normal"

    def __init__(self, **style: Any) -> None:   # Style's fields, as replace() takes them
        self.style = replace(NORMAL, **style)

    def __repr__(self) -> str:
        return f"NormalPlayer({self.style})" if self.style != NORMAL else "NormalPlayer()"

    def choose(self, view: PlayerView, legal: list[Action], rng: random.Random) -> Action:
        if len(legal) == 1:
            return legal[0]
        return normal_action(sample(view, random.Random(_DEAL_SEED)), view.seat, legal, rng,
                             self.style)
