"""What the game screen says, word for word, in every language: the player's own line in the
second person and the others' in the third, the last three events, prompts that offer only moves
that exist, the places, rank letters and the order of a hand."""

from __future__ import annotations

import dataclasses
import re
from itertools import pairwise

import pytest

from engine import Action, Card, Game, PlayerView, Rules
from tg_durak.i18n.translate import LOCALES, translator
from tg_durak.play.history import History, Told
from tg_durak.render.cards import card_label, in_hand_order
from tg_durak.render.game import GameScreenInput, SeatInfo, game_screen

# role: (the player's own line, another player's line)
ROLE_WORDS = {
    "en": {"leading": ("leading", "leading"), "throwing": ("throwing in", "throwing in"),
           "defending": ("defending", "defending"), "taking": ("taking", "taking"),
           "passed": ("passed", "passed"), "out": ("out", "out"),
           "away": ("away: a computer plays for you", "away")},
    "ru": {"leading": ("ходишь", "ходит"), "throwing": ("подкидываешь", "подкидывает"),
           "defending": ("отбиваешься", "отбивается"), "taking": ("берёшь", "берёт"),
           "passed": ("пас", "пас"), "out": ("без карт", "без карт"),
           "away": ("за тебя играет компьютер", "нет на месте")},
    "uk": {"leading": ("ходиш", "ходить"), "throwing": ("підкидаєш", "підкидає"),
           "defending": ("відбиваєшся", "відбивається"), "taking": ("береш", "бере"),
           "passed": ("пас", "пас"), "out": ("без карт", "без карт"),
           "away": ("за тебе грає комп’ютер", "немає на місці")},
    "pl": {"leading": ("atakujesz", "atakuje"), "throwing": ("dorzucasz", "dorzuca"),
           "defending": ("bronisz się", "broni się"), "taking": ("bierzesz", "bierze"),
           "passed": ("pas", "pas"), "out": ("bez kart", "bez kart"),
           "away": ("gra za ciebie komputer", "nie ma przy stole")},
}
YOU = {"en": "You", "ru": "Ты", "uk": "Ти", "pl": "Ty"}
NAMES = ("Alice", "Bob", "Cid", "Dan")


def c(text: str) -> Card:
    return Card.parse(text)


def _render(game: Game, seat: int, locale: str, history: History | None = None, *,
            view: PlayerView | None = None, bots: bool = False, **extra) -> str:
    seats = tuple(SeatInfo("" if bots and s else NAMES[s], bots and s > 0, "normal")
                  for s in range(game.rules.players))
    history = history or History(game.table)
    inp = GameScreenInput(table_id=1, version=game.version, view=view or game.view(seat),
                          legal=tuple(game.legal_actions(seat)), seats=seats,
                          last=tuple(history.recent), now=0.0,
                          played_by=history.played_by(game.table), **extra)
    return game_screen(inp, translator(locale)).text


def _seat_lines(text: str) -> dict[str, list[str]]:
    """Each seat line's name and the parts after its card count (or after the name, if out)."""
    lines = {}
    for line in text.splitlines():
        match = re.fullmatch(r"<b>([^<]+)</b> · (.*)", line)
        if match:
            parts = match.group(2).split(" · ")
            lines[match.group(1)] = parts[1:] if re.match(r"\d", parts[0]) else parts
    return lines


# Four players, the stock empty: the moves, and each seat's role after them (None: no role).
ROLE_STEPS = [
    (None, {0: "leading", 1: "defending", 2: None, 3: None}),
    ((0, "attack", "7s"), {0: "out", 1: "defending", 2: "throwing", 3: "throwing"}),  # last card
    ((2, "pass", None), {0: "out", 1: "defending", 2: "passed", 3: "throwing"}),
    ((1, "take", None), {0: "out", 1: "taking", 2: "throwing", 3: "throwing"}),  # passes reset
]


def _roles_game() -> Game:
    hands = [["7s"], ["8h", "9h", "Ah"], ["7d", "Kc"], ["7c", "Qd"]]
    return Game.from_deal(Rules(players=4), hands, [], trump="c", first_attacker=0)


