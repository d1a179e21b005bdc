"""The operators' commands (DURAK_OPERATORS), in an operator's private chat: /ban, /unban,
/broadcast, /maintenance, /opstats. For anyone else this router takes nothing: his /ban falls
through to the unknown command's answer, as any other. It comes before the guards, so that a
broadcast's text may be longer than a command's arguments.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from enum import Enum
from html import escape

from aiogram import F, Router
from aiogram.enums import ChatType
from aiogram.filters import Command, CommandObject, MagicData
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, Message, MessageOriginUser
from prometheus_client import CollectorRegistry

from tg_durak.i18n.translate import Translator
from tg_durak.observe.recent import LastHour
from tg_durak.outbox.publisher import Publisher
from tg_durak.render.operators import Broadcast, BroadcastChoice, opstats_screen, preview_screen
from tg_durak.storage import Store
from tg_durak.tables.broadcasts import Broadcasts
from tg_durak.tables.moderation import Moderation
from tg_durak.tables.processes import ProcessBeats
from tg_durak.tables.service import TableService
from tg_durak.telegram.callbacks import factory, record_of
from tg_durak.telegram.handlers.replies import respond, tapped_message

BroadcastCallback = factory(Broadcast)
MAX_MINUTES = 7 * 24 * 60
MAX_BROADCAST = 3500   # characters as sent (HTML's & < > escaped); Telegram takes 4096


@dataclass(frozen=True)
class OperatorDesk:
    """What the operators' commands reach, handed to the dispatcher by the composition root:
    who the operators are, bans and maintenance, broadcasts, the processes' heartbeats, this
    process's last hour of metrics."""

    operators: frozenset[int]
    moderation: Moderation
    broadcasts: Broadcasts
    processes: ProcessBeats
    last_hour: LastHour

    def data(self) -> dict[str, object]:
        """The dispatcher's data, for the handlers' arguments."""
        return {"operators": self.operators, "moderation": self.moderation,
                "broadcasts": self.broadcasts, "processes": self.processes,
                "last_hour": self.last_hour}


def operator_desk(operators: frozenset[int], store: Store, tables: TableService,
                  publisher: Publisher, registry: CollectorRegistry) -> OperatorDesk:
    """The operators' side of one bot process, built on its table service (app.py)."""
    processes = ProcessBeats(store)
    moderation = Moderation(store, tables.core, tables.absences)
    broadcasts = Broadcasts(store, publisher, tables.languages, processes.name)
    return OperatorDesk(operators, moderation, broadcasts, processes, LastHour(registry))


class Unnamed(Enum):
    """A forwarded message whose sender's privacy settings keep him unnamed."""

    HIDDEN_SENDER = "hidden"


async def target_of(message: Message, command: CommandObject,
                    store: Store) -> int | str | Unnamed | None:
    """Whom /ban or /unban names: a user id, an @username the bot has seen, or the sender of
    the forwarded message it replies to. A str: the name or id it could not find; None: the
    command names nobody."""
    argument = (command.args or "").strip()
    if argument.isdigit():
        return int(argument) if 0 < int(argument) < 2**63 else argument
    if argument.startswith("@") and len(argument) > 1:
        found = await store.operators.by_username(argument[1:])
        return argument if found is None else found
    if argument:
        return argument
    replied = message.reply_to_message
    if replied is not None and isinstance(replied.forward_origin, MessageOriginUser):
        return replied.forward_origin.sender_user.id
    if replied is not None and replied.forward_origin is not None:
        return Unnamed.HIDDEN_SENDER
    return None


async def _who(store: Store, user_id: int) -> str:
    row = await store.users.get(user_id)
    return escape(f"{row.name} ({user_id})" if row is not None else str(user_id))


async def ban(message: Message, command: CommandObject, t: Translator, store: Store,
              moderation: Moderation, publisher: Publisher, operators: Collection[int]) -> None:
    assert message.from_user is not None   # the router's filter read it
    target = await target_of(message, command, store)
    if target is None:
        return respond(publisher, message, t("op.ban.usage"))
    if target is Unnamed.HIDDEN_SENDER:
        return respond(publisher, message, t("op.forward_hidden"))
    if isinstance(target, str):
        return respond(publisher, message, t("op.not_found", who=escape(target)))
    who = await _who(store, target)
    if target in operators:
        return respond(publisher, message, t("op.ban.operator", user=who))
    added = await moderation.ban(target, message.from_user.id)
    respond(publisher, message, t("op.ban.done" if added else "op.ban.again", user=who))


