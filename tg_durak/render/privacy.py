"""/privacy and /forgetme: what the bot keeps, and the question before it forgets someone; and
the name a forgotten person is shown by."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from html import escape
from typing import ClassVar

from tg_durak.i18n.translate import Translator
from tg_durak.render.buttons import button
from tg_durak.render.callbacks import CallbackRecord, Number
from tg_durak.render.screen import Screen


class ForgetVerb(StrEnum):
    YES = "y"
    NO = "n"


@dataclass(frozen=True, slots=True)
class Forget(CallbackRecord):
    """An answer to /forgetme's question: drawn for `user` at `at` (Unix seconds), and signed
    by the bot (`sign`), so that an old or forged button erases nobody."""

    prefix: ClassVar[str] = "fg"
    verb: ForgetVerb
    user: Number
    at: Number
    sign: str


def person_name(name: str, t: Translator) -> str:
    """A person's name as chat text (HTML); a forgotten person's seat keeps none."""
    return escape(name) if name else t("seat.former")


def privacy_screen(keep_days: int | None, t: Translator) -> Screen:
    """What the bot keeps, why, for how long, and how to erase it; `keep_days`: how long the
    finished games' moves are kept (None: as long as the bot runs)."""
    logs = (t("privacy.logs_forever") if keep_days is None
            else t.plural("privacy.logs_days", keep_days, n=keep_days))
    return Screen(t("privacy.text", logs=logs))


def forget_question(answers: dict[ForgetVerb, Forget], t: Translator) -> Screen:
    """Are you sure? with the two answers, each already signed."""
    return Screen(t("forget.ask"),
                  [[button(t("btn.forget_yes"), answers[ForgetVerb.YES]),
                    button(t("btn.forget_no"), answers[ForgetVerb.NO])]])
