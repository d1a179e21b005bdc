"""Taps pressed on an earlier screen: applied when they still name the same move (issues 10, 11).

Every answer is checked twice: against the screens kept as they were drawn, and against the past
replayed from the log alone (after a restart nothing is kept); both must agree.
"""

from __future__ import annotations

from engine import Action, Game
from tests.helpers.deals import attack, card, deal, defend
from tg_durak.play.answers import Answer
from tg_durak.play.stale_taps import KEPT_PER_SEAT, ShownScreens, round_start, still_meant
from tg_durak.play.taps import (
    Beat,
    Choose,
    Choosing,
    Pass,
    PlayCard,
    Position,
    Take,
    Tap,
    TapOutcome,
    TransferMode,
    TransferWith,
)

ATTACKER, DEFENDER, THROWER = 0, 1, 2


class Drawn:
    """A game whose every change is drawn on every seat's screen, as the table service does."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.now = 0.0
        self.shown = ShownScreens()
        self._draw()

    def _draw(self) -> None:
        game = self.game
        for seat in range(game.rules.players):
            self.shown.note(game.version, game.view(seat), tuple(game.legal_actions(seat)))

    def play(self, seat: int, action: Action) -> None:
        self.game.apply(seat, action, self.now)
        self._draw()

    def close_round(self) -> None:
        while self.game.table:
            self.now = self.game.next_deadline
            self.game.advance(self.now)
            self._draw()

    def meant(self, version: int, seat: int, tap: Tap) -> TapOutcome | None:
        """What the tap does now, read against the kept screen and against the replayed one."""
        game = self.game
        now = Position(game.view(seat), tuple(game.legal_actions(seat)), Choosing())
        kept = self.shown.at(seat, version, Choosing())
        if 0 <= version < game.version:
            assert kept is not None, "every version of these games was drawn"
        answer = still_meant(game, round_start(game), version, tap, now, kept)
        assert still_meant(game, round_start(game), version, tap, now) == answer, "as replayed"
        return answer


def three(defender_hand: str = "7s 8s 7h Jh Ac Jd", variant: str = "throw-in") -> Drawn:
    """Three players, hearts trump; seat 0 leads against seat 1, seat 2 may throw in."""
    return Drawn(deal("6s 6c 9d Ks Qd 10c", defender_hand, "6d 9s 7c Kc Qs 10d",
                      stock="8d 8c Ah", variant=variant))


def two(defender_hand: str = "7h 8s 6d Jh Ac Jd") -> Drawn:
    """Two players, hearts trump; seat 0 leads against seat 1; the stock refills both hands."""
    return Drawn(deal("6s 6c 9d Ks Qd 10c", defender_hand,
                      stock="7d 8d 9c 10h Qh Kd 7c 8c 9h 10s Ah"))


def test_a_throw_in_pressed_before_the_defender_beat_is_applied() -> None:
    t = three()
    t.play(ATTACKER, attack("6s"))
    seen = t.game.version                       # the thrower's screen: 6♠ unbeaten
    t.play(DEFENDER, defend("7s", 0))
    assert t.meant(seen, THROWER, PlayCard(card("6d").index)) == attack("6d")
    # The beat put a seven on the table: a seven pressed on the old screen throws it in now.
    assert t.meant(seen, THROWER, PlayCard(card("7c").index)) == attack("7c")
    assert t.meant(seen, ATTACKER, Pass()) == Action("pass")


def test_two_throw_ins_from_one_screen_both_apply_in_turn() -> None:
    t = three()
    t.play(ATTACKER, attack("6s"))
    seen = t.game.version
    t.play(ATTACKER, attack("6c"))     # the first tap came while the screen was fresh
    second = t.meant(seen, THROWER, PlayCard(card("6d").index))
    assert second == attack("6d")
    t.play(THROWER, second)
    assert [a for a, _ in t.game.table] == [card("6s"), card("6c"), card("6d")]


def test_the_same_tap_twice_moves_once() -> None:
    t = three()
    seen = t.game.version
    t.play(ATTACKER, attack("6s"))
    assert t.meant(seen, ATTACKER, PlayCard(card("6s").index)) is None, "no longer in the hand"
    t.play(DEFENDER, Action("take"))
    assert t.meant(seen + 1, DEFENDER, Take()) is None, "taking already"


def test_a_defence_whose_target_changed_is_stale() -> None:
    t = three()
    t.play(ATTACKER, attack("6s"))
    seen = t.game.version                        # 7♥ beats 6♠, the one card to beat
    t.play(DEFENDER, defend("7s", 0))
    t.play(THROWER, attack("6d"))                # now 7♥ would beat 6♦ instead
    assert t.meant(seen, DEFENDER, PlayCard(card("7h").index)) is None
    same_target = t.meant(t.game.version - 1, DEFENDER, PlayCard(card("7h").index))
    assert same_target is None, "no card to beat on that screen: an attack card, not a defence"
    assert t.meant(t.game.version, DEFENDER, PlayCard(card("7h").index)) is None, "not yet drawn"


def test_a_defence_pressed_before_a_throw_in_keeps_its_target() -> None:
    t = three()
    t.play(ATTACKER, attack("6s"))
    seen = t.game.version
    t.play(THROWER, attack("6d"))
    # 8♠ beats 6♠ only, on the old screen and now.
    assert t.meant(seen, DEFENDER, PlayCard(card("8s").index)) == defend("8s", 0)
    # 7♥ beat 6♠ alone on the old screen and either card now: which one did he mean?
    assert t.meant(seen, DEFENDER, PlayCard(card("7h").index)) is None


def test_a_chosen_target_still_beats_the_card_it_named() -> None:
    t = three()
    t.play(ATTACKER, attack("6s"))
    t.play(THROWER, attack("6d"))
    seen = t.game.version                        # he picks 7♥ for 6♦, the second card
    t.play(DEFENDER, defend("8s", 0))
    t.play(ATTACKER, attack("6c"))
    assert t.meant(seen, DEFENDER, Beat(card("7h").index, 1)) == defend("7h", 1)


def test_after_a_transfer_the_same_card_means_another_move() -> None:
    t = three("7s 8s 6h Jh Ac Jd", variant="transfer")
    t.play(ATTACKER, attack("6s"))
    seen = t.game.version
    t.play(DEFENDER, Action("transfer", card("6h")))     # seat 2 defends now
    assert t.meant(seen, DEFENDER, PlayCard(card("Jh").index)) is None, "was a defence"
    assert t.meant(seen, THROWER, PlayCard(card("6d").index)) is None, "was a throw-in"


def test_a_tap_from_the_previous_round_is_stale() -> None:
    t = three()
    t.play(ATTACKER, attack("6s"))
    t.play(DEFENDER, defend("7s", 0))
    seen = t.game.version
    t.close_round()
    assert round_start(t.game) == t.game.version
    assert t.meant(seen, ATTACKER, Pass()) is None
    assert t.meant(t.game.version, ATTACKER, Pass()) is None, "not drawn yet"


def test_a_card_from_the_previous_round_is_never_led_in_the_next() -> None:
    t = two()
    t.play(ATTACKER, attack("6s"))
    seen = t.game.version                  # he means to throw in 6♣ as well
    t.play(DEFENDER, Action("take"))
    t.close_round()                        # the tap arrives after the round closed
    assert t.game.attacker == ATTACKER and not t.game.table
    assert attack("6c") in t.game.legal_actions(ATTACKER), "legal now, as a lead"
    assert t.meant(seen, ATTACKER, PlayCard(card("6c").index)) is None
    assert t.meant(t.game.version - 1, ATTACKER, PlayCard(card("6c").index)) is None


def test_take_from_the_previous_round_is_stale_though_legal_now() -> None:
    t = two()
    t.play(ATTACKER, attack("6s"))
    seen = t.game.version
    t.play(DEFENDER, Action("take"))       # the first of two taps on Take
    t.close_round()
    t.play(ATTACKER, attack("9d"))
    assert Action("take") in t.game.legal_actions(DEFENDER)
    assert t.meant(seen, DEFENDER, Take()) is None


def test_a_target_index_naming_another_attack_card_now_is_stale() -> None:
    t = two()
    t.play(ATTACKER, attack("6s"))
    seen = t.game.version                  # index 0 is 6♠ on his screen
    t.play(DEFENDER, Action("take"))
    t.close_round()
    t.play(ATTACKER, attack("6c"))         # index 0 is 6♣ now, and 7♥ beats it
    assert defend("7h", 0) in t.game.legal_actions(DEFENDER)
    assert t.meant(seen, DEFENDER, Beat(card("7h").index, 0)) is None
    assert t.meant(seen, DEFENDER, PlayCard(card("7h").index)) is None


def test_a_card_no_longer_in_the_hand_is_stale() -> None:
    t = two()
    t.play(ATTACKER, attack("6s"))
    t.play(ATTACKER, attack("6c"))
    seen = t.game.version
    t.play(DEFENDER, defend("7h", 0))      # the first of two taps on 7♥ for 6♠
    assert t.meant(seen, DEFENDER, Beat(card("7h").index, 0)) is None
    assert t.meant(seen, DEFENDER, Beat(card("7h").index, 1)) is None, "not for 6♣ either"


def test_a_transfer_answers_its_own_round() -> None:
    t = three("7s 8s 6h Jh Ac Jd", variant="transfer")
    t.play(ATTACKER, attack("6s"))
    seen = t.game.version
    t.play(ATTACKER, attack("6c"))
    assert t.meant(seen, DEFENDER, TransferWith(card("6h").index)) == Action(
        "transfer", card("6h")), "the same round: the transfer stands"
    assert t.meant(seen, DEFENDER, TransferMode()) == Action("transfer", card("6h"))
    t.play(DEFENDER, Action("take"))
    t.close_round()
    assert t.meant(seen, DEFENDER, TransferWith(card("6h").index)) is None


def test_the_round_start_comes_from_the_log_and_survives_a_restore() -> None:
    t = three()
    game = t.game
    assert round_start(game) == 0
    t.play(ATTACKER, attack("6s"))
    t.play(DEFENDER, Action("take"))
    t.close_round()
    start = game.version
    t.play(game.attacker, Action("attack", game.legal_actions(game.attacker)[0].card))
    assert round_start(game) == start
    assert round_start(Game.from_dict(game.to_dict())) == start


def test_a_refusal_or_a_choice_that_means_the_same_stands() -> None:
    t = three()
    t.play(ATTACKER, attack("6s"))
    t.play(THROWER, attack("6d"))
    seen = t.game.version                  # 7♥ beats both sixes: which one?
    t.play(ATTACKER, Action("pass"))
    choose = Choose(Choosing(card=card("7h")), Answer("tap.choose_target"))
    assert t.meant(seen, DEFENDER, PlayCard(card("7h").index)) == choose


def test_only_the_last_few_screens_of_a_seat_are_kept() -> None:
    game = three().game
    shown = ShownScreens()
    for version in range(KEPT_PER_SEAT + 1):
        shown.note(version, game.view(THROWER), tuple(game.legal_actions(THROWER)))
    assert shown.at(THROWER, 0, Choosing()) is None, "the oldest is dropped"
    assert shown.at(THROWER, KEPT_PER_SEAT, Choosing()) is not None
    assert shown.at(ATTACKER, KEPT_PER_SEAT, Choosing()) is None, "each seat keeps its own"