@pytest.mark.parametrize("locale", LOCALES)
def test_every_role_reads_in_the_second_person_on_the_own_line_only(locale: str) -> None:
    words, you = ROLE_WORDS[locale], YOU[locale]
    game = _roles_game()
    for move, roles in ROLE_STEPS:
        if move is not None:
            seat, kind, card = move
            game.apply(seat, Action(kind, c(card) if card else None), 1.0)
        for viewer in range(4):
            lines = _seat_lines(_render(game, viewer, locale))
            for seat, role in roles.items():
                name = you if seat == viewer else NAMES[seat]
                expected = [] if role is None else [words[role][0 if seat == viewer else 1]]
                assert lines[name] == expected, (move, viewer, seat)


@pytest.mark.parametrize("locale", LOCALES)
def test_a_player_marked_away_reads_so_in_his_own_person(locale: str) -> None:
    words, you = ROLE_WORDS[locale], YOU[locale]
    game = _roles_game()
    game.apply(0, Action("attack", c("7s")), 1.0)
    for viewer in (1, 2):
        view = dataclasses.replace(game.view(viewer), away=frozenset({1}))
        lines = _seat_lines(_render(game, viewer, locale, view=view))
        own = viewer == 1
        name, pick = (you, 0) if own else (NAMES[1], 1)
        assert lines[name] == [words["defending"][pick], words["away"][pick]]


# ---- what just happened ------------------------------------------------------------------

def _transfer_game() -> Game:
    hands = [["8s", "9s", "Qd", "Kc", "9d", "Jh"], ["8c", "7s", "10d", "As", "Qh", "9c"],
             ["8d", "7c", "Jc", "10s", "Ks", "Ad"]]
    stock = ["6s", "6c", "7d", "Jd", "10c", "Qs", "9h", "Kh", "Ah", "Js", "Ac", "Qc", "Kd", "6h",
             "7h", "8h", "6d", "10h"]
    return Game.from_deal(Rules(variant="transfer", players=3), hands, stock, first_attacker=0)


def _history_lines(text: str) -> list[str]:
    return [m.group(1) for m in re.finditer(r"(?m)^<i>(.*)</i>$", text)]


C1, C2 = "🤖 Computer 1 (Normal)", "🤖 Computer 2 (Normal)"   # named with their strength
RU1, RU2 = "🤖 Компьютер 1 (Средний)", "🤖 Компьютер 2 (Средний)"
UK1, UK2 = "🤖 Комп’ютер 1 (Середній)", "🤖 Комп’ютер 2 (Середній)"
PL1, PL2 = "🤖 Komputer 1 (Średni)", "🤖 Komputer 2 (Średni)"
TRANSFERS_TOLD = {  # to Alice, who led: her screen after two transfers
    "en": ["You lead 8♠️", f"{C1} transfers with 8♣️ to {C2}", f"{C2} transfers with 8♦️ to you"],
    "ru": ["Ты ходишь картой 8♠️", f"{RU1} переводит картой 8♣️ — отбивается {RU2}",
           f"{RU2} переводит на тебя картой 8♦️"],
    "uk": ["Ти ходиш картою 8♠️", f"{UK1} переводить картою 8♣️ — відбивається {UK2}",
           f"{UK2} переводить на тебе картою 8♦️"],
    "pl": ["Atakujesz kartą 8♠️", f"{PL1} przekazuje atak kartą 8♣️ — broni się {PL2}",
           f"{PL2} przekazuje ci atak kartą 8♦️"],
}
THROW_IN_TOLD = {  # then Alice beats 8♠ and computer 1 throws in: computer 1's screen
    "en": [f"{C2} transfers with 8♦️ to Alice", "Alice beats 8♠️ with 9♠️", "You throw in 9♣️"],
    "ru": [f"{RU2} переводит картой 8♦️ — отбивается Alice", "Alice бьёт 8♠️ картой 9♠️",
           "Ты подкидываешь 9♣️"],
    "uk": [f"{UK2} переводить картою 8♦️ — відбивається Alice", "Alice б’є 8♠️ картою 9♠️",
           "Ти підкидаєш 9♣️"],
    "pl": [f"{PL2} przekazuje atak kartą 8♦️ — broni się Alice", "Alice bije 8♠️ kartą 9♠️",
           "Dorzucasz 9♣️"],
}


