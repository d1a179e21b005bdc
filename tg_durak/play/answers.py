"""How the bot answers what a person did (a tap, a command, a deep link): one record for all."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Answer:
    """A catalog key with its parameters (None: answered silently), shown as an alert or a
    toast; or a t.me start link to open (`start`: its payload)."""

    key: str | None = None
    params: dict = field(default_factory=dict)
    alert: bool = False
    start: str | None = None
    reply_to: int | None = None   # a message of the chat the answer points to


OK = Answer()


def refused(key: str, **params: object) -> Answer:
    return Answer(key, params, alert=True)


def illegal(code: str) -> Answer:
    """The engine refused a move (an IllegalMove's code): its reason, as an alert. The catalog's
    reasons take no parameters (tests/i18n/test_refusals.py)."""
    return refused(f"illegal.{code}")
