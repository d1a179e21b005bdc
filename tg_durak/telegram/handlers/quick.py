"""Quick games in the private chat: choosing the game, the queue, the report after the game, and
/top of the quick games' players. Thin: parse, ask tables/quick_games.py, answer.

The buttons' filters take only the values a button can carry (a game the rules allow, a wait
offered); anything else falls through to the game router's "unknown button".
"""

from __future__ import annotations

from aiogram import Bot, F, Router
from aiogram.enums import ChatType
from aiogram.filters import Command, MagicData
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, Message

from tg_durak.i18n.translate import Translator
from tg_durak.outbox.publisher import Publisher
from tg_durak.play.matching import QUICK_CHAT
from tg_durak.play.options import PlaySettings
from tg_durak.play.rows import UserRow
from tg_durak.render.quick import QuickChoice, quick_setup_screen, quick_top_screen
from tg_durak.render.quick_taps import QuickTap, QuickVerb, ReportTap
from tg_durak.storage import Store
from tg_durak.tables.quick_games import QuickGames
from tg_durak.telegram.callbacks import factory, record_of
from tg_durak.telegram.handlers.replies import answer_query, respond, tapped_message

QuickTapCallback = factory(QuickTap)
ReportTapCallback = factory(ReportTap)
TOP = 10


def _choice(data: CallbackData) -> QuickChoice:
    choice = QuickChoice.of(record_of(data, QuickTap))
    assert choice is not None   # the router's filter
    return choice


def _edit(publisher: Publisher, query: CallbackQuery, choice: QuickChoice,
          t: Translator) -> None:
    tapped = tapped_message(query)
    chat_id, message_id = tapped.chat.id, tapped.message_id
    publisher.show(("menu", chat_id, message_id), chat_id, message_id,
                   quick_setup_screen(choice, t))


async def open_choice(query: CallbackQuery, t: Translator, user: UserRow,
                      publisher: Publisher) -> None:
    """The menu's Quick game: his last settings' game, players and deck preselected."""
    _edit(publisher, query, QuickChoice.preferred(PlaySettings.from_dict(user.settings)), t)
    await query.answer()


async def choose(query: CallbackQuery, callback_data: CallbackData, t: Translator,
                 publisher: Publisher) -> None:
    _edit(publisher, query, _choice(callback_data), t)
    await query.answer()


async def find(query: CallbackQuery, callback_data: CallbackData, t: Translator, bot: Bot,
               user: UserRow, quick: QuickGames) -> None:
    choice = _choice(callback_data)
    tapped = tapped_message(query)
    answer = await quick.join(user, query.from_user.first_name, choice.game, choice.wait,
                              (tapped.chat.id, tapped.message_id))
    await answer_query(query, answer, t, bot)


async def leave(query: CallbackQuery, t: Translator, bot: Bot, user: UserRow,
                quick: QuickGames) -> None:
    await answer_query(query, await quick.leave(user.id), t, bot)


async def start_now(query: CallbackQuery, t: Translator, bot: Bot, user: UserRow,
                    quick: QuickGames) -> None:
    await answer_query(query, await quick.start_now(user.id), t, bot)


async def report(query: CallbackQuery, callback_data: CallbackData, t: Translator, bot: Bot,
                 user: UserRow, quick: QuickGames) -> None:
    tap = record_of(callback_data, ReportTap)
    await answer_query(query, await quick.report(user.id, tap.table, tap.user, tap.reason), t,
                       bot)


async def top(message: Message, t: Translator, user: UserRow, store: Store,
              publisher: Publisher) -> None:
    """/top in the private chat: the quick games' players (a group's /top is the group's)."""
    rows = await store.results.leaderboard(QUICK_CHAT, user.id, top=TOP)
    respond(publisher, message, quick_top_screen(rows, user.id, t))


def router() -> Router:
    r = Router(name="quick_games")
    private = MagicData(F.event.chat.type == ChatType.PRIVATE)
    r.message.register(top, private, Command("top"))
    # MagicData, not a bare F: see menus.py.
    r.callback_query.filter(MagicData(F.event.message.chat.type == ChatType.PRIVATE))
    on = r.callback_query.register
    valid = F.func(lambda d: QuickChoice.of(record_of(d, QuickTap)) is not None)
    on(open_choice, QuickTapCallback.filter(F.verb == QuickVerb.OPEN))
    on(choose, QuickTapCallback.filter((F.verb == QuickVerb.CHOOSE) & valid))
    on(find, QuickTapCallback.filter((F.verb == QuickVerb.FIND) & valid))
    on(leave, QuickTapCallback.filter(F.verb == QuickVerb.LEAVE))
    on(start_now, QuickTapCallback.filter(F.verb == QuickVerb.START))
    on(report, ReportTapCallback.filter())
    return r