@pytest.mark.parametrize("locale", LOCALES)
def test_the_last_three_events_name_who_and_which_cards(locale: str) -> None:
    game, history = _transfer_game(), History()
    for seat, kind, card, target in ((0, "attack", "8s", None), (1, "transfer", "8c", None),
                                     (2, "transfer", "8d", None)):
        history.note(game.apply(seat, Action(kind, c(card), target), 1.0))
    assert _history_lines(_render(game, 0, locale, history, bots=True)) == TRANSFERS_TOLD[locale]
    for seat, kind, card, target in ((0, "defend", "9s", 0), (1, "attack", "9c", None)):
        history.note(game.apply(seat, Action(kind, c(card), target), 2.0))
    assert _history_lines(_render(game, 1, locale, history, bots=True)) == THROW_IN_TOLD[locale]


def test_the_table_says_who_played_each_attack_card() -> None:
    game, history = _transfer_game(), History()
    for seat, kind, card, target in ((0, "attack", "8s", None), (1, "transfer", "8c", None),
                                     (2, "transfer", "8d", None), (0, "defend", "9s", 0),
                                     (1, "attack", "9c", None)):
        history.note(game.apply(seat, Action(kind, c(card), target), 1.0))
    text = _render(game, 0, "ru", history, bots=True)
    table = [line for line in text.splitlines() if "→" in line]
    assert table == ["8♠️ → 9♠️   <i>Ты</i>", f"8♣️ → …   <i>{RU1}</i>", f"8♦️ → …   <i>{RU2}</i>",
                     f"9♣️ → …   <i>{RU1}</i>"]
    unknown = _render(game, 0, "en", History(game.table), bots=True)  # as after a restart
    assert "8♣️ → …\n" in unknown and f"<i>{C1}</i>" not in unknown


