"""Explicit deals written as strings, moves, and checks on a game: the rule tests' vocabulary."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

import pytest

from engine import Action, Card, Game, IllegalMove, Rules

TAKE = Action("take")
PASS = Action("pass")
KINDS = ("attack", "defend", "transfer", "show_trump", "take", "pass")


def card(text: str) -> Card:
    return Card.parse(text)


def cards(text: str) -> list[Card]:
    """"6s 7h 10♦" -> [6♠, 7♥, 10♦]."""
    return [Card.parse(t) for t in text.split()]


def deal(
    *hands: str,
    stock: str = "",
    trump: str | None = None,
    first_attacker: int | None = 0,
    now: float = 0.0,
    **options: object,
) -> Game:
    """A game from an explicit deal: one string per seat, stock[0] drawn next, stock[-1] face up.

    `first_attacker` defaults to seat 0 so that scenario tests need not arrange R3; pass None to
    let the engine apply R3. The remaining keywords are Rules options (variant, throw_in, ...).
    """
    rules = Rules(players=len(hands), **options)
    return Game.from_deal(
        rules,
        [cards(h) for h in hands],
        cards(stock),
        trump=trump,
        first_attacker=first_attacker,
        now=now,
    )


def attack(text: str) -> Action:
    return Action("attack", card(text))


def defend(text: str, target: int) -> Action:
    return Action("defend", card(text), target)


def transfer(text: str) -> Action:
    return Action("transfer", card(text))


def show_trump(text: str) -> Action:
    return Action("show_trump", card(text))


def hand(game: Game, seat: int) -> set[str]:
    """A seat's hand as a set of card strings (the order of a hand is not part of the contract)."""
    return {str(c) for c in game.hand(seat)}


def table(game: Game) -> list[tuple[str, str | None]]:
    return [(str(a), None if d is None else str(d)) for a, d in game.table]


def kinds(game: Game, seat: int) -> set[str]:
    return {a.kind for a in game.legal_actions(seat)}


def passed(game: Game) -> frozenset[int]:
    """Seats whose pass currently stands; every player's view must agree."""
    assert all(game.view(s).passed == game.passed for s in range(game.rules.players))
    return game.passed


def play(game: Game, now: float, *moves: tuple[int, Action]) -> None:
    """Applies several moves at the same instant."""
    for seat, action in moves:
        game.apply(seat, action, now)


def assert_illegal(game: Game, seat: int, action: object, now: float) -> IllegalMove:
    """The move raises IllegalMove with a readable reason and leaves the game unchanged."""
    before = game.to_dict()
    with pytest.raises(IllegalMove) as info:
        game.apply(seat, action, now)
    assert str(info.value), "IllegalMove must carry a reason a player can read"
    assert game.to_dict() == before, "an illegal move must leave the game unchanged"
    return info.value


def finish_round(game: Game, limit: int = 20) -> None:
    """Lets the deadlines run until the current round has closed (or the game is over)."""
    for _ in range(limit):
        if game.is_over or not game.table or game.next_deadline is None:
            return
        game.advance(game.next_deadline)
    raise AssertionError("the round did not close")


def all_cards_in(value: object,
                 memo: dict[int, tuple[object, frozenset[str]]] | None = None) -> set[str]:
    """Every card named anywhere in a value: a view's fields, a game's to_dict(), ...

    `memo`, kept by the caller for one game, holds what each tuple walked before named, by
    identity (the tuple is held too, so that its id is not reused): a game's history entries
    are the same tuples in every later view, and walking them again at each step made the
    property tests quadratic."""
    def walk(v: object) -> frozenset[str]:
        if isinstance(v, Card):
            return frozenset((str(v),))
        if isinstance(v, str):
            try:
                return frozenset((str(Card.parse(v)),))
            except ValueError:
                return frozenset()
        if isinstance(v, tuple) and memo is not None:
            if id(v) not in memo:
                memo[id(v)] = (v, frozenset().union(*map(walk, v)))
            return memo[id(v)][1]
        if dataclasses.is_dataclass(v):
            return frozenset().union(*(walk(getattr(v, f.name)) for f in dataclasses.fields(v)))
        if isinstance(v, dict):
            return frozenset().union(*map(walk, v.values()))
        if isinstance(v, Iterable):
            return frozenset().union(*map(walk, v))
        return frozenset()

    return set(walk(value))
