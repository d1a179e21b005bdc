"""R11: what one seat may see (PlayerView)."""

from __future__ import annotations

import pytest

from engine import Game, PlayerView, Rules
from tests.helpers.deals import (
    PASS,
    TAKE,
    all_cards_in,
    attack,
    deal,
    defend,
    finish_round,
    hand,
    show_trump,
)


def known(view: PlayerView, seat: int) -> set[str]:
    return {str(c) for c in view.known[seat]}


def visible(game: Game, seat: int) -> set[str]:
    """Every card named anywhere in the seat's view."""
    return all_cards_in(game.view(seat))


def test_r11_1_view_has_own_hand_table_trump_and_counts() -> None:
    """R11.1: own hand, the table, the face-up trump card, every hand's and the stock's count."""
    game = deal("7s 7d Kd", "9s 10s Qd Jd", "7c Qs", stock="6c 6d Ah")
    game.apply(0, attack("7s"), 1.0)
    view = game.view(2)
    assert {str(c) for c in view.hand} == {"7♣", "Q♠"}
    assert [(str(a), d) for a, d in view.table] == [("7♠", None)]
    assert str(view.trump_card) == "A♥"
    assert view.trump_suit == "♥"
    assert view.stock_count == 3
    assert view.discard_count == 0
    assert tuple(view.hand_counts) == (2, 4, 2)
    assert (view.attacker, view.defender, view.seat) == (0, 1, 2)


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_r11_2_no_other_hand_and_no_stock_card_is_visible(seat: int) -> None:
    """R11.2: a view names no card of another hand and no stock card but the face-up one."""
    game = deal("7s 7d Kd", "9s 10s Qd Jd", "7c Qs", stock="6c 6d Ah")
    game.apply(0, attack("7s"), 1.0)
    seen = visible(game, seat)
    others = {str(c) for s in range(3) if s != seat for c in game.hand(s)}
    assert seen & others == set()
    assert seen & {"6♣", "6♦"} == set(), "stock cards are hidden"
    assert "A♥" in seen
    assert hand(game, seat) <= seen


def test_r11_1_cards_a_player_took_are_known_to_all() -> None:
    """R11.1: taken cards were seen on the table: every view shows them in the taker's hand."""
    game = deal("7s 9d Kd", "9s 10s Qd Jd", "7c Qs", stock="6c 6d Ah")
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, defend("9s", 0), 2.0)
    game.apply(0, attack("9d"), 3.0)
    game.apply(1, TAKE, 4.0)
    finish_round(game)
    for seat in (0, 2):
        view = game.view(seat)
        assert known(view, 1) == {"7♠", "9♠", "9♦"}
        assert {"7♠", "9♠", "9♦"} <= visible(game, seat)
        assert visible(game, seat) & {"10♠", "Q♦", "J♦"} == set()
    assert game.view(0).known == game.view(2).known, "known cards are public"


def test_r11_1_a_known_card_is_forgotten_once_played() -> None:
    """R11.1: a taken card that the taker plays again is no longer listed in his hand."""
    game = deal("7s 6s Kd", "8s 10d", stock="6c 6d Ah")
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, TAKE, 2.0)
    game.apply(0, PASS, 2.5)
    finish_round(game)
    assert known(game.view(0), 1) == {"7♠"}
    game.apply(0, attack("6s"), 10.0)
    game.apply(1, defend("7s", 0), 11.0)
    assert known(game.view(0), 1) == set()


def test_r11_1_shown_trump_is_known() -> None:
    """R11.1, R9.7: a trump shown to transfer is revealed in the shower's hand."""
    game = deal("7s 9s", "7h 7d 10s", stock="Jc Ah", variant="transfer", show_trump=True)
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, show_trump("7h"), 2.0)
    assert "7♥" in known(game.view(0), 1)


