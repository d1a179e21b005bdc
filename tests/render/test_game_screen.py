"""The game screen in every language: fits Telegram, fits a phone, says the right thing."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest

from engine import Action, Card, Game, Rules
from tg_durak.i18n.translate import LOCALES, translator
from tg_durak.play.history import History
from tg_durak.render.game import GameScreenInput, SeatInfo, game_screen

MAX_TEXT = 4096
MAX_DATA = 64
MAX_CARD_LABEL = 6      # "•10♦️" is 5 code points
MAX_ACTION_LABEL = 16   # two or three action buttons share one row on a phone
THROW_IN_PROMPTS = ("turn.defends_throw", "turn.taking_throw", "turn.beaten_throw")


def _screen(game: Game, seat: int, locale: str, history: History | None = None, **extra):
    seats = tuple(SeatInfo("Alice" if s == 0 else "", s != 0, "normal")
                  for s in range(game.rules.players))
    history = history or History(game.table)
    inp = GameScreenInput(table_id=123456, version=game.version, view=game.view(seat),
                          legal=tuple(game.legal_actions(seat)), seats=seats,
                          last=tuple(history.recent), played_by=history.played_by(game.table),
                          now=game.next_deadline - 5 if game.next_deadline else 0.0,
                          **{"closed": game.is_over, **extra})
    return game_screen(inp, translator(locale))


def _positions(rules: Rules, seed: int, rng: random.Random) -> Iterator[tuple[Game, History]]:
    """A game of random moves and waits, after each change, with the history a table keeps."""
    game, history, now = Game.new(rules, seed), History(), 0.0
    while not game.is_over:
        movers = game.acting_seats
        if not movers or rng.random() < 0.05:
            now = game.next_deadline
            history.note(game.advance(now))
        else:
            seat = rng.choice(movers)
            history.note(game.apply(seat, rng.choice(game.legal_actions(seat)), now))
        yield game, history


def _buttons(screen):
    return [b for row in screen.keyboard for b in row]


def _check_limits(screen) -> None:
    assert 0 < len(screen.text) <= MAX_TEXT
    buttons = _buttons(screen)
    assert len(buttons) <= 100
    assert all(len(row) <= 8 for row in screen.keyboard)
    for b in buttons:
        assert len(b.callback_data.encode()) <= MAX_DATA, b.callback_data
        is_card = b.callback_data.split(":")[3:4] in (["c"], ["X"])
        assert len(b.text) <= (MAX_CARD_LABEL if is_card else MAX_ACTION_LABEL), b.text


@pytest.mark.parametrize("locale", LOCALES)
def test_screens_along_whole_games_fit_telegram_and_a_phone(locale: str) -> None:
    """... and ask to throw in only a player who has a card to throw in."""
    rng = random.Random(7)
    t = translator(locale)
    throw_in = re.compile("|".join(re.escape(t(key, name="@")).replace("@", ".+")
                                   for key in THROW_IN_PROMPTS))
    for players, variant in ((2, "transfer"), (4, "throw-in"), (6, "transfer")):
        rules = Rules(variant=variant, players=players)
        for game, history in _positions(rules, rng.randrange(10**6), rng):
            for seat in range(players):
                screen = _screen(game, seat, locale, history)
                _check_limits(screen)
                can_throw = any(a.kind == "attack" for a in game.legal_actions(seat))
                assert bool(throw_in.search(screen.text)) <= can_throw, screen.text


def test_biggest_hand_still_fits() -> None:
    """A taker with 30 cards in a 52-card game: eight-wide rows, under every limit."""
    cards = [Card(r, s) for s in "♠♣♦♥" for r in range(2, 15)]
    hands = [cards[:30], cards[30:36]]
    game = Game.from_deal(Rules(players=2, deck=52), hands, cards[36:], first_attacker=1)
    for locale in LOCALES:
        screen = _screen(game, 0, locale)
        _check_limits(screen)
        assert max(len(r) for r in screen.keyboard) == 8


@pytest.mark.parametrize(("locale", "counts"), [
    ("en", {1: "1 card", 2: "2 cards", 5: "5 cards"}),
    ("ru", {1: "1 карта", 2: "2 карты", 5: "5 карт"}),
    ("uk", {1: "1 карта", 2: "2 карти", 5: "5 карт"}),
    ("pl", {1: "1 karta", 2: "2 karty", 5: "5 kart"}),
])
def test_card_counts_use_the_right_plural(locale: str, counts: dict[int, str]) -> None:
    hands = [["6s", "7s", "8s", "9s", "10s", "Js"], ["6h"], ["6d", "7d"],
             ["6c", "7c", "8c", "9c", "10c"]]
    game = Game.from_deal(Rules(players=4), hands, [], trump="s", first_attacker=0)
    text = _screen(game, 0, locale).text
    for phrase in counts.values():
        assert phrase in text, (phrase, text)


def test_defender_sees_take_and_transfer_only_when_legal() -> None:
    hands = [["7s", "Kd"], ["7h", "9s", "Qd"], ["8c", "9c", "10c"]]
    game = Game.from_deal(Rules(variant="transfer", players=3), hands, ["Ac"], first_attacker=0)
    game.apply(0, Action("attack", Card.parse("7s")), 1.0)
    labels = [b.text for b in _buttons(_screen(game, 1, "en"))]
    assert "Take" in labels and "Transfer" in labels and "Pass" not in labels
    assert "•9♠️" in labels and "•7♥️" not in labels and "Qd" not in labels
    game.apply(1, Action("defend", Card.parse("9s"), 0), 2.0)
    labels = [b.text for b in _buttons(_screen(game, 1, "en"))]
    assert "Transfer" not in labels and "Take" not in labels  # all beaten: he waits


def test_target_is_asked_only_when_a_card_beats_several() -> None:
    hands = [["7s", "7d", "Kc"], ["Ah", "8h", "9c"], ["6c"]]
    game = Game.from_deal(Rules(players=3), hands, ["10h"], first_attacker=0)
    game.apply(0, Action("attack", Card.parse("7s")), 1.0)
    game.apply(0, Action("attack", Card.parse("7d")), 1.5)
    screen = _screen(game, 1, "en", choosing_card=Card.parse("Ah"))
    labels = [b.text for b in _buttons(screen)]
    assert labels == ["7♠️ ← A♥️", "7♦️ ← A♥️", "✖ Cancel"]
    assert "Which card" in screen.text


@pytest.mark.parametrize("locale", LOCALES)
def test_targets_come_three_to_a_row_with_cancel_alone(locale: str) -> None:
    """A♣ (trump) beats any of four sevens: a phone shows three such buttons side by side."""
    hands = [["7s", "7d", "7h", "7c"], ["Ac", "6h", "6d", "6s"]]
    game = Game.from_deal(Rules(players=2), hands, ["Kc"], first_attacker=0)
    for card in hands[0]:
        game.apply(0, Action("attack", Card.parse(card)), 1.0)
    screen = _screen(game, 1, locale, choosing_card=Card.parse("Ac"))
    _check_limits(screen)
    rows = screen.keyboard
    assert [len(row) for row in rows] == [3, 1, 1]
    assert [b.callback_data.split(":")[5] for b in rows[0] + rows[1]] == ["0", "1", "2", "3"]
    assert rows[-1][0].text == translator(locale)("btn.cancel")


def test_game_over_shows_the_durak_the_ranking_and_play_again() -> None:
    hands = [["As"], ["6h", "7h"]]
    game = Game.from_deal(Rules(players=2), hands, [], trump="c", first_attacker=0)
    game.apply(0, Action("attack", Card.parse("As")), 1.0)  # decided at once (R8.5)
    assert game.is_over and game.durak == 1
    for locale, words in (("en", "🤖 Computer 1 (Normal) is the durak"),
                          ("ru", "🤖 Компьютер 1 (Средний)"), ("pl", "🤖 Komputer 1 (Średni)")):
        screen = _screen(game, 0, locale)
        assert words in screen.text
        assert len(_buttons(screen)) == 1 and _buttons(screen)[0].callback_data == "u:again:"
    assert "You are the durak" in _screen(game, 1, "en").text


def test_a_table_closes_for_people_once_every_person_is_out() -> None:
    """Two computers fight on without anyone watching: the person's screen shows his place."""
    hands = [["As"], ["6h", "7h"], ["6d", "7d"]]
    game = Game.from_deal(Rules(players=3), hands, [], trump="c", first_attacker=0)
    game.apply(0, Action("attack", Card.parse("As")), 1.0)
    assert not game.is_over and game.finished_order == [0]
    screen = _screen(game, 0, "en", closed=True)
    assert "You have no cards left: safe!" in screen.text and "1. You" in screen.text
    assert [b.callback_data for b in _buttons(screen)] == ["u:again:"]
