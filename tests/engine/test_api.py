"""The public surface promised by notes/ENGINE_API.md (types of the read-only helpers)."""

from __future__ import annotations

from engine import Action, Event, EventKind, Game, IllegalMove, PlayerView, Refusal, Rules
from engine.actions import MESSAGES
from tests.helpers.deals import PASS, TAKE, attack, card, deal, defend, transfer


def test_api_read_only_helpers_have_the_documented_types() -> None:
    """API: passed and away are frozensets of seats; version counts the log."""
    game = deal("7s 7d Kd", "8c 9s 10s Jd", "7c Qs", stock="Jc Ah")
    game.apply(0, attack("7s"), 1.0)
    game.apply(2, PASS, 2.0)
    assert game.passed == frozenset({2}), "ENGINE_API: game.passed -> frozenset[int]"
    assert game.away == frozenset()
    assert game.version == len(game.log) == 2
    assert game.taking is False
    assert isinstance(game.attack_limit, int)
    assert isinstance(game.view(0), PlayerView)


def test_api_illegal_move_is_a_value_error() -> None:
    """API: IllegalMove subclasses ValueError."""
    assert issubclass(IllegalMove, ValueError)


def test_api_new_game_starts_with_empty_log() -> None:
    """API: a fresh game has version 0 and an empty log."""
    game = Game.new(Rules(), seed=1)
    assert game.version == 0
    assert list(game.log) == []


def test_api_every_refusal_has_one_message() -> None:
    """API: one table maps each IllegalMove code to its message."""
    codes = {v for k, v in vars(Refusal).items() if k.isupper()}
    assert codes == set(MESSAGES)
    assert str(IllegalMove(Refusal.LIMIT, attack_limit=3)) == (
        "No more cards this round: the limit is 3.")


def test_api_events_name_cards_seats_and_counts_in_their_own_fields() -> None:
    """API: a transfer names the new defender, a pick-up and a draw their counts, a round who
    attacks whom."""
    game = deal("7s 9c", "7d 9s 10c", "7c Qs 10d", stock="6c 6d Ah", variant="transfer")
    assert game.apply(0, attack("7s"), 1.0) == [Event("attack", 0, card("7s"))]
    assert game.apply(1, transfer("7d"), 2.0) == [
        Event(EventKind.TRANSFER, seat=1, card=card("7d"), to_seat=2)]
    assert game.apply(2, TAKE, 3.0) == [Event("take", 2)]
    assert game.advance(20.0) == [
        Event(EventKind.TAKEN, seat=2, count=2),
        Event(EventKind.DRAW, seat=0, count=3),
        Event(EventKind.ROUND, seat=0, to_seat=1),
    ]
    assert game.apply(0, attack("9c"), 21.0)[0].card == card("9c")
    assert game.apply(1, defend("10c", 0), 22.0) == [
        Event(EventKind.DEFEND, seat=1, card=card("10c"), target=0)]


def test_api_kinds_and_phases_equal_their_plain_names() -> None:
    """API: action kinds and phases compare equal to the plain strings of issue 2."""
    assert Action("take") == TAKE and TAKE.kind == "take"
    game = deal("7s", "8s", trump="h")
    assert game.phase == "lead" and game.legal_actions(0)[0].kind == "attack"
