"""/rules names the options a player can set in /play, with their values, and no others."""

from __future__ import annotations

import re

import pytest

from tg_durak.i18n.translate import LOCALES, translator
from tg_durak.play.options import CHOICES, OptionField
from tg_durak.render.callbacks import RuleBook

RULE_TEXTS = ["rules.short", *(f"rules.{book}.full" for book in RuleBook)]
# Who "may change some settings" in a private game? Nobody but the player, in /play.
HOST = {"en": r"\bhost\b", "ru": r"создател\w* стола", "uk": r"господар\w* столу",
        "pl": r"gospodarz\w* stołu"}
# One register per language (GLOSSARY.md): ты / ти, never вы / ви.
FORMAL = {"ru": r"(?i)(?<!\w)(вы|вас|вам|вами|ваш\w*|\w+(ьте|йте|ите)(сь)?)(?!\w)",
          "uk": r"(?i)(?<!\w)(ви|вас|вам|вами|ваш\w*|\w+(ьте|йте)(ся)?)(?!\w)"}


@pytest.mark.parametrize("locale", LOCALES)
def test_the_options_book_gives_every_option_its_values(locale: str) -> None:
    text = translator(locale)("rules.options.full")
    for field in (OptionField.DECK, OptionField.TURN):
        for value in CHOICES[field]:
            assert re.search(rf"\b{value}\b", text), (field, value)
    assert "/play" in text
    # deck, turn, who throws in, first round, draws, show trump: one bullet each
    assert text.count("•") == len(OptionField) - 1


@pytest.mark.parametrize("locale", LOCALES)
def test_the_short_rules_point_to_the_options(locale: str) -> None:
    text = translator(locale)("rules.short")
    assert "/play" in text and re.search(r"\b24\b", text) and re.search(r"\b52\b", text)


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("key", RULE_TEXTS)
def test_no_rules_text_speaks_of_a_host(locale: str, key: str) -> None:
    assert not re.search(HOST[locale], translator(locale)(key)), key


@pytest.mark.parametrize("locale", sorted(FORMAL))
@pytest.mark.parametrize("key", RULE_TEXTS)
def test_rules_say_ty(locale: str, key: str) -> None:
    assert re.findall(FORMAL[locale], translator(locale)(key)) == []