async def unban(message: Message, command: CommandObject, t: Translator, store: Store,
                moderation: Moderation, publisher: Publisher) -> None:
    assert message.from_user is not None
    target = await target_of(message, command, store)
    if target is None:
        return respond(publisher, message, t("op.unban.usage"))
    if target is Unnamed.HIDDEN_SENDER:
        return respond(publisher, message, t("op.forward_hidden"))
    if isinstance(target, str):
        return respond(publisher, message, t("op.not_found", who=escape(target)))
    removed = await moderation.unban(target, message.from_user.id)
    who = await _who(store, target)
    respond(publisher, message, t("op.unban.done" if removed else "op.unban.none", user=who))


async def maintenance(message: Message, command: CommandObject, t: Translator,
                      moderation: Moderation, publisher: Publisher) -> None:
    assert message.from_user is not None
    words = (command.args or "").split()
    minutes = words[1] if len(words) == 2 else None
    if words == ["off"]:
        await moderation.set_maintenance(None, message.from_user.id, on=False)
        return respond(publisher, message, t("op.maintenance.off"))
    if words[:1] != ["on"] or len(words) > 2 or (
            minutes is not None and not (minutes.isdigit() and 0 < int(minutes) <= MAX_MINUTES)):
        return respond(publisher, message, t("op.maintenance.usage", most=MAX_MINUTES))
    await moderation.set_maintenance(None if minutes is None else int(minutes),
                                     message.from_user.id)
    respond(publisher, message, t("op.maintenance.open") if minutes is None
            else t("op.maintenance.on", minutes=int(minutes)))


async def broadcast(message: Message, command: CommandObject, t: Translator,
                    broadcasts: Broadcasts, publisher: Publisher) -> None:
    assert message.from_user is not None
    text = (command.args or "").strip()
    if not text:
        return respond(publisher, message, t("op.broadcast.usage"))
    if text == "stop":
        stopped = await broadcasts.stop(message.from_user.id)
        return respond(publisher, message,
                       t("op.broadcast.stopping") if stopped else t("op.broadcast.none"))
    if len(escape(text)) > MAX_BROADCAST:   # the preview's header must fit beside it
        return respond(publisher, message, t("op.broadcast.too_long", most=MAX_BROADCAST))
    row, audience = await broadcasts.draft(message.from_user.id, text)
    respond(publisher, message, preview_screen(row, audience, t))


async def broadcast_chosen(query: CallbackQuery, callback_data: CallbackData, t: Translator,
                           broadcasts: Broadcasts) -> None:
    """Send or Cancel on the preview, which turns into the broadcast's progress (or says it
    was cancelled): it cannot be sent twice."""
    choice = record_of(callback_data, Broadcast)
    operator = query.from_user.id
    preview = tapped_message(query).message_id
    if choice.choice == BroadcastChoice.SEND:
        count = await broadcasts.confirm(choice.id, operator, preview)
        answer = None if count is None else t("op.broadcast.confirmed", count=count)
    else:
        cancelled = await broadcasts.cancel(choice.id, operator, preview)
        answer = t("op.broadcast.cancelled") if cancelled else None
    if answer is None:
        await query.answer(t("op.broadcast.gone"), show_alert=True)
    else:
        await query.answer(answer)


async def opstats(message: Message, t: Translator, moderation: Moderation,
                  processes: ProcessBeats, last_hour: LastHour, publisher: Publisher) -> None:
    assert message.from_user is not None
    errors, p99 = last_hour.figures()
    figures = await moderation.figures(message.from_user.id, await processes.alive(), errors,
                                       p99)
    respond(publisher, message, opstats_screen(figures, t))


def router(operators: Collection[int]) -> Router:
    r = Router(name="operators")
    ids = frozenset(operators)
    r.message.filter(MagicData(F.event.chat.type == ChatType.PRIVATE),
                     MagicData(F.event.from_user.id.in_(ids)))
    r.callback_query.filter(MagicData(F.event.from_user.id.in_(ids)))
    r.message.register(ban, Command("ban"))
    r.message.register(unban, Command("unban"))
    r.message.register(broadcast, Command("broadcast"))
    r.message.register(maintenance, Command("maintenance"))
    r.message.register(opstats, Command("opstats"))
    r.callback_query.register(broadcast_chosen, BroadcastCallback.filter())
    return r