@pytest.mark.parametrize("seed", range(3))
def test_r2_3_no_stock_trump_card_is_shown_to_all(seed: int) -> None:
    """R2.3: with no stock the trump-deciding card stays in a hand and is shown to everyone."""
    game = Game.new(Rules(players=6), seed=seed)
    view = game.view(0)
    shown = [(s, c) for s in range(1, 6) for c in view.known[s] if c.suit == game.trump_suit]
    shown += [(0, c) for c in view.known[0] if c.suit == game.trump_suit]
    assert shown, "R2.3: the card naming trump is shown"
    assert all(c in game.hand(s) for s, c in shown)


def test_r3_1_deciding_trump_is_shown() -> None:
    """R3.1: all see which card decided who starts."""
    game = deal("6s 10h", "7h 8c", "9h 6d", stock="Jc 6h", first_attacker=None)
    assert game.attacker == 1
    assert "7♥" in known(game.view(0), 1)
    assert "7♥" in visible(game, 2)


def test_r11_2_discard_contents_are_not_revealed_beyond_the_table() -> None:
    """R11.2, R6.4: the view's discard information never names a card nobody saw on the table."""
    game = deal("7s 7d 8s", "9s 8d Jd Qd", stock="6h 6d Ac")
    game.apply(0, attack("7s"), 1.0)
    game.apply(1, defend("9s", 0), 2.0)
    finish_round(game)
    view = game.view(0)
    assert view.discard_count == 2
    assert visible(game, 0) - hand(game, 0) - {"A♣"} <= {"7♠", "9♠"}


def test_r11_view_equality_and_values() -> None:
    """API: views of the same state compare equal, and a view is a value (frozen, hashable)."""
    game = deal("7s 7d Kd", "9s 10s Qd Jd", stock="6c 6d Ah")
    game.apply(0, attack("7s"), 1.0)
    assert game.view(1) == game.copy().view(1)
    assert game.view(0) != game.view(1)
    assert hash(game.view(1)) == hash(game.copy().view(1))


def test_r11_1_the_drawn_trump_card_is_known_in_the_drawers_hand() -> None:
    """R11.1, R2.2: everyone saw the face-up card go into a hand: it is known there."""
    game = deal("6s Ks Kd Kc Qs Qd", "7s Js Jd Jc 10s 10d", stock="9c Ah")
    game.apply(0, attack("6s"), 1.0)
    game.apply(1, defend("7s", 0), 2.0)
    game.apply(0, PASS, 2.5)
    finish_round(game)
    assert game.trump_card is None
    assert "A♥" in known(game.view(0), 1)
    assert "9♣" not in known(game.view(1), 0)
    assert "9♣" not in visible(game, 1)


def test_r11_the_history_is_every_event_since_the_deal_and_a_restore_replays_it() -> None:
    """Everyone at the table saw every move, who drew how many cards (not which) and how each
    round ended: the view's history; a restored game rebuilds it from its log."""
    game = deal("7s 7d Kd", "9s 10s Qd Jd", "7c Qs", stock="6c 6d Ah")
    events = game.apply(0, attack("7s"), 1.0) + game.apply(1, defend("9s", 0), 2.0)
    events += game.apply(0, PASS, 3.0) + game.apply(2, PASS, 3.0)
    events += game.advance(game.next_deadline)   # the round closes; 0 draws the whole stock
    history = game.view(1).history
    assert history == tuple(events)
    assert [(e.seat, e.count, e.card) for e in history if e.kind == "draw"] == [(0, 3, None)]
    assert game.view(0).history == history == game.view(2).history
    assert Game.from_dict(game.to_dict()).view(1) == game.view(1)
    assert game.copy(with_log=False).history == []


def test_r11_a_log_that_does_not_replay_restores_the_game_without_its_history() -> None:
    game = deal("7s 7d Kd", "9s 10s Qd Jd", "7c Qs", stock="6c 6d Ah")
    game.apply(0, attack("7s"), 1.0)
    d = game.to_dict()
    d["log"][0] = ["act", 1, "take", None, None, 0.0, False]   # seat 1 could not take then
    restored = Game.from_dict(d)
    assert restored.view(1).table == game.view(1).table
    assert restored.history == []
