"""Durak, the card game: throw-in and transfer, 2–6 players, as a pure, deterministic engine."""

from engine.actions import Action, Event, IllegalMove
from engine.cards import Card
from engine.game import Game
from engine.rules import Rules
from engine.views import PlayerView

__all__ = ["Action", "Card", "Event", "Game", "IllegalMove", "PlayerView", "Rules"]
