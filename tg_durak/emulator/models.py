"""The fake Bot API's data: users, chats, messages, buttons, and what the server reports."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple

from aiogram.enums import ChatMemberStatus, ChatType

from tg_durak.emulator.markup import Entity, to_html


class ApiError(Exception):
    """A Bot API error response: HTTP status == error_code.

    `retry_after` and `migrate_to_chat_id` become the response's ResponseParameters.
    """

    def __init__(
        self,
        error_code: int,
        description: str,
        retry_after: int | None = None,
        *,
        migrate_to_chat_id: int | None = None,
    ):
        super().__init__(f"{error_code} {description}")
        self.error_code = error_code
        self.description = description
        self.retry_after = retry_after
        self.migrate_to_chat_id = migrate_to_chat_id

    def payload(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "ok": False, "error_code": self.error_code, "description": self.description,
        }
        parameters = {
            key: value
            for key, value in (
                ("migrate_to_chat_id", self.migrate_to_chat_id), ("retry_after", self.retry_after)
            )
            if value is not None
        }
        if parameters:
            body["parameters"] = parameters
        return body


SUPERGROUP_IDS_BELOW = -1_000_000_000_000  # supergroup ids are -100 followed by the channel id


def chat_instance(chat_id: int) -> str:
    """The chat's id as Telegram hides it from bots in callback queries and Mini App data: stable
    per chat, not the chat id."""
    return str(abs(chat_id * 7_919 + 104_729))


def bad_request(what: str) -> ApiError:
    return ApiError(400, f"Bad Request: {what}")


def too_many_requests(retry_after: int) -> ApiError:
    return ApiError(429, f"Too Many Requests: retry after {retry_after}", retry_after)


@dataclass(frozen=True)
class User:
    id: int
    first_name: str
    last_name: str | None = None
    username: str | None = None
    language_code: str | None = "en"
    is_bot: bool = False

    def to_api(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        for key in ("last_name", "username", "language_code"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        return data


@dataclass(frozen=True)
class InlineButton:
    text: str
    callback_data: str | None = None
    url: str | None = None
    web_app: str | None = None  # the Mini App's URL a tap opens

    def to_api(self) -> dict[str, Any]:
        data: dict[str, Any] = {"text": self.text}
        if self.callback_data is not None:
            data["callback_data"] = self.callback_data
        if self.url is not None:
            data["url"] = self.url
        if self.web_app is not None:
            data["web_app"] = {"url": self.web_app}
        return data


InlineKeyboard = tuple[tuple[InlineButton, ...], ...]


@dataclass(frozen=True)
class Message:
    """One message as it is now. Immutable: an edit or a deletion stores a new version."""

    message_id: int
    chat_id: int
    sender_id: int
    from_bot: bool
    date: int
    text: str
    entities: tuple[Entity, ...] = ()
    buttons: InlineKeyboard = ()
    edit_count: int = 0
    edit_date: int | None = None
    deleted: bool = False
    reply_to_message_id: int | None = None
    thread_id: int | None = None  # the forum topic the message is in (None: General)
    # A service message's own fields instead of text, e.g. {"migrate_to_chat_id": -100...}
    service: dict[str, Any] | None = None
    # A message a person sent "via @bot" by choosing one of its inline results: the bot edits
    # it by this id alone (it need not be in the chat).
    inline_id: str | None = None
    # A forwarded message: whom it came from (forward_origin), as a user or, where his privacy
    # settings hide him, only as a name.
    forwarded_from: int | None = None
    forwarded_name: str | None = None

    @property
    def html(self) -> str:
        return to_html(self.text, list(self.entities))

    def button(self, text: str) -> InlineButton:
        for row in self.buttons:
            for button in row:
                if button.text == text:
                    return button
        raise LookupError(f"no button {text!r} on message {self.chat_id}/{self.message_id}")


@dataclass(frozen=True)
class CallbackAnswer:
    text: str | None
    show_alert: bool
    url: str | None = None
    cache_time: int = 0


@dataclass
class CallbackQuery:
    id: str
    user_id: int
    chat_id: int
    message_id: int
    data: str
    created: float
    answer: CallbackAnswer | None = None
    inline_id: str | None = None   # a tap on a message sent via the bot (inline mode)


class ChangeKind(StrEnum):
    MESSAGE = "message"   # a new message from the bot or a user
    EDIT = "edit"
    DELETE = "delete"
    PIN = "pin"
    ACTION = "action"     # detail: the chat action
    ANSWER = "answer"     # detail: the CallbackAnswer


@dataclass(frozen=True)
class Change:
    """A visible change in a chat, for subscribers such as the terminal client."""

    kind: ChangeKind
    chat_id: int
    message_id: int | None = None
    detail: Any = None


class Command(NamedTuple):
    command: str
    description: str


@dataclass
class Chat:
    id: int
    # Telegram's text of a ChatType: "private", "group" or "supergroup" (an aiogram ChatType
    # would read "ChatType.GROUP" in an f-string)
    type: str
    title: str | None = None
    user: User | None = None  # the other side of a private chat
    members: set[int] = field(default_factory=set)
    admins: set[int] = field(default_factory=set)  # the creator is among them
    bot_is_admin: bool = False
    opened: bool = False  # private: the user has written to the bot
    blocked: bool = False  # private: the user has blocked the bot
    bot_kicked: bool = False  # group: the bot was removed
    pinned_message_id: int | None = None
    creator_id: int | None = None
    banned: set[int] = field(default_factory=set)  # removed members who may not come back
    is_forum: bool = False
    topics: dict[int, str] = field(default_factory=dict)  # thread id -> name
    migrated_to: int | None = None  # a basic group upgraded to this supergroup
    migrated_from: int | None = None  # the basic group this supergroup replaced
    dialog: bool = False  # a private chat between two people: the bot is not in it

    @property
    def is_private(self) -> bool:
        return self.type == ChatType.PRIVATE

    def status_of(self, user_id: int) -> ChatMemberStatus:
        """The user's ChatMember status here: creator, administrator, member, left or kicked."""
        if user_id == self.creator_id:
            return ChatMemberStatus.CREATOR
        if user_id in self.admins:
            return ChatMemberStatus.ADMINISTRATOR
        if user_id in self.banned:
            return ChatMemberStatus.KICKED
        return ChatMemberStatus.MEMBER if user_id in self.members else ChatMemberStatus.LEFT

    def to_api(self) -> dict[str, Any]:
        if self.user is None:
            data: dict[str, Any] = {"id": self.id, "type": self.type, "title": self.title}
            if self.is_forum:
                data["is_forum"] = True
            return data
        data = {"id": self.id, "type": self.type, "first_name": self.user.first_name}
        for key in ("last_name", "username"):
            if getattr(self.user, key) is not None:
                data[key] = getattr(self.user, key)
        return data

