"""Translations: which language a user gets, and the catalogs that speak it.

Message ids are keys ("rules.short"), never English sentences; the English text lives in en.po
like every other language. Texts use ``{name}`` placeholders and are written for Telegram's HTML
parse mode, so a caller that substitutes user input (a name) must escape it first.

Two ways to reach the catalogs, backed by the same compiled .mo files:

* ``telegram.middlewares.make_i18n()`` for aiogram: handlers use ``_()``/``__()`` from
  ``aiogram.utils.i18n`` in the locale an ``I18nMiddleware`` picked for the current update;
* ``translator(locale)`` for pure code (renderers) that renders one table for several players,
  each in his own language, without any context variable.

A key that a language lacks falls back to English; a key that English lacks raises
``MissingKeyError``: such a key is a typo in the code, and the tests must catch it, not the users.
"""

from __future__ import annotations

import gettext
from functools import cache
from pathlib import Path

LOCALES = ("en", "ru", "uk", "pl")
DEFAULT_LOCALE = "en"
DOMAIN = "messages"
LOCALES_DIR = Path(__file__).resolve().parent / "locales"
PLURAL_SUFFIX = ".plural"

# Endonyms, not translations: the chooser shows every language in its own name, whatever the
# interface language is, so these never belong in a catalog.
LANGUAGE_NAMES = {
    "en": "English",
    "ru": "Русский",
    "uk": "Українська",
    "pl": "Polski",
}

# Languages we do not translate to whose speakers nearly all read one that we do: Russian is an
# official language in Belarus, Kazakhstan and Kyrgyzstan. Anything else gets English.
_NEAREST_LOCALE = {"be": "ru", "kk": "ru", "ky": "ru"}


def pick_locale(language_code: str | None) -> str:
    """The supported locale for a Telegram ``language_code`` (an IETF tag such as "ru-RU").

    Only the primary subtag counts ("pt-BR" -> "pt"); a language we do not speak maps to its
    nearest supported one where that is unambiguous (be, kk, ky -> ru), otherwise to English.
    """
    if not language_code:
        return DEFAULT_LOCALE
    primary = language_code.replace("_", "-").split("-", 1)[0].lower()
    if primary in LOCALES:
        return primary
    return _NEAREST_LOCALE.get(primary, DEFAULT_LOCALE)


class MissingKeyError(KeyError):
    """A message key that not even the English catalog has: a bug in the calling code."""


class _Strict(gettext.NullTranslations):
    """The end of every fallback chain: refuses to show a bare key to a user."""

    def gettext(self, message: str) -> str:
        raise MissingKeyError(message)

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        raise MissingKeyError(msgid1)


def chain_fallbacks(catalogs: dict[str, gettext.GNUTranslations]) -> None:
    """Make each catalog fall back to English, and English to MissingKeyError."""
    english = catalogs[DEFAULT_LOCALE]
    english.add_fallback(_Strict())
    for catalog in catalogs.values():
        if catalog is not english:
            catalog.add_fallback(english)


def load_catalogs(path: Path = LOCALES_DIR) -> dict[str, gettext.GNUTranslations]:
    """Every locale's compiled catalog, chained: locale -> English -> MissingKeyError."""
    catalogs = {}
    for locale in LOCALES:
        with (path / locale / "LC_MESSAGES" / f"{DOMAIN}.mo").open("rb") as fp:
            catalogs[locale] = gettext.GNUTranslations(fp)
    chain_fallbacks(catalogs)
    return catalogs


class Translator:
    """One locale's texts, for pure code: ``t("lang.set", language="Polski")``."""

    def __init__(self, locale: str, catalog: gettext.NullTranslations) -> None:
        self.locale = locale
        self._catalog = catalog

    def __call__(self, key: str, /, **params: object) -> str:
        return self._catalog.gettext(key).format(**params)

    def unfilled(self, key: str) -> str:
        """The text with its {placeholders} left for the Mini App's page to fill."""
        return self._catalog.gettext(key)

    def plural(self, key: str, n: int, /, **params: object) -> str:
        """The form of ``key`` for the number ``n``; pass ``n=n`` too if the text shows it."""
        return self._catalog.ngettext(key, key + PLURAL_SUFFIX, n).format(**params)

    def __repr__(self) -> str:
        return f"Translator({self.locale!r})"


@cache
def _shared_catalogs() -> dict[str, gettext.GNUTranslations]:
    return load_catalogs()


@cache
def translator(locale: str) -> Translator:
    """The translator of a supported locale (normalise user input with ``pick_locale`` first)."""
    if locale not in LOCALES:
        raise ValueError(f"unsupported locale {locale!r}; expected one of {LOCALES}")
    return Translator(locale, _shared_catalogs()[locale])
