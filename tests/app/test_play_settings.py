"""Table options and the private setup: validated, saved and loaded, forged values refused."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import Game, Rules, ThrowIn, Variant
from tg_durak.play.options import (
    CHOICES,
    LEVELS,
    MAX_OPPONENTS,
    OptionField,
    PlaySettings,
    TableOptions,
    encode,
    with_option,
)

TRANSFER = TableOptions(variant=Variant.TRANSFER)


@st.composite
def table_options(draw) -> TableOptions:
    variant = draw(st.sampled_from(tuple(Variant)))
    values = {field.value: draw(st.sampled_from(CHOICES[field]))
              for field in OptionField if field is not OptionField.VARIANT}
    if variant != Variant.TRANSFER:
        values["show_trump"] = False
    return TableOptions(variant=variant, **values)


@st.composite
def play_settings(draw) -> PlaySettings:
    options = draw(table_options())
    bots = draw(st.integers(1, options.max_players - 1))
    return PlaySettings(options, bots, draw(st.sampled_from(LEVELS)))


@given(play_settings())
def test_settings_survive_the_json_round_trip(settings: PlaySettings) -> None:
    saved = json.loads(json.dumps(settings.to_dict()))
    assert PlaySettings.from_dict(saved) == settings
    assert TableOptions.from_dict(saved) == settings.options


@given(play_settings())
def test_every_setup_makes_valid_engine_rules(settings: PlaySettings) -> None:
    rules = settings.to_rules()
    o = settings.options
    assert (rules.variant, rules.players, rules.deck, rules.throw_in, rules.show_trump) == (
        o.variant, settings.bots + 1, o.deck, o.throw_in, o.show_trump)
    assert rules.turn_seconds == o.turn_seconds
    assert rules.first_round_limit == (5 if o.first_round_five else 6)
    assert rules.no_draws is (not o.draws)
    Game.new(rules, seed=1, now=0.0)   # the engine deals such a table


def test_defaults_are_the_engines() -> None:
    rules = TableOptions().to_rules(players=2)
    assert rules == Rules(players=2)


def test_timers_scale_with_the_time_scale() -> None:
    rules = TableOptions(turn_seconds=15).to_rules(players=3, time_scale=0.1)
    assert rules.turn_seconds == pytest.approx(1.5)
    assert rules.throw_in_seconds == pytest.approx(Rules().throw_in_seconds * 0.1)


def test_settings_saved_before_the_options_existed_still_load() -> None:
    old = {"variant": "transfer", "bots": 4, "level": "hard"}
    assert PlaySettings.from_dict(old) == PlaySettings(TRANSFER, bots=4, level="hard")


@pytest.mark.parametrize("saved", [
    None, {}, [], "throw-in", {"variant": "poker", "bots": 0, "level": "godlike"},
    {"deck": "24", "turn_seconds": 31, "throw_in": "nobody", "draws": 0, "show_trump": 1,
     "first_round_five": "yes", "bots": True},
    {"deck": 36.0, "turn_seconds": True, "draws": None, "bots": 2.0, "level": ["hard"]},
])
def test_garbage_falls_back_to_the_defaults(saved: object) -> None:
    assert PlaySettings.from_dict(saved) == PlaySettings()


def test_readable_values_are_kept_next_to_garbage() -> None:
    loaded = PlaySettings.from_dict({"deck": 52, "turn_seconds": "fast", "bots": 2, "level": 7})
    assert loaded == PlaySettings(TableOptions(deck=52), bots=2)


def test_saved_show_trump_outside_the_transfer_game_is_dropped() -> None:
    loaded = TableOptions.from_dict({"variant": "throw-in", "show_trump": True, "deck": 52})
    assert loaded == TableOptions(deck=52)


def test_saved_24_cards_with_too_many_opponents_keep_the_deck() -> None:
    loaded = PlaySettings.from_dict({"deck": 24, "bots": 5})
    assert (loaded.options.deck, loaded.bots) == (24, 3)


@pytest.mark.parametrize("field, text, attribute, value", [
    (OptionField.VARIANT, "transfer", "variant", Variant.TRANSFER),
    (OptionField.DECK, "24", "deck", 24),
    (OptionField.DECK, "52", "deck", 52),
    (OptionField.TURN, "15", "turn_seconds", 15),
    (OptionField.TURN, "120", "turn_seconds", 120),
    (OptionField.THROW_IN, "neighbours", "throw_in", ThrowIn.NEIGHBOURS),
    (OptionField.FIRST_ROUND, "1", "first_round_five", True),
    (OptionField.DRAWS, "0", "draws", False),
])
def test_a_button_sets_its_option(field: OptionField, text: str, attribute: str,
                                  value: object) -> None:
    changed = with_option(TableOptions(), field, text)
    assert changed is not None and getattr(changed, attribute) == value
    others = {f.value for f in OptionField} - {attribute}
    assert all(getattr(changed, f) == getattr(TableOptions(), f) for f in others)


@pytest.mark.parametrize("field, text", [
    (OptionField.VARIANT, "poker"), (OptionField.VARIANT, "Transfer"),
    (OptionField.DECK, "25"), (OptionField.DECK, "036"), (OptionField.DECK, ""),
    (OptionField.TURN, "31"), (OptionField.TURN, "15.0"), (OptionField.TURN, "-15"),
    (OptionField.THROW_IN, "nobody"), (OptionField.FIRST_ROUND, "2"),
    (OptionField.FIRST_ROUND, "True"), (OptionField.DRAWS, "yes"),
    (OptionField.SHOW_TRUMP, "1"),   # a real value, but not in the throw-in game
])
def test_forged_values_are_refused(field: OptionField, text: str) -> None:
    assert with_option(TableOptions(), field, text) is None
    assert PlaySettings().with_option(field, text) is None


def test_show_trump_only_in_the_transfer_game() -> None:
    shown = with_option(TRANSFER, OptionField.SHOW_TRUMP, "1")
    assert shown is not None and shown.show_trump
    assert shown.to_rules(players=2).show_trump
    back = with_option(shown, OptionField.VARIANT, "throw-in")
    assert back == TableOptions(), "leaving the transfer game turns show-trump off"
    with pytest.raises(ValueError, match="transfer"):
        TableOptions(show_trump=True)


@pytest.mark.parametrize("bad", [
    {"deck": 25}, {"turn_seconds": 31}, {"throw_in": "nobody"}, {"variant": "poker"},
    {"draws": 1}, {"first_round_five": 0}, {"deck": True},
])
def test_options_are_validated(bad: dict) -> None:
    with pytest.raises(ValueError):
        TableOptions(**bad)


@pytest.mark.parametrize("bots", [0, MAX_OPPONENTS + 1, True])
def test_opponents_are_validated(bots: object) -> None:
    with pytest.raises(ValueError):
        PlaySettings(bots=bots)


def test_24_cards_seat_at_most_4() -> None:
    assert TableOptions(deck=24).max_players == 4
    assert TableOptions(deck=36).max_players == TableOptions(deck=52).max_players == 6
    with pytest.raises(ValueError):
        PlaySettings(TableOptions(deck=24), bots=4)
    with pytest.raises(ValueError):
        TableOptions(deck=24).to_rules(players=5)


def test_choosing_24_cards_leaves_at_most_3_opponents() -> None:
    five = PlaySettings(bots=5, level="hard")
    small = five.with_option(OptionField.DECK, "24")
    assert small == PlaySettings(TableOptions(deck=24), bots=3, level="hard")
    two = PlaySettings(bots=2).with_option(OptionField.DECK, "24")
    assert two is not None and two.bots == 2, "fewer opponents are left alone"


def test_choosing_more_opponents_brings_back_the_36_card_deck() -> None:
    small = PlaySettings(TableOptions(deck=24, turn_seconds=15), bots=3)
    assert small.with_bots(4) == PlaySettings(TableOptions(turn_seconds=15), bots=4)
    assert small.with_bots(2).options.deck == 24
    big = PlaySettings(TableOptions(deck=52), bots=1)
    assert big.with_bots(5).options.deck == 52


def test_button_values_are_what_with_option_reads() -> None:
    for field, choices in CHOICES.items():
        base = TRANSFER
        for value in choices:
            changed = with_option(base, field, encode(value))
            assert changed is not None and getattr(changed, field) == value, (field, value)


def test_a_slower_table_gives_a_longer_throw_in_window() -> None:
    """docs/rules.md's note on timers: 8 s at the usual turns, in proportion above them."""
    windows = {turn: TableOptions(turn_seconds=turn).to_rules(2).throw_in_seconds
               for turn in (15, 30, 60, 120)}
    assert windows == {15: 8.0, 30: 8.0, 60: 16.0, 120: 32.0}
    assert TableOptions(turn_seconds=120).to_rules(2, time_scale=0.5).throw_in_seconds == 16.0
