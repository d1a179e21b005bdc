"""Every reason the engine gives for refusing a move reads as an alert in every language."""

from __future__ import annotations

import pytest
from babel.messages.catalog import Catalog

from engine.actions import MESSAGES, Refusal
from tg_durak.i18n.catalog import placeholders, read_catalogs
from tg_durak.i18n.translate import LOCALES, translator
from tg_durak.play.answers import illegal

CODES = sorted(value for name, value in vars(Refusal).items() if name.isupper())


@pytest.fixture(scope="module")
def catalogs() -> dict[str, Catalog]:
    return read_catalogs()


def test_the_codes_are_the_engines_refusals() -> None:
    # A constant added to Refusal without an English reason would be missed by both lists.
    assert CODES and sorted(MESSAGES) == CODES


@pytest.mark.parametrize("code", CODES)
def test_an_alert_carries_a_key_and_nothing_to_fill_in(code: str) -> None:
    # The table service answers an IllegalMove with illegal(code) and the handler shows
    # t(answer.key, **answer.params): no parameters reach the text. If it ever carries some, the
    # placeholders expected below must become those.
    answer = illegal(code)
    assert (answer.key, answer.params, answer.alert) == (f"illegal.{code}", {}, True)


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("code", CODES)
def test_every_refusal_has_its_alert_in_every_catalog(catalogs, locale: str, code: str) -> None:
    message = catalogs[locale].get(f"illegal.{code}")
    assert message is not None and message.string, f"{locale}: no illegal.{code}"
    assert not message.fuzzy
    assert placeholders(message.string) == set()
    assert translator(locale)(f"illegal.{code}") == message.string


def test_no_alert_is_left_without_a_refusal(catalogs) -> None:
    keys = {m.id for m in catalogs["en"] if isinstance(m.id, str) and m.id.startswith("illegal.")}
    assert keys == {f"illegal.{code}" for code in CODES}
