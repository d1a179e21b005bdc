"""The catalogs say the game's words the way GLOSSARY.md does, one word per thing per language."""

from __future__ import annotations

import re

import pytest
from babel.messages.catalog import Catalog

from tg_durak.i18n.catalog import forms_of, key_of, read_catalogs

# GLOSSARY.md, "Buttons and calls" and the names of the two games.
WORDS = {
    "btn.take": {"en": "Take", "ru": "Беру", "uk": "Беру", "pl": "Biorę"},
    "btn.pass": {"en": "Pass", "ru": "Пас", "uk": "Пас", "pl": "Pas"},
    "btn.transfer": {"en": "Transfer", "ru": "Перевести", "uk": "Перевести", "pl": "Przekaż"},
    "variant.throw-in": {"en": "Throw-in", "ru": "Подкидной", "uk": "Підкидний",
                         "pl": "Dorzucany"},
    "variant.transfer": {"en": "Transfer", "ru": "Переводной", "uk": "Перевідний",
                         "pl": "Przekazywany"},
}
# Trump, stock and discard in the game's header line.
HEADER = {
    "en": ("Trump", "Stock", "Discard"),
    "ru": ("Козырь", "Колода", "Отбой"),
    "uk": ("Козир", "Колода", "Відбій"),
    "pl": ("Atut", "Talia", "Odrzucone"),
}
# The other verb for "throw in" that each language has, and that we do not use: Polish players
# read dorzucać (dorzucany, dorzucanie), Russians подкидывать, Ukrainians підкидати.
NOT_OUR_WORD = {
    "ru": r"подбр[ао]с",
    "uk": r"докид|докин",
    "pl": r"podrzuc",
}


@pytest.fixture(scope="module")
def catalogs() -> dict[str, Catalog]:
    return read_catalogs()


@pytest.mark.parametrize("key", sorted(WORDS))
def test_buttons_and_game_names_use_the_glossarys_words(catalogs, key: str) -> None:
    assert {locale: catalogs[locale][key].string for locale in WORDS[key]} == WORDS[key]


@pytest.mark.parametrize("locale", sorted(HEADER))
def test_the_header_names_trump_stock_and_discard_as_the_glossary_does(catalogs, locale):
    words = re.sub(r"\{\w+\}", "", catalogs[locale]["game.header"].string)
    assert re.findall(r"[^\W\d_]+", words) == list(HEADER[locale])


@pytest.mark.parametrize("locale", sorted(NOT_OUR_WORD))
def test_throwing_in_has_one_verb_per_language(catalogs, locale: str) -> None:
    found = [
        key_of(message)
        for message in catalogs[locale]
        if message.id
        for text in forms_of(message)
        if re.search(NOT_OUR_WORD[locale], text, re.IGNORECASE)
    ]
    assert found == []


def test_the_check_would_see_the_other_polish_verb() -> None:
    assert re.search(NOT_OUR_WORD["pl"], "Z podrzucaniem", re.IGNORECASE)
    assert not re.search(NOT_OUR_WORD["pl"], "Dorzucany albo przekazywany", re.IGNORECASE)


def test_polish_declines_durak_as_players_do(catalogs) -> None:
    """Dureń loses its e when declined: durnia, durniem (never "dureniem")."""
    found = [key_of(m) for m in catalogs["pl"] if m.id
             for text in forms_of(m) if re.search(r"dureni", text, re.IGNORECASE)]
    assert found == []
