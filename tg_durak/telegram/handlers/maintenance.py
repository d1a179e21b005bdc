"""While an operator has maintenance on (/maintenance on), whatever would begin a game or a
lobby is answered with the notice and the time to wait: /play, /new, a lobby's invite link, the
Play buttons, a lobby's Join, Add computer, Start and Rematch (a lobby's last seat starts it).
Running games go on: their moves never reach this router. With maintenance off its filter lets
everything through to the routers after it.
"""

from __future__ import annotations

from typing import Any

from aiogram import F, Router
from aiogram.enums import ChatType
from aiogram.filters import Command, CommandStart, MagicData
from aiogram.types import CallbackQuery, Message

from tg_durak.i18n.translate import Translator
from tg_durak.outbox.publisher import Publisher
from tg_durak.render.callbacks import LobbyVerb, MenuAction, SetupField
from tg_durak.render.operators import maintenance_notice
from tg_durak.render.quick_taps import QuickVerb
from tg_durak.tables.moderation import Moderation
from tg_durak.telegram.callbacks import (
    InlineOpenCallback,
    LobbyTapCallback,
    MenuCallback,
    SetupCallback,
)
from tg_durak.telegram.handlers.commands import GROUP_PAYLOAD
from tg_durak.telegram.handlers.quick import QuickTapCallback
from tg_durak.telegram.handlers.replies import respond

STARTING = frozenset({LobbyVerb.JOIN, LobbyVerb.COMPUTER, LobbyVerb.START, LobbyVerb.REMATCH})


async def under_maintenance(_: Any, moderation: Moderation) -> bool | dict[str, float]:
    """Filter: with maintenance on, the seconds it has left (`left`) for the handler."""
    left = await moderation.maintenance_left()
    return False if left is None else {"left": left}


async def refuse_command(message: Message, t: Translator, left: float,
                         publisher: Publisher) -> None:
    respond(publisher, message, maintenance_notice(left, t))


async def refuse_tap(query: CallbackQuery, t: Translator, left: float) -> None:
    await query.answer(maintenance_notice(left, t), show_alert=True)


def router() -> Router:
    r = Router(name="maintenance")
    private = MagicData(F.event.chat.type == ChatType.PRIVATE)
    group = MagicData(F.event.chat.type.in_({ChatType.GROUP, ChatType.SUPERGROUP}))
    r.message.register(refuse_command, private, Command("play"), under_maintenance)
    r.message.register(refuse_command, private, CommandStart(
        deep_link=True, magic=F.args != GROUP_PAYLOAD), under_maintenance)
    r.message.register(refuse_command, group, Command("new"), under_maintenance)
    on = r.callback_query.register
    on(refuse_tap, SetupCallback.filter(F.field == SetupField.START), under_maintenance)
    on(refuse_tap, MenuCallback.filter(F.action.in_({MenuAction.QUICK, MenuAction.AGAIN})),
       under_maintenance)
    on(refuse_tap, LobbyTapCallback.filter(F.verb.in_(STARTING)), under_maintenance)
    on(refuse_tap, InlineOpenCallback.filter(), under_maintenance)
    on(refuse_tap, QuickTapCallback.filter(F.verb.in_({QuickVerb.FIND, QuickVerb.START})),
       under_maintenance)
    return r
