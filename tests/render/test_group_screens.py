"""The group's message in every language: the lobby, its settings, the public table and the
result. Pure renders; the public table never shows a card hidden in a hand (RULES R11)."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator

import pytest

from engine import Action, Card, Game, Rules, Variant
from tg_durak.i18n.translate import LOCALES, translator
from tg_durak.play.history import History
from tg_durak.play.lobby_rules import LobbySettings
from tg_durak.play.options import TableOptions
from tg_durak.play.rows import SeatRow
from tg_durak.render.callbacks import LobbyVerb
from tg_durak.render.cards import card_label
from tg_durak.render.game import SeatInfo, computer_name
from tg_durak.render.group import (
    GroupScreenInput,
    LobbyScreenInput,
    PublicTable,
    group_screen,
    lobby_closed_screen,
    lobby_screen,
    private_note_screen,
)
from tg_durak.render.quick_taps import NotifyTap, NotifyVerb
from tg_durak.telegram.callbacks import LobbyOptionCallback, LobbyTapCallback

MAX_TEXT = 4096
MAX_DATA = 64
TABLE_ID = 2_000_000_000   # callback data must fit even for a very old bot
SEATED = (SeatRow(0, 1, "Ann <b>"), SeatRow(1, None, "", "hard"), SeatRow(2, 2, "Bob"))


def _buttons(screen) -> list:
    return [b for row in (screen.keyboard if screen.keyboard else ()) for b in row]


def _check_limits(screen) -> None:
    assert 0 < len(screen.text) <= MAX_TEXT
    for b in _buttons(screen):
        assert len(b.callback_data.encode()) <= MAX_DATA, b.callback_data


def _lobby(locale: str, editing: bool = False, settings: LobbySettings | None = None):
    inp = LobbyScreenInput(TABLE_ID, "Ann <b>", settings or LobbySettings(), SEATED, editing)
    return lobby_screen(inp, translator(locale))


@pytest.mark.parametrize("locale", LOCALES)
def test_the_lobby_lists_the_seats_and_the_settings(locale: str) -> None:
    t = translator(locale)
    screen = _lobby(locale)
    _check_limits(screen)
    lines = screen.text.splitlines()
    assert "Ann &lt;b&gt;" in lines[0]   # names are escaped
    assert t("lobby.seats", n=3, seats=4) in lines
    assert lines[lines.index(t("lobby.seats", n=3, seats=4)) + 1:][:3] == [
        "1. Ann &lt;b&gt;", f"2. {computer_name(1, 'hard', t)}", "3. Bob"]
    assert t(f"variant.{Variant.THROW_IN}") in lines[1]
    *rows, bell = screen.keyboard   # the last row: /notify's 🔔, for the next lobby here
    taps = [b for row in rows for b in row]
    verbs = [LobbyTapCallback.unpack(b.callback_data).verb for b in taps]
    assert verbs == [LobbyVerb.JOIN, LobbyVerb.LEAVE, *[LobbyVerb.COMPUTER] * 3,
                     LobbyVerb.SETTINGS, LobbyVerb.START, LobbyVerb.CANCEL]
    assert all(LobbyTapCallback.unpack(b.callback_data).table == TABLE_ID for b in taps)
    assert [b.callback_data for b in bell] == [NotifyTap(NotifyVerb.ON).pack()]


@pytest.mark.parametrize("locale", LOCALES)
def test_the_settings_offer_every_option_and_the_seats(locale: str) -> None:
    transfer = LobbySettings(TableOptions(variant=Variant.TRANSFER), 5)
    screen = _lobby(locale, editing=True, settings=transfer)
    _check_limits(screen)
    data = [b.callback_data for b in _buttons(screen)]
    fields = {LobbyOptionCallback.unpack(d).field for d in data if d.startswith("go:")}
    assert len(fields) == 7   # show-trump too: this is the transfer game
    seats = [(LobbyTapCallback.unpack(d).value, b.text) for d, b in zip(data, _buttons(screen),
                                                                 strict=True)
             if d.startswith("g:") and LobbyTapCallback.unpack(d).verb == LobbyVerb.SEATS]
    assert [v for v, _ in seats] == ["2", "3", "4", "5", "6"]
    assert [v for v, text in seats if text.startswith("✅")] == ["5"]
    throw_in = _lobby(locale, editing=True)
    assert len({LobbyOptionCallback.unpack(b.callback_data).field for b in _buttons(throw_in)
                if b.callback_data.startswith("go:")}) == 6
    small = _lobby(locale, editing=True, settings=LobbySettings(TableOptions(deck=24), 4))
    assert [LobbyTapCallback.unpack(b.callback_data).value for b in _buttons(small)
            if b.callback_data.startswith("g:")
            and LobbyTapCallback.unpack(b.callback_data).verb == LobbyVerb.SEATS] == ["2", "3", "4"]


@pytest.mark.parametrize("locale", LOCALES)
def test_closed_lobbies_and_private_notes_say_so(locale: str) -> None:
    t = translator(locale)
    for reason in ("expired", "cancelled"):
        screen = lobby_closed_screen(reason, t)
        assert screen.text == t(f"lobby.{reason}") and screen.keyboard is None
    assert private_note_screen("lobby.waiting", t).text == t("lobby.waiting")


def _positions(seed: int) -> Iterator[tuple[Game, History]]:
    rng = random.Random(seed)
    game, history, now = Game.new(Rules(players=4), seed), History(), 0.0
    while not game.is_over:
        movers = game.acting_seats
        if not movers or rng.random() < 0.05:
            now = game.next_deadline
            history.note(game.advance(now))
        else:
            seat = rng.choice(movers)
            history.note(game.apply(seat, rng.choice(game.legal_actions(seat)), now))
        yield game, history


def _group(game: Game, history: History, locale: str, closed: bool = False):
    seats = tuple(SeatInfo(name, not name, "normal") for name in ("Ann", "", "Bob", "Cat"))
    inp = GroupScreenInput(TABLE_ID, PublicTable.of(game.view(0)), seats,
                           history.played_by(game.table), tuple(history.recent),
                           now=(game.next_deadline or 0.0) - 1, closed=closed)
    return group_screen(inp, translator(locale))


def test_the_public_table_holds_no_hand() -> None:
    names = {f.name for f in dataclasses.fields(PublicTable)}
    # `known` stays: the cards everyone saw go into a hand are public (R11.1), the same for
    # every seat, as the equality below shows.
    assert not names & {"hand", "discarded", "seat", "unseen"}
    game = Game.new(Rules(players=3), 5)
    assert PublicTable.of(game.view(0)) == PublicTable.of(game.view(2))


@pytest.mark.parametrize("seed", range(4))
def test_the_public_table_never_shows_a_hidden_card(seed: int) -> None:
    """After every change of a whole game, in every language: no card that sits in a hand
    without being known to all (R11.1) appears; the message fits Telegram."""
    for game, history in _positions(seed):
        hidden = {c for s in range(game.rules.players) for c in game.hand(s)} - {
            c for known in game.view(0).known for c in known}
        for locale in LOCALES:
            t = translator(locale)
            screen = _group(game, history, locale, closed=game.is_over)
            _check_limits(screen)
            shown = [card_label(c, t) for c in hidden if card_label(c, t) in screen.text]
            assert not shown, (shown, screen.text)


def test_the_public_table_names_roles_who_played_what_and_the_last_moves() -> None:
    t = translator("en")
    game, history = next((g, h) for g, h in _positions(11) if len(g.table) >= 2
                         and any(d for _, d in g.table) and g.phase == "defend")
    text = _group(game, history, "en").text
    names = ("Ann", computer_name(1, None, t), "Bob", "Cat")
    defender = names[game.defender]
    assert f"<b>{defender}</b> · " in text and t("role.defending") in text
    assert f"<b>{t('group.turn.defends', name=defender)}</b> ⏳" in text
    for (attack, _), by in zip(game.table, history.played_by(game.table), strict=True):
        line = next(line for line in text.splitlines() if line.startswith(card_label(attack, t)))
        if by is not None:
            assert line.endswith(f"<i>{names[by]}</i>")
    assert sum(line.startswith("<i>") for line in text.splitlines()) == len(history.recent)
    assert _buttons(_group(game, history, "en")) == []


@pytest.mark.parametrize("locale", LOCALES)
def test_the_end_names_the_durak_and_the_places_and_offers_rematch(locale: str) -> None:
    """As the private result reads: the places of the safe seats, then the durak named; no seat
    line shows a part in a round that is over."""
    t = translator(locale)
    *_, (game, history) = _positions(3)
    assert game.durak is not None
    screen = _group(game, history, locale, closed=True)
    names = ("Ann", computer_name(1, None, t), "Bob", "Cat")
    places = ", ".join(f"{i}. {names[s]}" for i, s in enumerate(game.finished_order, 1))
    durak = t("over.durak_named", name=names[game.durak])
    assert screen.text.splitlines()[-2:] == [
        t("over.durak", name=names[game.durak]), f"{t('over.places', places=places)} — {durak}"]
    seat_lines = screen.text.splitlines()[1:5]
    assert seat_lines[game.durak] == f"<b>{names[game.durak]}</b> · " + t.plural(
        "game.cards", len(game.hand(game.durak)), n=len(game.hand(game.durak)))
    in_round = ("taking", "defending", "leading", "passed", "throwing", "away")
    assert not [line for line in seat_lines for role in in_round if t(f"role.{role}") in line]
    (rematch,) = _buttons(screen)
    assert LobbyTapCallback.unpack(rematch.callback_data) == LobbyTapCallback(table=TABLE_ID,
                                                              verb=LobbyVerb.REMATCH)


def test_a_draw_and_a_table_closed_for_people_say_so_on_the_group() -> None:
    t = translator("en")
    seats = tuple(SeatInfo(name, not name, "normal") for name in ("Ann", "", "Bob"))

    def end(game: Game) -> list[str]:
        inp = GroupScreenInput(TABLE_ID, PublicTable.of(game.view(0)), seats, (), (), now=1.0,
                               closed=True)
        return group_screen(inp, t).text.splitlines()

    drawn = Game.from_deal(Rules(players=2), [["6h"], ["7h"]], [], trump="c", first_attacker=0)
    drawn.apply(0, Action("attack", Card.parse("6h")), 1.0)
    drawn.apply(1, Action("defend", Card.parse("7h"), 0), 1.0)
    drawn.advance(drawn.next_deadline)
    assert drawn.is_over and drawn.durak is None
    assert end(drawn)[-2:] == ["<b>A draw:</b> nobody is the durak.",
                               "Places: 1. Ann, 2. 🤖 Computer 1 (Normal)"]
    # Ann is out and the computers fight on: the group is told the game is over for people.
    running = Game.from_deal(Rules(players=3), [["As"], ["6h", "7h"], ["6d", "7d"]], [],
                             trump="c", first_attacker=0)
    running.apply(0, Action("attack", Card.parse("As")), 1.0)
    assert not running.is_over
    assert end(running)[-2:] == [t("group.over.people_out"), "Places: 1. Ann"]
    assert "<b>🤖 Computer 1 (Normal)</b> · 2 cards" in end(running)


@pytest.mark.parametrize(("players", "taking", "window"), [
    (2, "Ann берёт; 🤖 Компьютер 1 (Средний) может подкинуть ещё",
     "Всё побито: 🤖 Компьютер 1 (Средний) может подкинуть"),
    (3, "Ann берёт; остальные могут подкинуть ещё", "Всё побито: остальные могут подкинуть"),
])
def test_the_group_names_the_one_thrower_and_says_the_others_of_more(
        players: int, taking: str, window: str) -> None:
    deal = [["9s", "Jd"], *[["7h", "8d"]] * (players - 2), ["7s", "8s"]]   # the last leads to Ann
    for last, line in ((Action("take"), taking), (Action("defend", Card.parse("9s"), 0), window)):
        game = Game.from_deal(Rules(players=players), deal, ["Ac"], first_attacker=players - 1)
        game.apply(players - 1, Action("attack", Card.parse("7s")), 1.0)
        game.apply(0, last, 2.0)
        assert f"<b>{line}</b>" in _group(game, History(game.table), "ru").text
