"""What the fake Bot API server knows, and the logic of its methods. No I/O and no asyncio.

Method handlers take decoded request parameters and return the Bot API `result` or raise
`ApiError` with Telegram's own error code and description. The driver-side operations
(`user_message`, `press`, `user_delete_message`, ...) are what a human does in a Telegram app.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections import defaultdict, deque
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from tg_durak.emulator.markup import (
    MAX_TEXT_LENGTH,
    Entity,
    EntityParseError,
    find_bot_commands,
    parse_html,
    sort_entities,
    trim,
)
from tg_durak.emulator.models import (
    ApiError,
    Button,
    CallbackAnswer,
    CallbackQuery,
    Change,
    Chat,
    Command,
    Keyboard,
    Message,
    RateLimits,
    User,
)

NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly the same "
    "as a current content and reply markup of the message"
)
QUERY_TOO_OLD = "query is too old and response timeout expired or query ID is invalid"
POLL_CONFLICT = (
    "Conflict: terminated by other getUpdates request; make sure that only one bot instance is "
    "running"
)
MAX_CALLBACK_DATA_BYTES = 64
MAX_CALLBACK_ANSWER_LENGTH = 200
# Without allowed_updates Telegram sends every update type except these.
OPT_IN_UPDATES = frozenset({"chat_member", "message_reaction", "message_reaction_count"})
CHAT_ACTIONS = frozenset({
    "typing", "upload_photo", "record_video", "upload_video", "record_voice", "upload_voice",
    "upload_document", "choose_sticker", "find_location", "record_video_note",
    "upload_video_note",
})
_INT_PARAMS = frozenset({
    "message_id", "user_id", "offset", "limit", "timeout", "cache_time", "reply_to_message_id",
    "message_thread_id",
})
_BOOL_PARAMS = frozenset({
    "show_alert", "drop_pending_updates", "disable_notification", "protect_content",
    "disable_web_page_preview", "allow_sending_without_reply",
})
_JSON_PARAMS = frozenset({
    "reply_markup", "entities", "scope", "commands", "allowed_updates", "reply_parameters",
    "link_preview_options",
})
_COMMAND_RE = re.compile(r"[a-z0-9_]{1,32}")
_GLOBAL_SCOPES = frozenset(
    {"default", "all_private_chats", "all_group_chats", "all_chat_administrators"}
)


def bad_request(what: str) -> ApiError:
    return ApiError(400, f"Bad Request: {what}")


def too_many_requests(retry_after: int) -> ApiError:
    return ApiError(429, f"Too Many Requests: retry after {retry_after}", retry_after)


class _RateLimiter:
    def __init__(self) -> None:
        self._hits: dict[Hashable, deque[float]] = defaultdict(deque)

    def hit(self, windows: Iterable[tuple[Hashable, int, float]], now: float) -> None:
        """Count one request in every (key, limit, seconds) window, or raise 429 if one is full."""
        windows = list(windows)
        for key, limit, seconds in windows:
            hits = self._hits[key]
            while hits and hits[0] <= now - seconds:
                hits.popleft()
            if len(hits) >= limit:
                raise too_many_requests(max(1, math.ceil(hits[0] + seconds - now)))
        for key, _, _ in windows:
            self._hits[key].append(now)


@dataclass
class _Failure:
    method: str  # lower case
    remaining: int
    error_code: int
    description: str
    retry_after: int | None
    when: Callable[[dict[str, Any]], bool] | None


_DEFAULT_DESCRIPTIONS = {
    400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
    409: "Conflict", 500: "Internal Server Error", 502: "Bad Gateway",
}


def normalize_params(params: dict[str, Any]) -> dict[str, Any]:
    """Decode form values (all strings) into the types a JSON body would carry.

    A value that does not decode is kept as it is, so the method reports the error.
    """
    result = dict(params)
    for key, value in params.items():
        if isinstance(value, bytes):
            continue
        if key in _JSON_PARAMS and isinstance(value, str):
            with contextlib.suppress(ValueError):
                result[key] = json.loads(value)
        elif key in _INT_PARAMS or key == "chat_id":
            if isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
                result[key] = int(value)
        elif key in _BOOL_PARAMS and isinstance(value, str):
            result[key] = value.strip().lower() in ("true", "1")
    return result


class TelegramState:
    """Users, chats, messages, the updates queue, callback queries and bot commands."""

    def __init__(
        self,
        token: str,
        *,
        bot_username: str,
        bot_name: str,
        clock: Callable[[], float],
        notify: Callable[[Change | None], None],
        rate_limits: RateLimits | None = None,
        privacy_mode: bool = True,
        callback_ttl: float = 15.0,
        first_update_id: int = 1,
    ) -> None:
        self.bot = User(
            id=int(token.split(":", 1)[0]), first_name=bot_name, username=bot_username,
            language_code=None, is_bot=True,
        )
        self.clock = clock
        self.rate_limits = rate_limits or RateLimits()
        self.privacy_mode = privacy_mode
        self.callback_ttl = callback_ttl
        self.users: dict[int, User] = {}
        self.chats: dict[int, Chat] = {}
        self.callbacks: dict[str, CallbackQuery] = {}
        self.webhook_url = ""
        self.allowed_updates: frozenset[str] | None = None  # None: Telegram's default set
        self._notify = notify
        self._messages: dict[int, dict[int, Message]] = defaultdict(dict)
        self._updates: deque[dict[str, Any]] = deque()
        self._next_update_id = first_update_id
        self._next_query_id = 4_242_000_000_000_000_001
        self._commands: dict[tuple[tuple[Any, ...], str], tuple[Command, ...]] = {}
        self._limiter = _RateLimiter()
        self._failures: list[_Failure] = []
        self._methods: dict[str, tuple[str, Callable[[dict[str, Any]], Any]]] = {
            name.lower(): (name, getattr(self, "_" + re.sub(r"([A-Z])", r"_\1", name).lower()))
            for name in (
                "getMe", "sendMessage", "editMessageText", "editMessageReplyMarkup",
                "deleteMessage", "answerCallbackQuery", "setMyCommands", "getMyCommands",
                "deleteMyCommands", "getChat", "sendChatAction", "pinChatMessage",
                "unpinChatMessage", "setWebhook", "deleteWebhook", "getWebhookInfo",
            )
        }
        self._methods["getupdates"] = ("getUpdates", self._get_updates_now)

    # ---------------------------------------------------------------- people and chats

    def add_user(
        self,
        user_id: int,
        first_name: str,
        language_code: str | None = "en",
        username: str | None = None,
        last_name: str | None = None,
    ) -> User:
        if user_id <= 0 or user_id in self.users:
            raise ValueError(f"user id {user_id} must be positive and new")
        user = User(user_id, first_name, last_name, username, language_code)
        self.users[user_id] = user
        self.chats[user_id] = Chat(id=user_id, type="private", user=user, members={user_id})
        return user

    def add_group(
        self,
        chat_id: int,
        title: str,
        members: Iterable[int] = (),
        admins: Iterable[int] = (),
        bot_is_admin: bool = False,
    ) -> Chat:
        if chat_id >= 0 or chat_id in self.chats:
            raise ValueError(f"group id {chat_id} must be negative and new")
        members, admins = set(members), set(admins)
        unknown = (members | admins) - self.users.keys()
        if unknown:
            raise ValueError(f"unknown users {sorted(unknown)}: add_user them first")
        # Supergroup ids are -100 followed by the channel id, as in Telegram.
        kind = "supergroup" if chat_id < -1_000_000_000_000 else "group"
        chat = Chat(id=chat_id, type=kind, title=title, members=members | admins, admins=admins,
                    bot_is_admin=bot_is_admin)
        self.chats[chat_id] = chat
        return chat

    def user(self, user_id: int) -> User:
        if user_id not in self.users:
            raise LookupError(f"unknown user {user_id}: add_user it first")
        return self.users[user_id]

    def chat(self, chat_id: int) -> Chat:
        if chat_id not in self.chats:
            raise LookupError(f"unknown chat {chat_id}")
        return self.chats[chat_id]

    # ---------------------------------------------------------------- messages

    def messages(
        self, chat_id: int, include_deleted: bool = False, include_user: bool = False
    ) -> list[Message]:
        return [
            m for m in self._messages[chat_id].values()
            if (include_deleted or not m.deleted) and (include_user or m.from_bot)
        ]

    def message(self, chat_id: int, message_id: int) -> Message:
        try:
            return self._messages[chat_id][message_id]
        except KeyError:
            raise LookupError(f"no message {chat_id}/{message_id}") from None

    def message_json(self, message: Message, with_reply: bool = True) -> dict[str, Any]:
        sender = self.bot if message.from_bot else self.users[message.sender_id]
        data: dict[str, Any] = {
            "message_id": message.message_id,
            "from": sender.to_api(),
            "chat": self.chats[message.chat_id].to_api(),
            "date": message.date,
        }
        if message.edit_date is not None:
            data["edit_date"] = message.edit_date
        if with_reply and message.reply_to_message_id is not None:
            replied = self._messages[message.chat_id].get(message.reply_to_message_id)
            if replied is not None and not replied.deleted:
                data["reply_to_message"] = self.message_json(replied, with_reply=False)
        data["text"] = message.text
        if message.entities:
            data["entities"] = [dict(e) for e in message.entities]
        if message.buttons:
            data["reply_markup"] = {
                "inline_keyboard": [[b.to_api() for b in row] for row in message.buttons]
            }
        return data

    def _store(self, message: Message, kind: str) -> Message:
        self._messages[message.chat_id][message.message_id] = message
        self._notify(Change(kind, message.chat_id, message.message_id, message))
        return message

    def _new_message_id(self, chat_id: int) -> int:
        return max(self._messages[chat_id], default=0) + 1

    # ---------------------------------------------------------------- updates

    def _enqueue(self, kind: str, payload: dict[str, Any]) -> bool:
        allowed = self.allowed_updates
        if (kind in OPT_IN_UPDATES) if allowed is None else (kind not in allowed):
            return False
        self._updates.append({"update_id": self._next_update_id, kind: payload})
        self._next_update_id += 1
        self._notify(None)
        return True

    @property
    def pending_updates(self) -> list[dict[str, Any]]:
        """Updates not yet confirmed by the bot (a getUpdates offset confirms them)."""
        return list(self._updates)

    def start_get_updates(self, params: dict[str, Any]) -> int:
        """Apply getUpdates' offset and allowed_updates; return the batch size asked for."""
        if self.webhook_url:
            raise ApiError(409, "Conflict: can't use getUpdates method while webhook is active; "
                                "use deleteWebhook to delete the webhook first")
        offset = params.get("offset")
        if isinstance(offset, int):
            if offset < 0:
                # a negative offset keeps only the last -offset updates
                while len(self._updates) > -offset:
                    self._updates.popleft()
            else:
                while self._updates and self._updates[0]["update_id"] < offset:
                    self._updates.popleft()
        allowed = params.get("allowed_updates")
        if isinstance(allowed, list):
            self.allowed_updates = frozenset(allowed) if allowed else None
        limit = params.get("limit")
        return min(max(limit, 1), 100) if isinstance(limit, int) else 100

    def take_updates(self, limit: int) -> list[dict[str, Any]]:
        """The earliest unconfirmed updates; they stay queued until an offset confirms them."""
        return [self._updates[i] for i in range(min(limit, len(self._updates)))]

    def _get_updates_now(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        return self.take_updates(self.start_get_updates(params))

    # ---------------------------------------------------------------- what users do

    def user_message(
        self, user_id: int, text: str, chat_id: int | None = None, reply_to: int | None = None
    ) -> Message:
        """A user writes `text` (a private chat by default); the bot gets it unless filtered."""
        user = self.user(user_id)
        chat = self.chat(user_id if chat_id is None else chat_id)
        if chat.is_private:
            if chat.id != user_id:
                raise ValueError(f"user {user_id} cannot write in the private chat {chat.id}")
            chat.opened, chat.blocked = True, False
        else:
            chat.members.add(user_id)
        if reply_to is not None:
            self.message(chat.id, reply_to)
        message = self._store(Message(
            message_id=self._new_message_id(chat.id), chat_id=chat.id, sender_id=user.id,
            from_bot=False, date=int(self.clock()), text=text,
            entities=tuple(find_bot_commands(text)), reply_to_message_id=reply_to,
        ), "message")
        if self._bot_sees(chat, message):
            self._enqueue("message", self.message_json(message))
        return message

    def _bot_sees(self, chat: Chat, message: Message) -> bool:
        if chat.is_private:
            return True
        if chat.bot_kicked:
            return False
        if not self.privacy_mode:
            return True
        # Privacy mode: commands, mentions of the bot and replies to the bot only.
        replied = self._messages[chat.id].get(message.reply_to_message_id or 0)
        return (
            any(e["type"] == "bot_command" for e in message.entities)
            or f"@{self.bot.username}".lower() in message.text.lower()
            or (replied is not None and replied.from_bot)
        )

    def press(self, user_id: int, chat_id: int, message_id: int, data: str) -> CallbackQuery:
        """A user taps a callback button carrying `data` (which need not be on the message)."""
        user = self.user(user_id)
        chat = self.chat(chat_id)
        if chat.is_private and chat.id != user_id:
            raise ValueError(f"user {user_id} cannot see the private chat {chat_id}")
        message = self.message(chat_id, message_id)
        if message.deleted:
            raise LookupError(f"message {chat_id}/{message_id} was deleted")
        if not chat.is_private:
            chat.members.add(user_id)
        query = CallbackQuery(
            id=str(self._next_query_id), user_id=user_id, chat_id=chat_id,
            message_id=message_id, data=data, created=self.clock(),
        )
        self._next_query_id += 1
        self.callbacks[query.id] = query
        delivered = self._enqueue("callback_query", {
            "id": query.id,
            "from": user.to_api(),
            "message": self.message_json(message),
            "chat_instance": str(abs(chat_id * 7_919 + 104_729)),
            "data": data,
        })
        if not delivered:
            allowed = sorted(self.allowed_updates or ())
            raise RuntimeError(f"callback_query is not among the bot's allowed_updates {allowed}")
        return query

    def user_delete_message(self, chat_id: int, message_id: int) -> None:
        """A user deletes a message for everyone; bots are not told about deletions."""
        message = self.message(chat_id, message_id)
        if not message.deleted:
            self._store(replace(message, deleted=True), "delete")

    def block_bot(self, user_id: int, blocked: bool = True) -> None:
        self.chat(user_id).blocked = blocked

    def kick_bot(self, chat_id: int) -> None:
        self.chat(chat_id).bot_kicked = True

    # ---------------------------------------------------------------- commands as users see them

    def commands(
        self, scope: str | dict[str, Any] = "default", language_code: str = ""
    ) -> list[Command]:
        scope_dict = {"type": scope} if isinstance(scope, str) else scope
        return list(self._commands.get((self._scope_key(scope_dict), language_code), ()))

    def visible_commands(self, user_id: int, chat_id: int | None = None) -> list[Command]:
        """The command menu a user sees in a chat, resolved in Telegram's documented order."""
        lang = self.user(user_id).language_code or ""
        chat = self.chat(user_id if chat_id is None else chat_id)
        if chat.is_private:
            keys: list[tuple[Any, ...]] = [("chat", chat.id), ("all_private_chats",)]
        else:
            admin = user_id in chat.admins
            keys = [("chat_member", chat.id, user_id)]
            keys += [("chat_administrators", chat.id)] if admin else []
            keys += [("chat", chat.id)]
            keys += [("all_chat_administrators",)] if admin else []
            keys += [("all_group_chats",)]
        keys.append(("default",))
        for key in keys:
            for language in ((lang, "") if lang else ("",)):
                if (key, language) in self._commands:
                    return list(self._commands[(key, language)])
        return []

    # ---------------------------------------------------------------- failures and limits

    def fail_next(
        self,
        method: str,
        times: int = 1,
        *,
        error_code: int = 500,
        description: str | None = None,
        retry_after: int | None = None,
        when: Callable[[dict[str, Any]], bool] | None = None,
    ) -> None:
        if description is None:
            description = (
                f"Too Many Requests: retry after {retry_after}" if error_code == 429
                else _DEFAULT_DESCRIPTIONS.get(error_code, "Internal Server Error")
            )
        if error_code == 429 and retry_after is None:
            raise ValueError("a 429 needs retry_after")
        self._failures.append(
            _Failure(method.lower(), times, error_code, description, retry_after, when)
        )

    def check_failure(self, method: str, params: dict[str, Any]) -> None:
        for rule in self._failures:
            if rule.method == method.lower() and (rule.when is None or rule.when(params)):
                rule.remaining -= 1
                if rule.remaining <= 0:
                    self._failures.remove(rule)
                raise ApiError(rule.error_code, rule.description, rule.retry_after)

    def _limit(self, method: str, chat: Chat) -> None:
        limits = self.rate_limits
        if method not in limits.methods:
            return
        windows: list[tuple[Hashable, int, float]] = []
        if limits.global_per_second is not None:
            windows.append(("global", limits.global_per_second, 1.0))
        if chat.is_private and limits.private_per_second is not None:
            windows.append((chat.id, limits.private_per_second, 1.0))
        if not chat.is_private and limits.group_per_minute is not None:
            windows.append((chat.id, limits.group_per_minute, 60.0))
        self._limiter.hit(windows, self.clock())

    # ---------------------------------------------------------------- Bot API methods

    def canonical_method(self, name: str) -> str | None:
        """Bot API method names are case-insensitive."""
        entry = self._methods.get(name.lower())
        return None if entry is None else entry[0]

    def call(self, method: str, params: dict[str, Any]) -> Any:
        return self._methods[method.lower()][1](params)

    def _chat_param(self, params: dict[str, Any], sending: bool = False) -> Chat:
        chat_id = params.get("chat_id")
        if chat_id is None or chat_id == "":
            raise bad_request("chat_id is empty")
        chat = self.chats.get(chat_id) if isinstance(chat_id, int) else None
        if chat is None:
            raise bad_request("chat not found")
        if chat.bot_kicked:
            raise ApiError(403, f"Forbidden: bot was kicked from the {chat.type} chat")
        if sending and chat.blocked:
            raise ApiError(403, "Forbidden: bot was blocked by the user")
        if sending and chat.is_private and not chat.opened:
            raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")
        return chat

    def _message_param(self, params: dict[str, Any], chat: Chat, missing: str) -> Message:
        message_id = params.get("message_id")
        if not isinstance(message_id, int):
            raise bad_request("message identifier is not specified")
        message = self._messages[chat.id].get(message_id)
        if message is None or message.deleted:
            raise bad_request(missing)
        return message

    def _text_param(self, params: dict[str, Any]) -> tuple[str, tuple[Entity, ...]]:
        raw = params.get("text")
        if raw is None or raw == "":
            raise bad_request("message text is empty")
        text = str(raw)
        entities = params.get("entities")
        parse_mode = str(params.get("parse_mode") or "").lower()
        if entities is not None:
            if not isinstance(entities, list) or not all(isinstance(e, dict) for e in entities):
                raise bad_request("can't parse entities JSON object")
            entities = sort_entities(entities)
        elif parse_mode == "html":
            try:
                text, entities = parse_html(text, self._mentioned_user)
            except EntityParseError as error:
                raise bad_request(f"can't parse entities: {error}") from None
        elif parse_mode in ("markdown", "markdownv2"):
            raise bad_request("the fake Telegram server supports parse_mode HTML only")
        elif parse_mode:
            raise bad_request("unsupported parse_mode")
        else:
            entities = []
        text, entities = trim(text, entities)
        if not text:
            raise bad_request("message text is empty")
        return text, tuple(entities)

    def _mentioned_user(self, user_id: int) -> Entity | None:
        user = self.users.get(user_id)
        return None if user is None else user.to_api()

    def _keyboard_param(self, params: dict[str, Any]) -> Keyboard:
        markup = params.get("reply_markup")
        if markup is None:
            return ()
        if not isinstance(markup, dict):
            raise bad_request("can't parse reply keyboard markup JSON object")
        if "inline_keyboard" not in markup:
            return ()  # reply keyboards are accepted but not shown under the message
        rows = markup["inline_keyboard"]
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
            raise bad_request(
                'Field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays'
            )
        return tuple(tuple(self._button(b) for b in row) for row in rows)

    @staticmethod
    def _button(button: Any) -> Button:
        if not isinstance(button, dict) or not isinstance(button.get("text"), str):
            raise bad_request("can't parse inline keyboard button: Field \"text\" must be of type "
                              "String")
        if "callback_data" in button:
            data = button["callback_data"]
            if not isinstance(data, str) or not (
                1 <= len(data.encode("utf-8")) <= MAX_CALLBACK_DATA_BYTES
            ):
                raise bad_request("BUTTON_DATA_INVALID")
            return Button(button["text"], callback_data=data)
        if "url" in button:
            return Button(button["text"], url=str(button["url"]))
        other_kinds = {"login_url", "switch_inline_query", "switch_inline_query_current_chat",
                       "switch_inline_query_chosen_chat", "callback_game", "pay", "web_app",
                       "copy_text"}
        if other_kinds & button.keys():
            return Button(button["text"])
        raise bad_request(
            "can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"
        )

    def _get_me(self, params: dict[str, Any]) -> dict[str, Any]:
        return {
            **self.bot.to_api(),
            "can_join_groups": True,
            "can_read_all_group_messages": not self.privacy_mode,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    def _send_message(self, params: dict[str, Any]) -> dict[str, Any]:
        text, entities = self._text_param(params)
        buttons = self._keyboard_param(params)
        chat = self._chat_param(params, sending=True)
        reply_to = params.get("reply_to_message_id")
        reply = params.get("reply_parameters")
        if isinstance(reply, dict):
            reply_to = reply.get("message_id")
        if reply_to is not None:
            replied = self._messages[chat.id].get(reply_to) if isinstance(reply_to, int) else None
            if replied is None or replied.deleted:
                allow = params.get("allow_sending_without_reply") or (
                    isinstance(reply, dict) and reply.get("allow_sending_without_reply")
                )
                if not allow:
                    raise bad_request("message to be replied not found")
                reply_to = None
        if len(text) > MAX_TEXT_LENGTH:
            raise bad_request("message is too long")
        self._limit("sendMessage", chat)
        message = self._store(Message(
            message_id=self._new_message_id(chat.id), chat_id=chat.id, sender_id=self.bot.id,
            from_bot=True, date=int(self.clock()), text=text, entities=entities,
            buttons=buttons, reply_to_message_id=reply_to,
        ), "message")
        return self.message_json(message)

    def _edit(self, method: str, params: dict[str, Any], text_too: bool) -> dict[str, Any]:
        if params.get("inline_message_id"):
            raise bad_request("MESSAGE_ID_INVALID")  # inline messages are not emulated
        text_and_entities = self._text_param(params) if text_too else None
        buttons = self._keyboard_param(params)
        chat = self._chat_param(params)
        message = self._message_param(params, chat, "message to edit not found")
        if not message.from_bot:
            raise bad_request("message can't be edited")
        text, entities = text_and_entities or (message.text, message.entities)
        if len(text) > MAX_TEXT_LENGTH:
            raise bad_request("message is too long")
        if (text, entities, buttons) == (message.text, message.entities, message.buttons):
            raise bad_request(NOT_MODIFIED)
        self._limit(method, chat)
        edited = self._store(replace(
            message, text=text, entities=entities, buttons=buttons,
            edit_count=message.edit_count + 1, edit_date=int(self.clock()),
        ), "edit")
        return self.message_json(edited)

    def _edit_message_text(self, params: dict[str, Any]) -> dict[str, Any]:
        return self._edit("editMessageText", params, text_too=True)

    def _edit_message_reply_markup(self, params: dict[str, Any]) -> dict[str, Any]:
        return self._edit("editMessageReplyMarkup", params, text_too=False)

    def _delete_message(self, params: dict[str, Any]) -> bool:
        chat = self._chat_param(params)
        message = self._message_param(params, chat, "message to delete not found")
        if not message.from_bot and not chat.is_private and not chat.bot_is_admin:
            raise bad_request("message can't be deleted")
        self._store(replace(message, deleted=True), "delete")
        return True

    def _answer_callback_query(self, params: dict[str, Any]) -> bool:
        query = self.callbacks.get(str(params.get("callback_query_id")))
        if (
            query is None
            or query.answer is not None
            or self.clock() - query.created > self.callback_ttl
        ):
            raise bad_request(QUERY_TOO_OLD)
        text = params.get("text")
        if text is not None and len(str(text)) > MAX_CALLBACK_ANSWER_LENGTH:
            raise bad_request("MESSAGE_TOO_LONG")
        cache_time = params.get("cache_time")
        query.answer = CallbackAnswer(
            text=None if text in (None, "") else str(text),
            show_alert=bool(params.get("show_alert")),
            url=params.get("url"),
            cache_time=cache_time if isinstance(cache_time, int) else 0,
        )
        self._notify(Change("answer", query.chat_id, query.message_id, query.answer))
        return True

    def _scope_key(self, scope: Any) -> tuple[Any, ...]:
        if scope is None:
            return ("default",)
        if not isinstance(scope, dict):
            raise bad_request("can't parse scope JSON object")
        kind = scope.get("type")
        if kind in _GLOBAL_SCOPES:
            return (kind,)
        if kind not in ("chat", "chat_administrators", "chat_member"):
            raise bad_request("unsupported bot command scope type")
        chat = self._chat_param(scope)
        if kind == "chat_member":
            user_id = scope.get("user_id")
            if not isinstance(user_id, int) or user_id not in self.users:
                raise bad_request("user not found")
            return (kind, chat.id, user_id)
        return (kind, chat.id)

    def _commands_key(self, params: dict[str, Any]) -> tuple[tuple[Any, ...], str]:
        scope = params.get("scope")
        if isinstance(scope, dict):
            scope = normalize_params(scope)
        return self._scope_key(scope), str(params.get("language_code") or "")

    def _set_my_commands(self, params: dict[str, Any]) -> bool:
        commands = params.get("commands")
        if not isinstance(commands, list):
            raise bad_request("can't parse commands JSON object")
        if len(commands) > 100:
            raise bad_request("BOT_COMMANDS_TOO_MUCH")
        parsed = []
        for item in commands:
            if not isinstance(item, dict):
                raise bad_request("can't parse commands JSON object")
            command, description = item.get("command"), item.get("description")
            if not isinstance(command, str) or not _COMMAND_RE.fullmatch(command):
                raise bad_request("BOT_COMMAND_INVALID")
            if not isinstance(description, str) or not 1 <= len(description) <= 256:
                raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
            parsed.append(Command(command, description))
        key = self._commands_key(params)
        if parsed:
            self._commands[key] = tuple(parsed)
        else:
            self._commands.pop(key, None)
        return True

    def _get_my_commands(self, params: dict[str, Any]) -> list[dict[str, str]]:
        return [c._asdict() for c in self._commands.get(self._commands_key(params), ())]

    def _delete_my_commands(self, params: dict[str, Any]) -> bool:
        self._commands.pop(self._commands_key(params), None)
        return True

    def _get_chat(self, params: dict[str, Any]) -> dict[str, Any]:
        chat = self._chat_param(params)
        data = {
            **chat.to_api(),
            "accent_color_id": 0,
            "max_reaction_count": 11,
            "accepted_gift_types": {
                "unlimited_gifts": False, "limited_gifts": False, "unique_gifts": False,
                "premium_subscription": False, "gifts_from_channels": False,
            },
        }
        pinned = self._messages[chat.id].get(chat.pinned_message_id or 0)
        if pinned is not None and not pinned.deleted:
            data["pinned_message"] = self.message_json(pinned)
        return data

    def _send_chat_action(self, params: dict[str, Any]) -> bool:
        chat = self._chat_param(params, sending=True)
        action = params.get("action")
        if action not in CHAT_ACTIONS:
            raise bad_request("wrong parameter action in request")
        self._notify(Change("action", chat.id, None, action))
        return True

    def _pin_chat_message(self, params: dict[str, Any]) -> bool:
        chat = self._chat_param(params)
        message = self._message_param(params, chat, "message to pin not found")
        chat.pinned_message_id = message.message_id
        self._notify(Change("pin", chat.id, message.message_id, message))
        return True

    def _unpin_chat_message(self, params: dict[str, Any]) -> bool:
        chat = self._chat_param(params)
        if params.get("message_id") in (None, chat.pinned_message_id):
            chat.pinned_message_id = None
            self._notify(Change("pin", chat.id, None, None))
        return True

    def _set_webhook(self, params: dict[str, Any]) -> bool:
        self.webhook_url = str(params.get("url") or "")
        if params.get("drop_pending_updates"):
            self._updates.clear()
        return True

    def _delete_webhook(self, params: dict[str, Any]) -> bool:
        self.webhook_url = ""
        if params.get("drop_pending_updates"):
            self._updates.clear()
        return True

    def _get_webhook_info(self, params: dict[str, Any]) -> dict[str, Any]:
        return {
            "url": self.webhook_url,
            "has_custom_certificate": False,
            "pending_update_count": len(self._updates),
        }
