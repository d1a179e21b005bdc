"""Picking a locale, the pure Translator and the aiogram I18n built over the same catalogs."""

import re

import pytest
from aiogram.utils.i18n import gettext as _
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo

from tg_durak.i18n.catalog import forms_of, key_of, read_catalogs
from tg_durak.i18n.translate import (
    DEFAULT_LOCALE,
    LANGUAGE_NAMES,
    LOCALES,
    MissingKeyError,
    load_catalogs,
    pick_locale,
    translator,
)
from tg_durak.telegram.middlewares import make_i18n


@pytest.mark.parametrize(
    ("language_code", "locale"),
    [
        ("ru-RU", "ru"),
        ("uk", "uk"),
        ("pl_PL", "pl"),
        ("EN-us", "en"),
        ("be", "ru"),
        ("kk", "ru"),
        ("de", "en"),
        ("pt-BR", "en"),
        ("", "en"),
        (None, "en"),
    ],
)
def test_pick_locale(language_code, locale):
    assert pick_locale(language_code) == locale


def test_every_locale_has_its_own_name():
    assert tuple(LANGUAGE_NAMES) == LOCALES
    assert LANGUAGE_NAMES["uk"] == "Українська"


@pytest.mark.parametrize("locale", LOCALES)
def test_translator_speaks_its_locale(locale):
    t = translator(locale)
    assert t.locale == locale
    assert t is translator(locale)
    for message in read_catalogs()[locale]:
        if message.id and not message.pluralizable:
            text = forms_of(message)[0]
            values = {name: f"<{name}>" for name in re.findall(r"\{(\w+)\}", text)}
            assert t(key_of(message), **values) == text.format(**values)


def test_languages_differ():
    texts = {translator(locale)("lang.choose") for locale in LOCALES}
    assert len(texts) == len(LOCALES)
    assert translator("uk")("lang.set", language="Українська") == "✅ Мова інтерфейсу: Українська"


def test_a_missing_key_raises():
    t = translator("ru")
    with pytest.raises(MissingKeyError):
        t("lang.chose")
    with pytest.raises(KeyError):
        t.plural("game.card", 2, n=2)


def test_a_missing_placeholder_raises():
    with pytest.raises(KeyError, match="language"):
        translator("pl")("lang.set")


def test_an_unsupported_locale_is_refused():
    with pytest.raises(ValueError, match="de"):
        translator("de")


def test_aiogram_i18n_uses_the_catalogs_and_raises_on_a_missing_key():
    i18n = make_i18n()
    assert set(i18n.available_locales) == set(LOCALES)
    assert i18n.default_locale == DEFAULT_LOCALE
    with i18n.context(), i18n.use_locale("ru"):
        assert _("lang.choose") == translator("ru")("lang.choose")
        with pytest.raises(MissingKeyError):
            _("lang.chose")


def test_a_key_missing_in_one_language_falls_back_to_english(tmp_path):
    texts = {"en": {"a.b": "English", "c.d": "Both"}, "ru": {"c.d": "Оба"}}
    for locale in LOCALES:
        catalog = Catalog(locale=locale)
        for key, text in texts.get(locale, {}).items():
            catalog.add(key, text)
        folder = tmp_path / locale / "LC_MESSAGES"
        folder.mkdir(parents=True)
        with (folder / "messages.mo").open("wb") as fp:
            write_mo(fp, catalog)

    ru = load_catalogs(tmp_path)["ru"]
    assert (ru.gettext("c.d"), ru.gettext("a.b")) == ("Оба", "English")
    with pytest.raises(MissingKeyError):
        ru.gettext("e.f")
