"""Taps drawn on an earlier screen: when a tap still means what the player saw.

Several people act at once at a table (two attackers throw in while the defender beats), so a
tap often arrives after the table moved on from the screen it was pressed on. It is applied when
it still means the same move: the screen belongs to the current round (the table's indices still
name the same attack cards), the tap reads as the same move on that screen and on today's table,
and that move is legal now. Anything else is stale. Pure: the past is replayed from the game's
own log, so the rule holds across a restart.
"""

from __future__ import annotations

from engine import Action, Game
from tg_durak.taps import Choosing, Outcome, Position, Tap


def rewound(game: Game, upto: int) -> Game:
    """The game as it was at version `upto`, replayed from its own log."""
    return Game.replay({**game.to_dict(log=False), "log": game.log[:upto]})


def round_start(game: Game) -> int:
    """The version at which the current round began: just after the time tick that cleared the
    previous round's table (0 in the first round)."""
    past = rewound(game, 0)
    start = 0
    for version, entry in enumerate(game.log, 1):
        had_cards = bool(past.table)
        past.replay_entry(entry)
        if had_cards and not past.table:
            start = version
    return start


def still_meant(game: Game, round_from: int, version: int, seat: int, pressed: Tap,
                choosing: Choosing) -> Outcome | None:
    """What a tap pressed on the screen of `version` does now; None if it is stale.

    `round_from` is the version the current round began at (`round_start`).
    """
    if not round_from <= version < game.version:
        return None
    legal = game.legal_actions(seat)
    now = pressed.outcome(Position(game.view(seat), legal, choosing))
    past = rewound(game, version)
    then = pressed.outcome(Position(past.view(seat), past.legal_actions(seat), choosing))
    if now != then or (isinstance(now, Action) and now not in legal):
        return None
    return now