# Every kind of event told, by the player himself (.you), by another, and to the player.
EVERY_TOLD = [
    ("lead", Told("lead", 1, c("7h"))), ("lead.you", Told("lead", 0, c("7h"))),
    ("attack", Told("attack", 1, c("7h"))), ("attack.you", Told("attack", 0, c("7h"))),
    ("defend", Told("defend", 1, c("9h"), beat=c("7h"))),
    ("defend.you", Told("defend", 0, c("9h"), beat=c("7h"))),
    ("transfer", Told("transfer", 1, c("7h"), to_seat=2)),
    ("transfer.you", Told("transfer", 0, c("7h"), to_seat=1)),
    ("transfer.to_you", Told("transfer", 1, c("7h"), to_seat=0)),
    ("show_trump", Told("show_trump", 1, c("7c"), to_seat=2)),
    ("show_trump.you", Told("show_trump", 0, c("7c"), to_seat=1)),
    ("show_trump.to_you", Told("show_trump", 1, c("7c"), to_seat=0)),
    ("taken", Told("taken", 1, count=3)), ("taken.you", Told("taken", 0, count=3)),
    ("beaten", Told("beaten", 1, count=4)), ("beaten.own", Told("beaten", 0, count=4)),
    ("timeout", Told("timeout", 1)), ("timeout.you", Told("timeout", 0)),
    ("out", Told("out", 1)), ("out.you", Told("out", 0)),
]
TOLD_WORDS = {
    "en": {
        "lead": f"{C1} leads 7♥️", "lead.you": "You lead 7♥️",
        "attack": f"{C1} throws in 7♥️", "attack.you": "You throw in 7♥️",
        "defend": f"{C1} beats 7♥️ with 9♥️", "defend.you": "You beat 7♥️ with 9♥️",
        "transfer": f"{C1} transfers with 7♥️ to {C2}",
        "transfer.you": f"You transfer with 7♥️ to {C1}",
        "transfer.to_you": f"{C1} transfers with 7♥️ to you",
        "show_trump": f"{C1} shows 7♣️ and transfers to {C2}",
        "show_trump.you": f"You show 7♣️ and transfer to {C1}",
        "show_trump.to_you": f"{C1} shows 7♣️ and transfers to you",
        "taken": f"{C1} picks up 3 cards", "taken.you": "You pick up 3 cards",
        "beaten": "Beaten: the cards go to the discard pile.",
        "timeout": f"{C1} runs out of time", "timeout.you": "You run out of time",
        "out": f"{C1} has no cards left: safe!", "out.you": "You have no cards left: safe!",
    },
    "ru": {
        "lead": f"{RU1} ходит картой 7♥️", "lead.you": "Ты ходишь картой 7♥️",
        "attack": f"{RU1} подкидывает 7♥️", "attack.you": "Ты подкидываешь 7♥️",
        "defend": f"{RU1} бьёт 7♥️ картой 9♥️", "defend.you": "Ты бьёшь 7♥️ картой 9♥️",
        "transfer": f"{RU1} переводит картой 7♥️ — отбивается {RU2}",
        "transfer.you": f"Ты переводишь картой 7♥️ — отбивается {RU1}",
        "transfer.to_you": f"{RU1} переводит на тебя картой 7♥️",
        "show_trump": f"{RU1} показывает 7♣️ и переводит — отбивается {RU2}",
        "show_trump.you": f"Ты показываешь 7♣️ и переводишь — отбивается {RU1}",
        "show_trump.to_you": f"{RU1} показывает 7♣️ и переводит на тебя",
        "taken": f"{RU1} забирает 3 карты", "taken.you": "Ты забираешь 3 карты",
        "beaten": "Бито: карты уходят в отбой.",
        "timeout": f"{RU1} не успевает", "timeout.you": "Ты не успеваешь",
        "out": f"{RU1} выходит из игры: карт не осталось!",
        "out.you": "Ты выходишь из игры: карт не осталось!",
    },
    "uk": {
        "lead": f"{UK1} ходить картою 7♥️", "lead.you": "Ти ходиш картою 7♥️",
        "attack": f"{UK1} підкидає 7♥️", "attack.you": "Ти підкидаєш 7♥️",
        "defend": f"{UK1} б’є 7♥️ картою 9♥️", "defend.you": "Ти б’єш 7♥️ картою 9♥️",
        "transfer": f"{UK1} переводить картою 7♥️ — відбивається {UK2}",
        "transfer.you": f"Ти переводиш картою 7♥️ — відбивається {UK1}",
        "transfer.to_you": f"{UK1} переводить на тебе картою 7♥️",
        "show_trump": f"{UK1} показує 7♣️ і переводить — відбивається {UK2}",
        "show_trump.you": f"Ти показуєш 7♣️ і переводиш — відбивається {UK1}",
        "show_trump.to_you": f"{UK1} показує 7♣️ і переводить на тебе",
        "taken": f"{UK1} забирає 3 карти", "taken.you": "Ти забираєш 3 карти",
        "beaten": "Бито: карти йдуть у відбій.",
        "timeout": f"{UK1} не встигає", "timeout.you": "Ти не встигаєш",
        "out": f"{UK1} виходить із гри: карт не лишилося!",
        "out.you": "Ти виходиш із гри: карт не лишилося!",
    },
    "pl": {
        "lead": f"{PL1} atakuje kartą 7♥️", "lead.you": "Atakujesz kartą 7♥️",
        "attack": f"{PL1} dorzuca 7♥️", "attack.you": "Dorzucasz 7♥️",
        "defend": f"{PL1} bije 7♥️ kartą 9♥️", "defend.you": "Bijesz 7♥️ kartą 9♥️",
        "transfer": f"{PL1} przekazuje atak kartą 7♥️ — broni się {PL2}",
        "transfer.you": f"Przekazujesz atak kartą 7♥️ — broni się {PL1}",
        "transfer.to_you": f"{PL1} przekazuje ci atak kartą 7♥️",
        "show_trump": f"{PL1} pokazuje 7♣️ i przekazuje atak — broni się {PL2}",
        "show_trump.you": f"Pokazujesz 7♣️ i przekazujesz atak — broni się {PL1}",
        "show_trump.to_you": f"{PL1} pokazuje 7♣️ i przekazuje ci atak",
        "taken": f"{PL1} zbiera 3 karty", "taken.you": "Zbierasz 3 karty",
        "beaten": "Pobite: karty trafiają na stos odrzuconych.",
        "timeout": f"{PL1} nie zdąża", "timeout.you": "Nie zdążasz",
        "out": f"{PL1} nie ma już kart i wychodzi z gry!",
        "out.you": "Nie masz już kart: wychodzisz z gry!",
    },
}


def _told(told: Told, locale: str) -> str:
    game = Game.from_deal(Rules(players=3), [["6s"], ["6d"], ["6h"]], ["Ac"], first_attacker=0)
    seats = (SeatInfo("Alice", False), SeatInfo("", True), SeatInfo("", True))
    inp = GameScreenInput(table_id=1, version=0, view=game.view(0), legal=(), seats=seats,
                          last=(told,), now=0.0)
    [line] = _history_lines(game_screen(inp, translator(locale)).text)
    return line


