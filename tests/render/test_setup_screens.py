"""The setup, its options and /rules in every language: within Telegram's limits, on a phone,
showing the current values, offering every option the engine has and nothing else."""

from __future__ import annotations

from itertools import product

import pytest

from engine import Variant
from tg_durak.i18n.translate import LOCALES, translator
from tg_durak.play.options import (
    CHOICES,
    MAX_OPPONENTS,
    OptionField,
    PlaySettings,
    TableOptions,
    with_option,
)
from tg_durak.render.callbacks import RuleBook, SetupField
from tg_durak.render.menus import options_screen, rules_screen, setup_screen
from tg_durak.render.options import MORE_OPTIONS, options_rows, options_summary
from tg_durak.render.screen import Keyboard
from tg_durak.telegram.callbacks import SetupCallback, SetupOptionCallback

MAX_TEXT = 4096
MAX_DATA = 64
MAX_ROW_BUTTONS = 8
# A phone shows about this many characters across one row of buttons without cutting them.
MAX_ROW_CHARACTERS = 36

EVERY_SETUP = [
    PlaySettings(TableOptions(variant=variant, deck=deck, turn_seconds=turn, throw_in=throw_in,
                              first_round_five=switch, draws=not switch,
                              show_trump=switch and variant == Variant.TRANSFER), bots=bots)
    for variant, deck, turn, throw_in, switch, bots in product(
        CHOICES[OptionField.VARIANT], CHOICES[OptionField.DECK], CHOICES[OptionField.TURN],
        CHOICES[OptionField.THROW_IN], (False, True), (1, 3))
]


def _buttons(markup: Keyboard) -> list:
    return [b for row in markup for b in row]


def _check_limits(screen) -> None:
    assert 0 < len(screen.text.encode("utf-16-le")) // 2 <= MAX_TEXT
    for row in screen.keyboard:
        assert 1 <= len(row) <= MAX_ROW_BUTTONS
        assert sum(len(b.text) for b in row) <= MAX_ROW_CHARACTERS, [b.text for b in row]
    for b in _buttons(screen.keyboard):
        assert 1 <= len(b.callback_data.encode()) <= MAX_DATA, b.callback_data


@pytest.mark.parametrize("locale", LOCALES)
def test_setup_screens_fit_telegram_and_a_phone(locale: str) -> None:
    t = translator(locale)
    for settings in EVERY_SETUP:
        _check_limits(setup_screen(settings, t))
        _check_limits(options_screen(settings, t))
    _check_limits(rules_screen(t))


@pytest.mark.parametrize("locale", LOCALES)
def test_the_setup_is_short_and_more_options_has_the_rest(locale: str) -> None:
    t = translator(locale)
    main = setup_screen(PlaySettings(), t)
    main_data = [b.callback_data for b in _buttons(main.keyboard)]
    assert [SetupOptionCallback.unpack(d).field
            for d in main_data if d.startswith("s:variant")] == [
        OptionField.VARIANT] * 2
    assert {SetupCallback(field=SetupField.MORE).pack(),
            SetupCallback(field=SetupField.START).pack()} <= set(
        main_data)
    assert len(main.keyboard) == 4
    assert all(SetupCallback(field=SetupField.BOTS, value=str(n)).pack() in main_data
               for n in range(1, MAX_OPPONENTS + 1))

    transfer = PlaySettings(TableOptions(variant=Variant.TRANSFER))
    more = [b.callback_data for b in _buttons(options_screen(transfer, t).keyboard)]
    fields = {SetupOptionCallback.unpack(d).field
              for d in more if not d.startswith(("s:back", "s:start"))}
    assert fields == set(MORE_OPTIONS) == set(OptionField) - {OptionField.VARIANT}
    assert SetupCallback(field=SetupField.BACK).pack() in more


