"""Taps pressed on an earlier screen: applied when they still mean the same move (issue 10)."""

from __future__ import annotations

from engine import Action, Card, Game, Rules
from tg_durak.stale_taps import round_start, still_meant
from tg_durak.taps import Choose, Choosing, Pass, PlayCard, Reply, Take

ATTACKER, DEFENDER, THROWER = 0, 1, 2


def c(text: str) -> Card:
    return Card.parse(text)


def three(defender_hand: str = "7s 8s 7h Jh Ac Jd", variant: str = "throw-in") -> Game:
    """Three players, hearts trump; seat 0 leads against seat 1, seat 2 may throw in."""
    return Game.from_deal(Rules(players=3, variant=variant),
                          [["6s", "6c", "9d", "Ks", "Qd", "10c"], defender_hand.split(),
                           ["6d", "9s", "7c", "Kc", "Qs", "10d"]],
                          ["8d", "8c", "Ah"], first_attacker=ATTACKER)


def play(game: Game, seat: int, kind: str, card: str | None = None,
         target: int | None = None) -> None:
    game.apply(seat, Action(kind, None if card is None else c(card), target), 0.0)


def meant(game: Game, version: int, seat: int, tap: object) -> object:
    return still_meant(game, round_start(game), version, seat, tap, Choosing())


def close_round(game: Game) -> None:
    while game.table:
        game.advance(game.next_deadline)


def test_a_throw_in_pressed_before_the_defender_beat_is_applied() -> None:
    game = three()
    play(game, ATTACKER, "attack", "6s")
    seen = game.version                       # the thrower's screen: 6♠ unbeaten
    play(game, DEFENDER, "defend", "7s", 0)
    assert meant(game, seen, THROWER, PlayCard(c("6d").index)) == Action("attack", c("6d"))
    # The beat put a seven on the table: a seven pressed on the old screen throws it in now.
    assert meant(game, seen, THROWER, PlayCard(c("7c").index)) == Action("attack", c("7c"))
    assert meant(game, seen, ATTACKER, Pass()) == Action("pass")


def test_two_throw_ins_from_one_screen_both_apply_in_turn() -> None:
    game = three()
    play(game, ATTACKER, "attack", "6s")
    seen = game.version
    play(game, ATTACKER, "attack", "6c")     # the first tap came while the screen was fresh
    second = meant(game, seen, THROWER, PlayCard(c("6d").index))
    assert second == Action("attack", c("6d"))
    game.apply(THROWER, second, 0.0)
    assert [a for a, _ in game.table] == [c("6s"), c("6c"), c("6d")]


def test_the_same_tap_twice_moves_once() -> None:
    game = three()
    seen = game.version
    play(game, ATTACKER, "attack", "6s")
    assert meant(game, seen, ATTACKER, PlayCard(c("6s").index)) is None, "no longer in the hand"
    play(game, DEFENDER, "take")
    assert meant(game, seen + 1, DEFENDER, Take()) is None, "taking already"


def test_a_defence_whose_target_changed_is_stale() -> None:
    game = three()
    play(game, ATTACKER, "attack", "6s")
    seen = game.version                        # 7♥ beats 6♠, the one card to beat
    play(game, DEFENDER, "defend", "7s", 0)
    play(game, THROWER, "attack", "6d")        # now 7♥ would beat 6♦ instead
    assert meant(game, seen, DEFENDER, PlayCard(c("7h").index)) is None
    same_target = meant(game, game.version - 1, DEFENDER, PlayCard(c("7h").index))
    assert same_target is None, "no card to beat on that screen: an attack card, not a defence"
    assert meant(game, game.version, DEFENDER, PlayCard(c("7h").index)) is None, "not yet drawn"


def test_a_defence_pressed_before_a_throw_in_keeps_its_target() -> None:
    game = three()
    play(game, ATTACKER, "attack", "6s")
    seen = game.version
    play(game, THROWER, "attack", "6d")
    # 8♠ beats 6♠ only, on the old screen and now.
    assert meant(game, seen, DEFENDER, PlayCard(c("8s").index)) == Action("defend", c("8s"), 0)
    # 7♥ beat 6♠ alone on the old screen and either card now: which one did he mean?
    assert meant(game, seen, DEFENDER, PlayCard(c("7h").index)) is None


def test_after_a_transfer_the_same_card_means_another_move() -> None:
    game = three("7s 8s 6h Jh Ac Jd", variant="transfer")
    play(game, ATTACKER, "attack", "6s")
    seen = game.version
    play(game, DEFENDER, "transfer", "6h")     # seat 2 defends now
    assert meant(game, seen, DEFENDER, PlayCard(c("Jh").index)) is None, "was a defence"
    assert meant(game, seen, THROWER, PlayCard(c("6d").index)) is None, "was a throw-in"


def test_a_tap_from_the_previous_round_is_stale() -> None:
    game = three()
    play(game, ATTACKER, "attack", "6s")
    play(game, DEFENDER, "defend", "7s", 0)
    seen = game.version
    close_round(game)
    assert round_start(game) == game.version
    assert meant(game, seen, ATTACKER, Pass()) is None
    assert meant(game, game.version, ATTACKER, Pass()) is None, "not drawn yet"


def test_the_round_start_comes_from_the_log_and_survives_a_restore() -> None:
    game = three()
    assert round_start(game) == 0
    play(game, ATTACKER, "attack", "6s")
    play(game, DEFENDER, "take")
    close_round(game)
    start = game.version
    play(game, game.attacker, "attack", str(game.legal_actions(game.attacker)[0].card))
    assert round_start(game) == start
    assert round_start(Game.from_dict(game.to_dict())) == start


def test_a_refusal_or_a_choice_that_means_the_same_stands() -> None:
    game = three()
    play(game, ATTACKER, "attack", "6s")
    play(game, THROWER, "attack", "6d")
    seen = game.version                  # 7♥ beats both sixes: which one?
    play(game, ATTACKER, "pass")
    choose = Choose(Choosing(card=c("7h")), Reply("tap.choose_target"))
    assert meant(game, seen, DEFENDER, PlayCard(c("7h").index)) == choose