@pytest.mark.parametrize("locale", LOCALES)
def test_every_kind_of_event_is_told_in_its_person(locale: str) -> None:
    words = TOLD_WORDS[locale]
    for name, told in EVERY_TOLD:
        assert _told(told, locale) == words[name.removesuffix(".own")], name


# ---- prompts: only moves that exist ---------------------------------------------------------

def _prompt(game: Game, seat: int, locale: str = "en") -> str:
    text = _render(game, seat, locale, bots=True)
    [prompt] = [line for line in text.splitlines()
                if line.startswith("<b>") and line.endswith("</b>")]
    return prompt[3:-4]


def _three_players(hands: list[list[str]], stock: tuple[str, ...] = ("Ac",)) -> Game:
    return Game.from_deal(Rules(players=3), hands, list(stock), first_attacker=0)


def test_a_thrower_is_asked_to_throw_in_only_with_a_card_that_fits() -> None:
    game = _three_players([["7s", "Kd"], ["9s", "10s", "Jd"], ["7h", "8d"]])
    game.apply(0, Action("attack", c("7s")), 1.0)
    assert _prompt(game, 2) == f"{C1} is defending. You may throw in."   # 7♥ fits
    assert _prompt(game, 0) == f"Waiting for {C1} to beat the cards…"    # K♦ does not
    assert _prompt(game, 0, "ru") == f"{RU1} отбивается. Ждём…"
    game.apply(1, Action("defend", c("9s"), 0), 2.0)
    assert _prompt(game, 2) == "All beaten. Throw in a card or pass."
    assert _prompt(game, 0) == f"All beaten. Waiting for {C2} to throw in…"   # the one other
    assert _prompt(game, 1) == "All beaten. Waiting for the others to throw in…"
    assert _prompt(game, 0, "pl") == f"Wszystko pobite. Czekamy, czy {PL2} coś dorzuci…"
    assert _prompt(game, 1, "pl") == "Wszystko pobite. Czekamy, czy pozostali coś dorzucą…"


def test_a_take_asks_to_throw_in_only_who_can() -> None:
    game = _three_players([["7s", "Kd"], ["9h", "10h", "Jd"], ["7h", "8d"]])
    game.apply(0, Action("attack", c("7s")), 1.0)
    game.apply(1, Action("take"), 2.0)
    assert _prompt(game, 2) == f"{C1} takes. Throw in more or pass."
    assert _prompt(game, 0) == f"{C1} takes. Waiting for {C2} to throw in…"
    assert _prompt(game, 0, "uk") == f"{UK1} бере. Чекаємо, чи підкине {UK2}…"
    assert _prompt(game, 1) == "You take. The others may throw in more."
    assert _prompt(game, 1, "ru") == "Ты берёшь. Остальные могут подкинуть вдогонку."



def test_with_neighbours_throwing_in_the_one_other_neighbour_is_named() -> None:
    """R5.2 option "neighbours": seat 3 may not throw in, so seat 0 waits on seat 2 alone."""
    game = Game.from_deal(Rules(players=4, throw_in="neighbours"),
                          [["7s", "Kd"], ["9h", "10h", "Jd"], ["7h", "8d"], ["6h", "6d"]],
                          ["Ac"], first_attacker=0)
    game.apply(0, Action("attack", c("7s")), 1.0)
    game.apply(1, Action("take"), 2.0)
    assert _prompt(game, 0) == f"{C1} takes. Waiting for {C2} to throw in…"
    assert _prompt(game, 1) == "You take. The others may throw in more."
    assert _prompt(game, 3) == f"{C1} takes. Waiting for the others to throw in…"

def test_heads_up_the_taker_is_told_who_may_throw_in_not_the_others() -> None:
    game = Game.from_deal(Rules(players=2), [["7s", "7h"], ["9h", "9d"]], ["Ac"],
                          first_attacker=1)   # 9♦ fits: he may throw in more
    game.apply(1, Action("attack", c("9h")), 1.0)
    game.apply(0, Action("take"), 2.0)
    assert _prompt(game, 0) == f"You take. {C1} may throw in more."
    assert _prompt(game, 0, "ru") == f"Ты берёшь. {RU1} может подкинуть вдогонку."
    assert _prompt(game, 0, "uk") == f"Ти береш. {UK1} може підкинути навздогін."
    assert _prompt(game, 0, "pl") == f"Bierzesz. {PL1} może jeszcze dorzucić."