@pytest.mark.parametrize("locale", LOCALES)
def test_show_trump_is_offered_only_in_the_transfer_game(locale: str) -> None:
    t = translator(locale)
    for settings in EVERY_SETUP:
        data = [b.callback_data for b in _buttons(options_screen(settings, t).keyboard)]
        offered = any(d.startswith("s:show_trump") for d in data)
        assert offered is (settings.options.variant == Variant.TRANSFER)


def _marked(markup: Keyboard) -> set[str]:
    return {b.callback_data for b in _buttons(markup) if b.text.startswith("✅")}


def test_the_current_choices_are_marked_and_switches_offer_their_opposite() -> None:
    t = translator("en")
    settings = PlaySettings(TableOptions(variant=Variant.TRANSFER, deck=24, turn_seconds=15,
                                         throw_in="neighbours", draws=False, show_trump=True),
                            bots=3, level="hard")
    assert _marked(setup_screen(settings, t).keyboard) == {
        "s:variant:transfer", "s:bots:3", "s:level:hard"}
    assert _marked(options_screen(settings, t).keyboard) == {
        "s:deck:24", "s:turn_seconds:15", "s:throw_in:neighbours", "s:show_trump:0"}
    switches = [b for b in _buttons(options_screen(settings, t).keyboard)
                if b.callback_data.startswith(("s:first_round_five", "s:draws"))]
    assert [(b.text, b.callback_data) for b in switches] == [
        ("⬜ First round: up to 5 cards", "s:first_round_five:1"),
        ("⬜ Draws allowed", "s:draws:1"),
    ]


@pytest.mark.parametrize("locale", LOCALES)
def test_every_button_value_is_one_with_option_takes(locale: str) -> None:
    t = translator(locale)
    for settings in EVERY_SETUP:
        for b in _buttons(options_screen(settings, t).keyboard):
            if b.callback_data.startswith(("s:back", "s:start")):
                continue
            data = SetupOptionCallback.unpack(b.callback_data)
            assert with_option(settings.options, data.field, data.value) is not None, data


def test_the_texts_show_the_current_values() -> None:
    t = translator("en")
    settings = PlaySettings(TableOptions(deck=24, turn_seconds=15, throw_in="neighbours"),
                            bots=3, level="easy")
    summary = "Throw-in · 24 cards · 15 s per turn · only neighbours throw in"
    assert setup_screen(settings, t).text.splitlines()[1:3] == [
        summary, "Opponents: 3 · Strength: Easy"]
    assert options_screen(settings, t).text.splitlines()[1] == summary
    switched = TableOptions(variant=Variant.TRANSFER, first_round_five=True, draws=False,
                            show_trump=True)
    assert options_summary(switched, t) == (
        "Transfer · 36 cards · 30 s per turn · everyone throws in · first round: up to 5 cards"
        " · no draws · transfer by showing a trump")


@pytest.mark.parametrize("locale", LOCALES)
def test_summaries_read_in_every_language(locale: str) -> None:
    t = translator(locale)
    for settings in EVERY_SETUP:
        line = options_summary(settings.options, t)
        assert "\n" not in line and "{" not in line
        assert str(settings.options.deck) in line and str(settings.options.turn_seconds) in line
    if locale != "en":
        assert options_summary(TableOptions(), t) != options_summary(TableOptions(),
                                                                     translator("en"))


def test_the_rows_are_built_with_the_callers_callback_data() -> None:
    """What the group lobby relies on: its own callback data, the same rows."""
    seen = []

    def lobby(field: OptionField, value: str) -> SetupOptionCallback:
        seen.append((field, value))
        return SetupOptionCallback(field=field, value=value)

    rows = options_rows(TableOptions(), translator("en"), lobby)
    assert [len(row) for row in rows] == [2, 3, 4, 2, 1, 1], "no show-trump in the throw-in game"
    assert (OptionField.VARIANT, "transfer") in seen and (OptionField.DRAWS, "0") in seen


def test_rules_offer_the_options_book() -> None:
    data = [b.callback_data for b in _buttons(rules_screen(translator("en")).keyboard)]
    assert data == [f"u:rules:{book}" for book in RuleBook]
