"""What a table remembers for its screens: the last three events told, and who played each
attack card of the round."""

from __future__ import annotations

from engine import Action, Card, Game, Rules
from tg_durak.play.history import KEEP, LEAD, History, Told


def c(text: str) -> Card:
    return Card.parse(text)


def _transfer_game() -> Game:
    hands = [["8s", "9s", "Qd", "Kc", "9d", "Jh"], ["8c", "7s", "10d", "As", "Qh", "9c"],
             ["8d", "7c", "Jc", "10s", "Ks", "Ad"]]
    stock = ["6s", "6c", "7d", "Jd", "10c", "Qs", "9h", "Kh", "Ah", "Js", "Ac", "Qc", "Kd", "6h",
             "7h", "8h", "6d", "10h"]
    return Game.from_deal(Rules(variant="transfer", players=3), hands, stock, first_attacker=0)


def _play(game: Game, history: History, seat: int, kind: str, card: str | None = None,
          target: int | None = None) -> None:
    history.note(game.apply(seat, Action(kind, c(card) if card else None, target), 1.0))


def test_it_keeps_the_last_three_events_worth_telling_with_the_beaten_card() -> None:
    game, history = _transfer_game(), History()
    _play(game, history, 0, "attack", "8s")
    assert list(history.recent) == [Told(LEAD, 0, c("8s"))]
    _play(game, history, 1, "transfer", "8c")
    _play(game, history, 2, "transfer", "8d")
    _play(game, history, 0, "defend", "9s", 0)
    _play(game, history, 1, "pass")          # a pass is not told: the seat line says it
    _play(game, history, 1, "attack", "9c")  # a throw-in, not the round's lead
    assert KEEP == 3 and list(history.recent) == [
        Told("transfer", 2, c("8d"), to_seat=0),
        Told("defend", 0, c("9s"), beat=c("8s")),
        Told("attack", 1, c("9c")),
    ]
    assert history.played_by(game.table) == (0, 1, 2, 1)


def test_a_new_round_forgets_who_played_and_leads_again() -> None:
    game, history = _transfer_game(), History()
    _play(game, history, 0, "attack", "8s")
    _play(game, history, 1, "defend", "As", 0)
    for seat in (0, 2):
        _play(game, history, seat, "pass")
    history.note(game.advance(game.next_deadline))
    assert history.recent[-1] == Told("beaten", 1, count=2)
    assert game.table == [] and history.played_by(game.table) == ()
    _play(game, history, 1, "attack", "7s")   # the defender leads the next round (R6.5)
    assert history.recent[-1] == Told(LEAD, 1, c("7s"))
    assert history.played_by(game.table) == (1,)


def test_after_a_restart_the_table_is_known_but_not_who_played_it() -> None:
    game = _transfer_game()
    before = History()
    _play(game, before, 0, "attack", "8s")
    _play(game, before, 1, "transfer", "8c")
    restarted = History(game.table)
    assert list(restarted.recent) == [] and restarted.played_by(game.table) == (None, None)
    _play(game, restarted, 2, "transfer", "8d")
    _play(game, restarted, 0, "defend", "9s", 0)
    assert restarted.played_by(game.table) == (None, None, 2)
    assert restarted.recent[-1] == Told("defend", 0, c("9s"), beat=c("8s"))