def test_once_nobody_may_throw_in_every_screen_says_the_round_closes() -> None:
    """R6.3: with no card that fits left to throw in, the round closes after the grace, as the
    timer says; no screen waits on a thrower then (heads-up, nobody else may throw in: R5.2)."""
    def game(answer: Action) -> Game:
        g = Game.from_deal(Rules(players=2), [["7s", "Kd"], ["9s", "Jd"]], ["Ac"],
                           first_attacker=0)
        g.apply(0, Action("attack", c("7s")), 1.0)
        g.apply(1, answer, 2.0)
        return g

    beaten, taken = game(Action("defend", c("9s"), 0)), game(Action("take"))
    assert _prompt(beaten, 0) == "All beaten. Nothing more to throw in: the round closes."
    assert _prompt(beaten, 0, "ru") == "Всё побито. Подкинуть больше нечего: раунд закрывается."
    assert _prompt(beaten, 0, "uk") == "Усе побито. Підкинути більше нічого: раунд закривається."
    assert _prompt(beaten, 0, "pl") == (
        "Wszystko pobite. Nie ma już czego dorzucić: runda się kończy.")
    assert _prompt(taken, 0) == f"{C1} takes. Nothing more to throw in: the round closes."
    assert _prompt(taken, 0, "ru") == f"{RU1} берёт. Подкинуть больше нечего: раунд закрывается."
    # The defender's timer says so too, so his line does not wait on the attacker.
    assert _prompt(beaten, 1) == "All beaten. Nothing more to throw in: the round closes."
    assert _prompt(taken, 1) == "You take. Nothing more to throw in: the round closes."
    assert _prompt(taken, 1, "ru") == "Ты берёшь. Подкинуть больше нечего: раунд закрывается."
    assert _prompt(taken, 1, "uk") == "Ти береш. Підкинути більше нічого: раунд закривається."
    assert _prompt(taken, 1, "pl") == "Bierzesz. Nie ma już czego dorzucić: runda się kończy."
    # With three, not "the others" when neither other has a card that fits.
    three = _three_players([["7s", "Kd"], ["9s", "10s", "Jd"], ["6h", "8d"]])
    three.apply(0, Action("attack", c("7s")), 1.0)
    three.apply(1, Action("defend", c("9s"), 0), 2.0)
    assert _prompt(three, 2) == "All beaten. Nothing more to throw in: the round closes."
    assert _prompt(three, 1, "ru") == "Всё побито. Подкинуть больше нечего: раунд закрывается."


@pytest.mark.parametrize(("variant", "hand", "prompt"), [
    ("throw-in", ["9s", "Jd"], "You defend: beat the cards or take them."),
    ("throw-in", ["6h", "Jd"], "Nothing of yours beats these cards: take them."),
    ("transfer", ["9s", "7d"], "You defend: beat the cards, transfer or take."),
    ("transfer", ["6h", "7d"], "Nothing of yours beats these cards: transfer or take."),
])
def test_the_defender_is_offered_the_answers_he_has(variant: str, hand: list[str],
                                                    prompt: str) -> None:
    game = Game.from_deal(Rules(variant=variant, players=3), [["7s", "Kd"], hand, ["8h", "8d"]],
                          ["Ac"], first_attacker=0)
    game.apply(0, Action("attack", c("7s")), 1.0)
    assert _prompt(game, 1) == prompt


def test_russian_defender_prompts_speak_to_him() -> None:
    game = _three_players([["7s", "Kd"], ["6h", "Jd"], ["8h", "8d"]])
    game.apply(0, Action("attack", c("7s")), 1.0)
    assert _prompt(game, 1, "ru") == "Тебе нечем побить эти карты: бери."


# ---- the result -------------------------------------------------------------------------

def _finished(hands: list[list[str]], moves: list[tuple[int, str, str | None, int | None]],
              **rules) -> Game:
    game = Game.from_deal(Rules(players=len(hands), **rules), hands, [], trump="c",
                          first_attacker=0)
    for seat, kind, card, target in moves:
        game.apply(seat, Action(kind, c(card) if card else None, target), 1.0)
    if not game.is_over:
        game.advance(game.next_deadline)
    assert game.is_over
    return game


