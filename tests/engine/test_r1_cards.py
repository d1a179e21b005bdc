"""R1: cards, decks and the table options."""

from __future__ import annotations

import pytest

from engine import Card, Game, Rules
from tests.helpers.deals import all_cards_in

SUITS = {"♠": "s", "♥": "h", "♦": "d", "♣": "c"}
RANKS = {**{r: str(r) for r in range(2, 11)}, 11: "J", 12: "Q", 13: "K", 14: "A"}
ALL = [(rank, suit) for rank in RANKS for suit in SUITS]


@pytest.mark.parametrize(("rank", "suit"), ALL)
def test_r1_1_card_parse_and_str_round_trip_all_52(rank: int, suit: str) -> None:
    """R1.1: every one of the 52 cards reads from both suit spellings and prints as rank+symbol."""
    text = RANKS[rank] + suit
    by_symbol = Card.parse(text)
    by_letter = Card.parse(RANKS[rank] + SUITS[suit])
    assert by_symbol == by_letter == Card(rank, suit)
    assert (by_symbol.rank, by_symbol.suit) == (rank, suit)
    assert str(by_symbol) == text
    assert Card.parse(str(by_symbol)) == by_symbol


def test_r1_1_cards_are_interned_and_hash_by_value() -> None:
    """R1.1 / API: Card(rank, suit) is the one shared instance; equal cards hash equally."""
    assert Card(10, "♥") is Card.parse("10♥") is Card.parse("10h")
    assert len({Card.parse("Qs"), Card(12, "♠"), Card.parse("Q♠")}) == 1
    assert Card.parse("Qs") != Card.parse("Qh")
    assert Card.parse("Qs") != Card.parse("Ks")


@pytest.mark.parametrize("text", ["1♠", "11h", "Bx", "", "10", "♠", "Zs", "15♥"])
def test_r1_1_card_parse_rejects_non_cards(text: str) -> None:
    """R1.1: only ranks 2-10 J Q K A and suits ♠♥♦♣/shdc make a card."""
    with pytest.raises(ValueError):
        Card.parse(text)


@pytest.mark.parametrize(("rank", "suit"), [(1, "♠"), (15, "♠"), (10, "x")])
def test_r1_1_card_constructor_rejects_non_cards(rank: int, suit: str) -> None:
    """R1.1: Card(rank, suit) has rank 2..14 and one of the four suits."""
    with pytest.raises(ValueError):
        Card(rank, suit)


def test_r1_rules_defaults() -> None:
    """R1.1, R5, R6, R9, R10: the defaults docs/rules.md names."""
    r = Rules()
    assert (r.variant, r.players, r.deck, r.max_attack, r.first_round_limit) == (
        "throw-in", 2, 36, 6, 6)
    assert (r.throw_in, r.show_trump, r.no_draws) == ("all", False, False)
    assert (r.throw_in_seconds, r.close_grace_seconds, r.turn_seconds) == (8.0, 1.0, 30.0)
    assert tuple(r.bot_delay) == (1.5, 3.0)


def test_r1_rules_are_frozen() -> None:
    """API: Rules is frozen."""
    r = Rules()
    with pytest.raises(AttributeError):
        r.players = 3  # type: ignore[misc]


@pytest.mark.parametrize(
    "options",
    [
        {"variant": "poker"},
        {"players": 1},
        {"players": 7},
        {"players": 0},
        {"deck": 32},
        {"deck": 54},
        {"deck": 24, "players": 5},
        {"deck": 24, "players": 6},
        {"throw_in": "everyone"},
        {"max_attack": 0},
        {"max_attack": 7},
        {"first_round_limit": 0},
        {"throw_in_seconds": -1.0},
        {"close_grace_seconds": -1.0},
        {"turn_seconds": 0.0},
        {"turn_seconds": -5.0},
        {"bot_delay": (3.0, 1.5)},
    ],
)
def test_r1_rules_validation_rejects_bad_values(options: dict) -> None:
    """R1.1, R1.2, R5.3 and the options: invalid table options raise ValueError."""
    with pytest.raises(ValueError):
        Rules(**options)


@pytest.mark.parametrize(
    "options",
    [
        {"players": 2},
        {"players": 6},
        {"deck": 24, "players": 4},
        {"deck": 52, "players": 6},
        {"variant": "transfer", "show_trump": True},
        {"throw_in": "neighbours", "players": 5},
        {"first_round_limit": 5},
        {"no_draws": True},
    ],
)
def test_r1_rules_accepts_every_documented_option(options: dict) -> None:
    """R1.1, R5.2, R5.3, R8.3, R9.7: the documented options are accepted."""
    Rules(**options)


@pytest.mark.parametrize(
    ("deck", "lowest", "players"),
    [(24, 9, 2), (24, 9, 4), (36, 6, 2), (36, 6, 5), (52, 2, 3), (52, 2, 6)],
)
def test_r1_1_new_game_uses_the_whole_deck(deck: int, lowest: int, players: int) -> None:
    """R1.1, R2.1: Game.new deals `deck` distinct cards of ranks lowest..A."""
    game = Game.new(Rules(deck=deck, players=players), seed=7)
    dealt = [c for s in range(players) for c in game.hand(s)]
    assert len(dealt) == len(set(dealt)) == 6 * players
    assert all(lowest <= c.rank <= 14 for c in dealt)
    assert game.stock_count == deck - 6 * players
    assert game.discard_count == 0
    if game.trump_card is not None:
        assert game.trump_card not in dealt
        assert lowest <= game.trump_card.rank <= 14
    every = {str(c) for c in dealt} | {str(c) for c in _stock(game)}
    assert len(every) == deck
    assert {Card.parse(c).rank for c in every} == set(range(lowest, 15))


def _stock(game: Game) -> list[Card]:
    """The stock's cards, read from the full state (only to_dict exposes them)."""
    dealt = {str(c) for s in range(game.rules.players) for c in game.hand(s)}
    return [Card.parse(c) for c in all_cards_in(game.to_dict()) - dealt]


def test_r1_2_seats_and_active_seats() -> None:
    """R1.2: every seat starts active, in seat order."""
    for players in range(2, 7):
        game = Game.new(Rules(players=players), seed=players)
        assert game.active_seats == list(range(players))
        assert not game.is_over
        assert game.finished_order == []
