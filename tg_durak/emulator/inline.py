"""Inline mode as Telegram has it: a person types @bot in any chat, the bot answers the query
with results, and the one he picks is sent by him, "via @bot", into that chat.

The bot need not be in that chat. It learns of the message only from a tap on its buttons
(a callback query with `inline_message_id` and `chat_instance`, and no message) or, if BotFather's
inline feedback is on, from a `chosen_inline_result`; it edits the message by that id alone.
No I/O, no asyncio.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from aiogram.enums import ChatType

from tg_durak.emulator.markup import MAX_TEXT_LENGTH, Entity
from tg_durak.emulator.models import (
    ApiError,
    CallbackQuery,
    Change,
    ChangeKind,
    Chat,
    InlineKeyboard,
    Message,
    User,
    bad_request,
    chat_instance,
)
from tg_durak.emulator.updates import UpdateQueue


class InlineWorld(Protocol):
    """What inline mode uses of the emulator's world (tg_durak.emulator.world, which holds an
    InlineMode: a protocol, so that the two modules do not import each other)."""

    bot: User
    chats: dict[int, Chat]
    clock: Callable[[], float]
    updates: UpdateQueue
    notify: Callable[[Change | None], None]

    def user(self, user_id: int) -> User: ...
    def chat(self, chat_id: int) -> Chat: ...
    def live_message(self, chat_id: int, message_id: int) -> Message | None: ...
    def store(self, message: Message, kind: ChangeKind) -> Message: ...
    def new_message_id(self, chat_id: int) -> int: ...
    def new_callback(self, user_id: int, message: Message, data: str) -> CallbackQuery: ...

MAX_RESULTS = 50
MAX_RESULT_ID_BYTES = 64
INLINE_QUERY_TTL = 10.0   # seconds Telegram waits for answerInlineQuery
QUERY_INVALID = "query is too old and response timeout expired or query ID is invalid"
MESSAGE_ID_INVALID = "MESSAGE_ID_INVALID"
# A private chat between two people gets an id of its own here (Telegram shows each of them the
# other's user id); above any user id the tests use.
DIALOG_IDS_FROM = 9_000_000_000_000


@dataclass(frozen=True)
class InlineResult:
    """One InlineQueryResultArticle: what the list shows and what choosing it sends."""

    id: str
    title: str
    description: str | None
    text: str
    entities: tuple[Entity, ...]
    buttons: InlineKeyboard


@dataclass(frozen=True)
class InlineAnswer:
    """The bot's answerInlineQuery: its results, and the button above them (a start link into
    the private chat, `start_parameter`, or a Mini App, `web_app`)."""

    results: tuple[InlineResult, ...]
    button_text: str | None = None
    start_parameter: str | None = None
    web_app: str | None = None
    cache_time: int = 300
    is_personal: bool = False

    def result(self, which: str) -> InlineResult:
        """The result with this id or title."""
        for result in self.results:
            if which in (result.id, result.title):
                return result
        raise LookupError(f"no inline result {which!r}; results: {[r.title for r in self.results]}")


@dataclass
class InlineQuery:
    id: str
    user_id: int
    chat_id: int   # where the person typed it (the bot is told only the chat's type)
    query: str
    created: float
    answer: InlineAnswer | None = None


class InlineMode:
    """The inline queries asked, the messages sent via the bot, and BotFather's two switches:
    inline mode itself (`enabled`) and inline feedback (`feedback`: chosen_inline_result)."""

    def __init__(self, world: InlineWorld) -> None:
        self.world = world
        self.enabled = False
        self.feedback = False
        self.queries: dict[str, InlineQuery] = {}
        self.messages: dict[str, tuple[int, int]] = {}   # inline_message_id -> (chat, message)
        self._query_ids = itertools.count(7_700_000_000_000_000_001)
        self._message_ids = itertools.count(1)
        self._dialog_ids = itertools.count(DIALOG_IDS_FROM)

    # ---------------------------------------------------------------- what people do

    def add_dialog(self, first: int, second: int) -> Chat:
        """A private chat between two people, without the bot."""
        world = self.world
        for user_id in (first, second):
            world.user(user_id)
        chat = Chat(id=next(self._dialog_ids), type=ChatType.PRIVATE.value,
                    members={first, second}, opened=True, dialog=True)
        world.chats[chat.id] = chat
        return chat

    def ask(self, user_id: int, text: str, chat_id: int | None = None) -> InlineQuery:
        """The person types `@bot text` in a chat (default: his private chat with the bot)."""
        world = self.world
        if not self.enabled:
            raise ValueError(f"@{world.bot.username} has no inline mode: BotFather's /setinline")
        user = world.user(user_id)
        chat = world.chat(user_id if chat_id is None else chat_id)
        if user_id not in chat.members:
            raise ValueError(f"user {user_id} is not in chat {chat.id}")
        query = InlineQuery(str(next(self._query_ids)), user_id, chat.id, text, world.clock())
        self.queries[query.id] = query
        world.updates.push("inline_query", {
            "id": query.id, "from": user.to_api(), "query": text, "offset": "",
            "chat_type": self._chat_type(chat, user_id),
        })
        return query

    def _chat_type(self, chat: Chat, user_id: int) -> str:
        if chat.id == user_id:
            return "sender"   # his own private chat with the bot
        return chat.type

    def choose(self, query: InlineQuery, which: str) -> Message:
        """The person taps a result (by id or title): he sends it into the chat, via the bot."""
        world = self.world
        if query.answer is None:
            raise LookupError(f"the bot has not answered inline query {query.id}")
        result = query.answer.result(which)
        message = world.store(Message(
            message_id=world.new_message_id(query.chat_id), chat_id=query.chat_id,
            sender_id=query.user_id, from_bot=False, date=int(world.clock()),
            text=result.text, entities=result.entities, buttons=result.buttons,
            inline_id=f"AgAAA{next(self._message_ids):011d}" if result.buttons else None,
        ), ChangeKind.MESSAGE)
        if message.inline_id is not None:
            self.messages[message.inline_id] = (message.chat_id, message.message_id)
        if self.feedback:
            chosen: dict[str, Any] = {
                "result_id": result.id, "from": world.user(query.user_id).to_api(),
                "query": query.query,
            }
            if message.inline_id is not None:   # Telegram gives it only with a keyboard
                chosen["inline_message_id"] = message.inline_id
            world.updates.push("chosen_inline_result", chosen)
        return message

    def press(self, user_id: int, message: Message, data: str) -> CallbackQuery:
        """A tap on a message sent via the bot: the bot gets its inline_message_id and the
        chat's chat_instance, never the chat or the message."""
        world = self.world
        chat = world.chat(message.chat_id)
        if user_id not in chat.members and not chat.is_private:
            chat.members.add(user_id)
        if user_id not in chat.members:
            raise ValueError(f"user {user_id} cannot see chat {chat.id}")
        assert message.inline_id is not None
        query = world.new_callback(user_id, message, data)
        query.inline_id = message.inline_id
        world.updates.push("callback_query", {
            "id": query.id, "from": world.user(user_id).to_api(),
            "inline_message_id": message.inline_id, "chat_instance": chat_instance(chat.id),
            "data": data,
        })
        return query

    # ---------------------------------------------------------------- the bot's side

    def answer(self, params: dict[str, Any], text_of: Any, keyboard_of: Any) -> bool:
        """answerInlineQuery, checked as Telegram checks it. `text_of` and `keyboard_of` read a
        message's text and keyboard as sendMessage does."""
        query = self.queries.get(str(params.get("inline_query_id")))
        if (query is None or query.answer is not None
                or self.world.clock() - query.created > INLINE_QUERY_TTL):
            raise bad_request(QUERY_INVALID)
        results = params.get("results")
        if not isinstance(results, list):
            raise bad_request("can't parse inline query results JSON object")
        if len(results) > MAX_RESULTS:
            raise bad_request("RESULTS_TOO_MUCH")
        parsed = tuple(self._result(r, text_of, keyboard_of) for r in results)
        if len({r.id for r in parsed}) != len(parsed):
            raise bad_request("RESULT_ID_DUPLICATE")
        button = params.get("button")
        text = start = web_app = None
        if button is not None:
            if not isinstance(button, dict) or not isinstance(button.get("text"), str):
                raise bad_request("can't parse inline query results button JSON object")
            text, start = button["text"], button.get("start_parameter")
            web_app = (button.get("web_app") or {}).get("url")
            if start is not None and not (isinstance(start, str) and 1 <= len(start) <= 64
                                          and all(c.isalnum() or c in "_-" for c in start)):
                raise bad_request("START_PARAM_INVALID")
            if (start is None) == (web_app is None):
                raise bad_request("BUTTON_TYPE_INVALID")
        cache = params.get("cache_time", 300)
        query.answer = InlineAnswer(parsed, text, start, web_app,
                                    cache if isinstance(cache, int) else 300,
                                    bool(params.get("is_personal")))
        self.world.notify(None)
        return True

    @staticmethod
    def _result(result: Any, text_of: Any, keyboard_of: Any) -> InlineResult:
        if not isinstance(result, dict):
            raise bad_request("can't parse inline query result JSON object")
        if result.get("type") != "article":
            raise bad_request("the fake Telegram server knows inline results of type article only")
        result_id = result.get("id")
        if not isinstance(result_id, str) or not (
                1 <= len(result_id.encode()) <= MAX_RESULT_ID_BYTES):
            raise bad_request("RESULT_ID_INVALID")
        title = result.get("title")
        if not isinstance(title, str) or not title:
            raise bad_request("RESULT_TITLE_EMPTY")
        content = result.get("input_message_content")
        if not isinstance(content, dict) or "message_text" not in content:
            raise bad_request("MESSAGE_EMPTY")
        text, entities = text_of({"text": content.get("message_text"),
                                  "parse_mode": content.get("parse_mode"),
                                  "entities": content.get("entities")})
        if len(text) > MAX_TEXT_LENGTH:
            raise bad_request("MESSAGE_TOO_LONG")
        buttons = keyboard_of({"reply_markup": result.get("reply_markup")})
        check_inline_keyboard(buttons)
        description = result.get("description")
        return InlineResult(result_id, title, description if isinstance(description, str) else None,
                            text, entities, buttons)

    def message(self, params: dict[str, Any]) -> tuple[Chat, Message]:
        """The message an edit names by inline_message_id, and the chat it is in."""
        inline_id = params.get("inline_message_id")
        where = self.messages.get(inline_id) if isinstance(inline_id, str) else None
        if where is None:
            raise bad_request(MESSAGE_ID_INVALID)
        chat = self.world.chat(where[0])
        message = self.world.live_message(*where)
        if message is None:
            raise bad_request(MESSAGE_ID_INVALID)
        return chat, message


def check_inline_keyboard(buttons: InlineKeyboard) -> None:
    """Mini App buttons open only in the private chat with the bot: an inline message may hold
    a t.me/<bot>/<app>?startapp= link instead."""
    if any(b.web_app is not None for row in buttons for b in row):
        raise ApiError(400, "Bad Request: BUTTON_TYPE_INVALID")
