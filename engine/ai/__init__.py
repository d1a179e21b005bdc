"""Computer players for Durak.

`get_player(name, **options)` builds one by name ("easy", "normal", "hard"); every player has
`choose(view, legal_actions, rng) -> Action` and sees nothing but the seat's `PlayerView`.
Players are plain picklable objects, so a worker process can build them by name.
"""

from __future__ import annotations

from engine.ai.baseline import BaselinePlayer
from engine.ai.frozen_hard import FrozenHardPlayer
from engine.ai.players import EasyPlayer, NormalPlayer, Player
from engine.ai.search import HardPlayer

PLAYERS: dict[str, type[Player]] = {
    "easy": EasyPlayer,
    "normal": NormalPlayer,
    "hard": HardPlayer,
    # Frozen for the arena; the bot offers the three above. `hard` as it was before issue 19,
    # and as it was on 2026-12-07 without its kernel ("today's hard" of issue 40).
    "baseline": BaselinePlayer,
    "frozen-hard": FrozenHardPlayer,
}


def get_player(name: str, **options: object) -> Player:
    """A computer player: "easy", "normal" or "hard" (`budget=` seconds a decision, ...)."""
    try:
        cls = PLAYERS[name]
    except KeyError:
        raise ValueError(f"no computer player {name!r}; choose from {sorted(PLAYERS)}") from None
    return cls(**options)


__all__ = ["PLAYERS", "BaselinePlayer", "EasyPlayer", "FrozenHardPlayer", "HardPlayer",
           "NormalPlayer", "Player", "get_player"]