def _result(game: Game, seat: int, locale: str) -> list[str]:
    lines = _render(game, seat, locale, bots=True, closed=True).splitlines()
    return lines[-2:]


def test_the_result_lists_the_places_and_the_durak() -> None:
    game = _finished([["6h"], ["7h"], ["6d", "7d"]],
                     [(0, "attack", "6h", None), (1, "defend", "7h", 0)])
    assert (game.finished_order, game.durak) == ([0, 1], 2)
    assert _result(game, 0, "en") == [f"<b>{C2} is the durak!</b>",
                                      f"Places: 1. You, 2. {C1} — durak: {C2}"]
    assert _result(game, 2, "en") == ["<b>You are the durak!</b>",
                                      f"Places: 1. Alice, 2. {C1} — durak: You"]
    assert _result(game, 0, "ru")[1] == f"Места: 1. Ты, 2. {RU1} — дурак: {RU2}"
    assert _result(game, 0, "uk")[1] == f"Місця: 1. Ти, 2. {UK1} — дурень: {UK2}"
    assert _result(game, 0, "pl")[1] == f"Miejsca: 1. Ty, 2. {PL1} — dureń: {PL2}"


def test_a_draw_says_there_is_no_durak_and_lists_the_places() -> None:
    game = _finished([["6h"], ["7h"]], [(0, "attack", "6h", None), (1, "defend", "7h", 0)])
    assert game.durak is None
    assert _result(game, 0, "en") == ["<b>A draw:</b> nobody is the durak.",
                                      f"Places: 1. You, 2. {C1}"]
    assert _result(game, 1, "ru") == ["<b>Ничья:</b> дурака нет.", "Места: 1. Alice, 2. Ты"]
    assert f"{C1} · 0 cards" not in _render(game, 0, "en", bots=True, closed=True)


# ---- cards -------------------------------------------------------------------------------

@pytest.mark.parametrize(("locale", "letters"), [
    ("en", "J♠️ Q♥️ K♣️ A♦️"), ("ru", "В♠️ Д♥️ К♣️ Т♦️"), ("uk", "В♠️ Д♥️ К♣️ Т♦️"),
    ("pl", "W♠️ D♥️ K♣️ A♦️"),
])
def test_ranks_are_written_as_the_language_writes_them(locale: str, letters: str) -> None:
    t = translator(locale)
    assert " ".join(card_label(c(x), t) for x in ("Js", "Qh", "Kc", "Ad")) == letters
    assert card_label(c("10h"), t) == "10♥️"


RED = set("♥♦")


@pytest.mark.parametrize("trump", "♠♥♣♦")
def test_a_hand_alternates_colours_with_trumps_last(trump: str) -> None:
    hand = [Card(rank, suit) for suit in "♠♣♦♥" for rank in (14, 6, 10)]
    ordered = in_hand_order(hand, trump)
    suits = list(dict.fromkeys(card.suit for card in ordered))
    assert suits[-1] == trump and sorted(suits) == sorted("♠♣♦♥")
    assert all((a in RED) != (b in RED) for a, b in pairwise(suits))
    assert all(a.rank < b.rank for a, b in pairwise(ordered)
               if a.suit == b.suit)
    if trump in "♥♦":  # with a red trump, spades can come first
        assert suits[0] == "♠"


def test_the_hand_on_the_keyboard_is_in_that_order_in_every_language() -> None:
    hands = [["Qs", "6d", "Ah", "7c", "10s", "Jh"], ["6s", "7s", "8s", "9s", "Ks", "As"]]
    game = Game.from_deal(Rules(players=2), hands, ["6h"], first_attacker=1)
    for locale, row in (("en", "10♠️ Q♠️ 6♦️ 7♣️ J♥️ A♥️"), ("ru", "10♠️ Д♠️ 6♦️ 7♣️ В♥️ Т♥️"),
                        ("pl", "10♠️ D♠️ 6♦️ 7♣️ W♥️ A♥️")):
        inp = GameScreenInput(table_id=1, version=0, view=game.view(0), legal=(),
                              seats=(SeatInfo("Alice", False), SeatInfo("", True)),
                              last=(), now=0.0)
        [cards] = game_screen(inp, translator(locale)).keyboard
        assert " ".join(b.text for b in cards) == row
