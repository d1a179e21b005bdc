"""Durak, the card game: throw-in and transfer, 2–6 players, as a pure, deterministic engine."""

from engine.actions import Action, ActionKind, Event, EventKind, IllegalMove, Refusal
from engine.cards import Card
from engine.game import Game
from engine.rules import AWAY_AFTER_TIMEOUTS, MAX_PLAYERS, MIN_PLAYERS, Rules, ThrowIn, Variant
from engine.state import Phase
from engine.views import PlayerView

__all__ = [
    "AWAY_AFTER_TIMEOUTS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "Action",
    "ActionKind",
    "Card",
    "Event",
    "EventKind",
    "Game",
    "IllegalMove",
    "Phase",
    "PlayerView",
    "Refusal",
    "Rules",
    "ThrowIn",
    "Variant",
]
