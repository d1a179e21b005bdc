"""The catalogs: complete in every language, well formed, plural rules right, compiled."""

import re
import shutil
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog

from tg_durak.i18n.catalog import (
    MAX_TEXT_LENGTH,
    check_compiled,
    check_headers,
    check_keys,
    check_texts,
    compile_catalogs,
    po_path,
    read_catalogs,
)
from tg_durak.i18n.translate import LOCALES, LOCALES_DIR, translator
from tg_durak.telegram.middlewares import make_i18n


@pytest.fixture(scope="module")
def catalogs() -> dict[str, Catalog]:
    return read_catalogs()


def test_plural_forms_headers_match_cldr(catalogs):
    assert check_headers(catalogs) == []


def test_every_locale_has_exactly_the_english_keys(catalogs):
    assert check_keys(catalogs) == []


def test_texts_are_complete_with_the_same_placeholders_and_valid_html(catalogs):
    assert check_texts(catalogs) == []


def test_compiled_catalogs_are_in_sync_with_the_po_files(catalogs):
    assert check_compiled(catalogs) == []


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("key", ["rules.throw_in.full", "rules.transfer.full", "rules.short"])
def test_rules_fit_one_telegram_message_and_state_the_timers(catalogs, locale, key):
    text = catalogs[locale][key].string
    assert len(text.encode("utf-16-le")) // 2 <= MAX_TEXT_LENGTH
    # R10: 8 s throw-in window, 30 s per turn
    assert re.search(r"\b8 s\b|\b8 с\b", text) and re.search(r"\b30 s\b|\b30 с\b", text)


COUNTS = (1, 2, 5, 11, 21, 22, 25, 111)
CARD_WORDS = {
    "en": "card cards cards cards cards cards cards cards",
    "ru": "карта карты карт карт карта карты карт карт",
    "uk": "карта карти карт карт карта карти карт карт",
    "pl": "karta karty kart kart kart karty kart kart",
}


def _cards(locale: str) -> list[str]:
    return [f"{n} {word}" for n, word in zip(COUNTS, CARD_WORDS[locale].split(), strict=True)]


@pytest.mark.parametrize("locale", LOCALES)
def test_plural_forms_of_game_cards(locale):
    t = translator(locale)
    assert [t.plural("game.cards", n, n=n) for n in COUNTS] == _cards(locale)


@pytest.mark.parametrize("locale", LOCALES)
def test_plural_forms_through_aiogram(locale):
    i18n = make_i18n()
    shown = [i18n.gettext("game.cards", "game.cards.plural", n, locale).format(n=n) for n in COUNTS]
    assert shown == _cards(locale)


# --- the checks themselves catch what they are for ---------------------------------------


def _catalog(locale: str, messages: dict, plural_forms: str | None = None) -> Catalog:
    catalog = Catalog(locale=locale)
    if plural_forms:
        catalog.mime_headers = [("Plural-Forms", plural_forms)]
    for key, text in messages.items():
        catalog.add(key, text)
    return catalog


def test_checks_report_broken_catalogs():
    cards = ("game.cards", "game.cards.plural")
    catalogs = {
        "en": _catalog(
            "en", {"lang.set": "Language: {language}", cards: ("{n} card", "{n} cards")}
        ),
        "ru": _catalog("ru", {cards: ("{n} карта", "{count} карты", "")}),
        "uk": _catalog(
            "uk", {"lang.set": "<i>Мова: {language}", cards: ("a", "b", "c"), "extra.key": "x"}
        ),
        "pl": _catalog("pl", {"lang.set": "Język: {language}", "game.cards": "{n} kart"}),
    }
    catalogs["uk"]["lang.set"].flags.add("fuzzy")

    assert check_keys(catalogs) == [
        "ru: missing lang.set",
        "uk: extra.key is not in en.po",
        "pl: game.cards must be a plural message",
    ]
    problems = check_texts(catalogs)
    assert "ru: game.cards[1]: placeholders ['count'], en has ['n']" in problems
    assert "ru: game.cards[2]: empty" in problems
    assert "uk: lang.set is fuzzy" in problems
    assert "uk: lang.set: <i> is never closed" in problems
    assert "uk: game.cards[0]: placeholders [], en has ['n']" in problems


def test_header_check_catches_a_wrong_plural_rule():
    russian_rule = (
        "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : "
        "n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);"
    )
    catalogs = {
        "ru": _catalog("ru", {}, "nplurals=2; plural=(n != 1);"),
        "pl": _catalog("pl", {}, russian_rule),  # Polish says "21 kart", not "21 karta"
        "uk": _catalog("uk", {}, russian_rule),
    }
    assert check_headers(catalogs) == [
        "ru: nplurals=2, expected 3",
        "pl: Plural-Forms picks the wrong form for n=[21, 31, 41, 51, 61]",
    ]


def test_sync_check_catches_an_uncompiled_edit_and_compile_fixes_it(tmp_path: Path):
    root = tmp_path / "locales"
    shutil.copytree(LOCALES_DIR, root)
    po = po_path("uk", root)
    po.write_text(
        po.read_text(encoding="utf-8").replace("Обери мову:", "Вибери мову:"), encoding="utf-8"
    )

    assert check_compiled(read_catalogs(root), root) == [
        "uk: messages.mo is out of date; run: python -m tg_durak.i18n.catalog compile"
    ]
    compile_catalogs(root)
    assert check_compiled(read_catalogs(root), root) == []
