"""The operators' screens (pure): a broadcast's preview and progress, /opstats, and the notice
a person reads while maintenance stops new games."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from html import escape
from typing import ClassVar

from tg_durak.i18n.translate import Translator
from tg_durak.play.operators import (
    BotFigures,
    BroadcastRow,
    BroadcastStatus,
    Progress,
    maintenance_refusal,
)
from tg_durak.play.operators import RecipientState as State
from tg_durak.render.buttons import button
from tg_durak.render.callbacks import CallbackRecord, Number
from tg_durak.render.screen import Screen


class BroadcastChoice(StrEnum):
    SEND = "s"
    CANCEL = "c"


@dataclass(frozen=True, slots=True)
class Broadcast(CallbackRecord):
    """The draft's Send and Cancel."""

    prefix: ClassVar[str] = "op"
    id: Number
    choice: BroadcastChoice


def maintenance_notice(left: float, t: Translator) -> str:
    """What someone who wants a new game reads meanwhile (play.operators)."""
    answer = maintenance_refusal(left)
    assert answer.key is not None
    return t(answer.key, **answer.params)


def preview_screen(row: BroadcastRow, audience: int, t: Translator) -> Screen:
    text = t("op.broadcast.preview", count=audience) + "\n\n" + escape(row.text)
    return Screen(text, [[
        button(t("op.broadcast.send", count=audience), Broadcast(row.id, BroadcastChoice.SEND)),
        button(t("op.broadcast.cancel"), Broadcast(row.id, BroadcastChoice.CANCEL))]])


_STATUS = {BroadcastStatus.SENDING: "op.broadcast.sending",
           BroadcastStatus.DONE: "op.broadcast.done",
           BroadcastStatus.STOPPED: "op.broadcast.stopped"}


def progress_screen(progress: Progress, t: Translator) -> Screen:
    row = progress.broadcast
    lines = [t("op.broadcast.progress", id=row.id, sent=progress.count(State.SENT),
               total=progress.total, failed=progress.count(State.FAILED))]
    unknown = progress.count(State.UNKNOWN) + (
        progress.count(State.SENDING) if row.status != BroadcastStatus.SENDING else 0)
    if unknown:
        lines.append(t("op.broadcast.unknown", count=unknown))
    if row.status in _STATUS:
        lines.append(t(_STATUS[row.status]))
    return Screen("\n".join(lines))


def opstats_screen(figures: BotFigures, t: Translator) -> Screen:
    if figures.maintenance_minutes is None:
        maintenance = t("op.opstats.maintenance_off")
    elif figures.maintenance_minutes == 0:
        maintenance = t("op.opstats.maintenance_open")
    else:
        maintenance = t("op.opstats.maintenance_minutes", minutes=figures.maintenance_minutes)
    p99 = t("op.opstats.no_answers") if figures.answer_p99 is None else \
        t("op.opstats.seconds", seconds=f"{figures.answer_p99:.2f}")
    return Screen(t("op.opstats", tables=figures.tables_running, lobbies=figures.lobbies_open,
                    today=figures.players_today, week=figures.players_week,
                    processes=figures.processes_alive, errors=figures.errors_429, p99=p99,
                    banned=figures.banned, maintenance=maintenance))
