"""Computer players for Durak.

`get_player(name, **options)` builds one by name ("easy", "normal", "hard"); every player has
`choose(view, legal_actions, rng) -> Action` and sees nothing but the seat's `PlayerView`.
Players are plain picklable objects, so a worker process can build them by name.
"""

from __future__ import annotations

from engine.ai.baseline import BaselinePlayer
from engine.ai.players import EasyPlayer, NormalPlayer, Player
from engine.ai.search import HardPlayer

PLAYERS: dict[str, type[Player]] = {
    "easy": EasyPlayer,
    "normal": NormalPlayer,
    "hard": HardPlayer,
    # `hard` as it was before issue 19, frozen for the arena; the bot offers the three above.
    "baseline": BaselinePlayer,
}


def get_player(name: str, **options: object) -> Player:
    """A computer player: "easy", "normal" or "hard" (`budget=` seconds a decision, ...)."""
    try:
        cls = PLAYERS[name]
    except KeyError:
        raise ValueError(f"no computer player {name!r}; choose from {sorted(PLAYERS)}") from None
    return cls(**options)


__all__ = ["PLAYERS", "BaselinePlayer", "EasyPlayer", "HardPlayer", "NormalPlayer", "Player",
           "get_player"]
