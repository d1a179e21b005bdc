"""Commands in a group or supergroup.

Under privacy mode a group sends commands as ``/stats@<bot>``; aiogram's ``Command`` filter
accepts a mention only when it names this bot, so ``/stats@other_bot`` is left to the other bot.
Any group command not handled here falls through to ``commands.group_router``, which points to
the private chat.
"""

from __future__ import annotations

from aiogram import F, Router
from aiogram.filters import Command
from aiogram.types import Message

from tg_durak.i18n import Translator
from tg_durak.render.standings import leaderboard_screen
from tg_durak.store import Store, UserRow

TOP = 10  # lines of a chat's table of players (plus the asker's own, if lower)


def router() -> Router:
    r = Router(name="group_games")
    r.message.filter(F.chat.type.in_({"group", "supergroup"}))

    @r.message(Command("stats", "top"))
    async def standings(message: Message, t: Translator, user: UserRow, store: Store) -> None:
        rows = await store.leaderboard(message.chat.id, user.id, top=TOP)
        await message.answer(leaderboard_screen(rows, user.id, t).text)

    return r
