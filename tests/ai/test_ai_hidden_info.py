"""Players decide from the seat's view alone (R11): hidden cards never change a decision."""

from __future__ import annotations

import random
from itertools import islice

import pytest

from engine import Action, Card, Game, Rules
from engine.ai import get_player
from engine.ai.baseline import playout
from engine.ai.policy import easy_action, normal_action
from engine.cards import CARDS, deck_mask
from engine.sampling import dealer, sample
from tests.helpers.deals import cards
from tests.helpers.positions import positions


def _everywhere(g: Game) -> list[Card]:
    """Every card of the game, wherever it is: hands, stock, table and discard."""
    table = [c for pair in g.table for c in pair if c is not None]
    discard = g.view(0).discarded
    stock = g.to_dict()["state"]["stock"]
    return [c for s in range(g.rules.players) for c in g.hand(s)] + table + list(discard) + [
        Card.parse(c) for c in stock]


def test_a_sample_shows_the_seat_exactly_its_view() -> None:
    rng = random.Random(1)
    for g, seat in positions(seed=21, games=40, every=3):
        view = g.view(seat)
        dealt = sample(view, rng)
        assert dealt.view(seat) == view


def test_a_sample_conserves_the_deck_and_keeps_known_cards_with_their_holders() -> None:
    rng = random.Random(2)
    for g, seat in positions(seed=22, games=40, every=3):
        view = g.view(seat)
        dealt = sample(view, rng)
        every = _everywhere(dealt)
        assert len(every) == len(set(every)) == deck_mask(g.rules.deck).bit_count()
        assert set(every) == set(_everywhere(g))
        for s in range(g.rules.players):
            assert set(view.known[s]) <= set(dealt.hand(s))
            assert len(dealt.hand(s)) == len(g.hand(s))
        assert dealt.hand(seat) == g.hand(seat)
        assert dealt.trump_card == g.trump_card


def test_a_dealer_deals_as_sample_does_and_its_deals_share_nothing_mutable() -> None:
    """A search deals many times from one view: each deal is `sample`'s from the same draws, and
    playing one on does not touch the next (the dealer reads the view once)."""
    for g, seat in positions(seed=23, games=20, every=5):
        view = g.view(seat)
        deal_of = dealer(view)
        playout(deal_of(random.Random(7)), seat)  # in place, to the game's end
        again = deal_of(random.Random(7))
        assert again.to_dict() == sample(view, random.Random(7)).to_dict()
        assert again.view(seat) == view


def test_samples_differ_where_the_seat_cannot_see() -> None:
    g = same_hand_deal(seed=0)
    view = g.view(0)
    hands = {tuple(sample(view, random.Random(i)).hand(1)) for i in range(20)}
    assert len(hands) > 10


def test_the_policies_never_look_at_hidden_cards() -> None:
    """On a game and on games re-dealt from a seat's view, the policies answer the same."""
    rng = random.Random(3)
    checked = 0
    for g, seat in positions(seed=23, games=60, every=2):
        legal = g.legal_actions(seat)
        view = g.view(seat)
        expected = normal_action(g, seat, legal)
        easy = easy_action(g, seat, legal, random.Random(9))
        for _ in range(3):
            other = sample(view, rng)
            assert normal_action(other, seat, legal) == expected
            assert easy_action(other, seat, legal, random.Random(9)) == easy
            checked += 1
    assert checked > 500


def same_hand_deal(seed: int, players: int = 2) -> Game:
    """A 24-card transfer deal: seat 0 always holds the same hand and the same trump is turned;
    the other hands and the stock are shuffled by `seed`."""
    mine = cards("9s Ts Qd Kd Ah 9c")
    trump = Card.parse("Jc")
    rest = [c for c in CARDS if c.rank >= 9 and c not in mine and c != trump]
    random.Random(seed).shuffle(rest)
    hands = [mine] + [rest[6 * i:6 * i + 6] for i in range(players - 1)]
    stock = [*rest[6 * (players - 1):], trump]
    return Game.from_deal(Rules(variant="transfer", players=players, deck=24), hands, stock,
                          first_attacker=1)


PLAYERS = [("easy", {}), ("normal", {}),
           ("hard", {"budget": 30.0, "iterations": 12, "nodes": 3000}),
           ("hard", {"budget": 30.0, "iterations": 12, "nodes": 3000, "replay": 1}),
           ("baseline", {"budget": 30.0, "iterations": 12, "nodes": 3000})]


@pytest.mark.parametrize("name, options", PLAYERS)
def test_a_decision_depends_only_on_the_view(name, options) -> None:
    """Deals that differ only where seat 0 cannot see get the same decision from it."""
    player = get_player(name, **options)
    for players in (2, 3):
        games = [same_hand_deal(seed, players) for seed in range(3)]
        for g in games:  # seat 1 leads its lowest card; seat 0 must answer it
            g.apply(1, Action("attack", min(g.hand(1), key=lambda c: (c.rank, c.suit_index))),
                    0.0)
        leads = {g.table[0][0] for g in games}
        for lead in leads:
            same = [g for g in games if g.table[0][0] == lead]
            picks = {player.choose(g.view(0), g.legal_actions(0), random.Random(5))
                     for g in same}
            assert len(picks) == 1
    for g, seat in islice(positions(seed=24, games=6, every=9), 0, None, 10):
        view = g.view(seat)
        other = sample(view, random.Random(6))
        assert other.view(seat) == view and other.to_dict() != g.to_dict()
        legal = g.legal_actions(seat)
        assert (player.choose(view, legal, random.Random(7))
                == player.choose(other.view(seat), legal, random.Random(7)))
