"""A table's options as rows of buttons and as one line of text.

The private setup and the group lobby draw the same options; each says how a button's callback
data is built (`data(field, value)`, value as play.options.encode writes it), so each routes the
taps to its own handler and both validate them with play.options.with_option.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from engine import Variant
from tg_durak.i18n.translate import Translator
from tg_durak.play.options import CHOICES, OptionField, TableOptions, encode
from tg_durak.render.buttons import button, marked, toggled
from tg_durak.render.callbacks import CallbackRecord
from tg_durak.render.screen import Button

OptionData = Callable[[OptionField, str], CallbackRecord]
# The private setup's main screen has the variant; "More options" has the rest.
MAIN_OPTIONS = (OptionField.VARIANT,)
MORE_OPTIONS = tuple(f for f in OptionField if f not in MAIN_OPTIONS)

# Any: each label reads its own field's values (CHOICES).
_LABELS: dict[OptionField, Callable[[Any, Translator], str]] = {
    OptionField.VARIANT: lambda v, t: t(f"variant.{v}"),
    OptionField.DECK: lambda n, t: t.plural("game.cards", n, n=n),
    OptionField.TURN: lambda s, t: t("option.seconds", seconds=s),
    OptionField.THROW_IN: lambda v, t: t(f"btn.option.throw_in.{v}"),
}


def offered(options: TableOptions, field: OptionField) -> bool:
    """Show-trump exists only in the transfer game (R9.7)."""
    return field is not OptionField.SHOW_TRUMP or options.variant == Variant.TRANSFER


def options_rows(
    options: TableOptions, t: Translator, data: OptionData,
    fields: Iterable[OptionField] = tuple(OptionField),
) -> list[list[Button]]:
    """One row per option: a button per choice (the current one marked), or one switch."""
    return [_row(options, field, t, data) for field in fields if offered(options, field)]


def _row(options: TableOptions, field: OptionField, t: Translator,
         data: OptionData) -> list[Button]:
    current = getattr(options, field)
    if isinstance(current, bool):
        text = toggled(t(f"btn.option.{field}"), current)
        return [button(text, data(field, encode(not current)))]
    label = _LABELS[field]
    return [button(marked(label(value, t), value == current), data(field, encode(value)))
            for value in CHOICES[field]]


def options_summary(options: TableOptions, t: Translator) -> str:
    """The options in one line: always the game, deck, turn time and who throws in; the
    switches only when they differ from the usual game."""
    parts = [
        t(f"variant.{options.variant}"),
        t.plural("game.cards", options.deck, n=options.deck),
        t("option.turn", seconds=options.turn_seconds),
        t(f"option.throw_in.{options.throw_in}"),
    ]
    if options.first_round_five:
        parts.append(t("option.first_round_five"))
    if not options.draws:
        parts.append(t("option.no_draws"))
    if options.show_trump:
        parts.append(t("option.show_trump"))
    return " · ".join(parts)
