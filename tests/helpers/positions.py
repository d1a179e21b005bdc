"""Positions for the computer-player tests: from random games, and endgames with the stock empty."""

from __future__ import annotations

import random
from collections.abc import Iterator

from engine import Card, Game, Rules
from engine.ai.driver import seats_to_ask
from engine.cards import CARDS, deck_mask
from tests.helpers.deals import deal


def any_rules(rng: random.Random) -> Rules:
    """A table the rules allow: both variants, 2-6 players, each deck that seats them."""
    players = rng.randint(2, 6)
    variant = rng.choice(("throw-in", "transfer"))
    return Rules(
        variant=variant,
        players=players,
        deck=rng.choice((24, 36, 52) if players <= 4 else (36, 52)),
        throw_in=rng.choice(("all", "neighbours")),
        show_trump=variant == "transfer" and rng.random() < 0.5,
    )


def positions(seed: int, games: int, every: int = 1) -> Iterator[tuple[Game, int]]:
    """(game, seat) where `seat` has a choice, along random games on random tables.

    Moves are random among the seats the driver would ask (plus, now and then, any seat with a
    legal action, as the app may ask); deadlines fire when nobody is asked.
    """
    rng = random.Random(seed)
    for i in range(games):
        g = Game.new(any_rules(rng), f"{seed}/{i}")
        now = 0.0
        for step in range(2000):
            if g.is_over:
                break
            asked = seats_to_ask(g)
            if rng.random() < 0.1:
                asked = g.acting_seats
            if not asked:
                now = g.next_deadline
                g.advance(now)
                continue
            seat = rng.choice(asked)
            legal = g.legal_actions(seat)
            if len(legal) > 1 and step % every == 0:
                yield g.copy(), seat
            g.apply(seat, rng.choice(legal), now)


def endgame(*hands: str, trump: str, attacker: int = 0, **options: object) -> Game:
    """A position with the stock empty: the given hands, every other card already discarded."""
    g = deal(*hands, trump=trump, first_attacker=attacker, **options)
    d = g.to_dict()
    held = {c for h in hands for c in h.split()}
    held = {str(Card.parse(c)) for c in held}
    d["state"]["discard"] = [str(c) for c in CARDS
                             if deck_mask(g.rules.deck) >> c.index & 1 and str(c) not in held]
    return Game.from_dict(d)
