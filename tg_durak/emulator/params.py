"""Decoding and checking Bot API request parameters, with Telegram's own error texts."""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

from tg_durak.emulator.commands import ScopeKey
from tg_durak.emulator.links import is_web_app_url, start_link_payload
from tg_durak.emulator.markup import Entity, EntityParseError, parse_html, sort_entities, trim
from tg_durak.emulator.models import (
    ApiError,
    Chat,
    Command,
    InlineButton,
    InlineKeyboard,
    Message,
    User,
    bad_request,
)
from tg_durak.emulator.world import World

MAX_CALLBACK_DATA_BYTES = 64
UPGRADED = "group chat was upgraded to a supergroup chat"
_INT_PARAMS = frozenset({
    "message_id", "user_id", "offset", "limit", "timeout", "cache_time", "reply_to_message_id",
    "message_thread_id", "max_connections",
})
_BOOL_PARAMS = frozenset({
    "show_alert", "drop_pending_updates", "is_personal", "disable_notification", "protect_content",
    "disable_web_page_preview", "allow_sending_without_reply",
})
_JSON_PARAMS = frozenset({
    "reply_markup", "entities", "scope", "commands", "allowed_updates", "reply_parameters",
    "link_preview_options", "results", "button",
})
_COMMAND_RE = re.compile(r"[a-z0-9_]{1,32}")
_GLOBAL_SCOPES = frozenset(
    {"default", "all_private_chats", "all_group_chats", "all_chat_administrators"}
)
# Buttons that do something the emulator does not model; they are kept, without an action.
_OTHER_BUTTON_KINDS = frozenset({
    "login_url", "switch_inline_query", "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat", "callback_game", "pay", "copy_text",
})


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


def chat_param(world: World, params: dict[str, Any], sending: bool = False) -> Chat:
    """The chat named by chat_id, if the bot may act there (`sending`: may write there)."""
    chat_id = params.get("chat_id")
    if chat_id is None or chat_id == "":
        raise bad_request("chat_id is empty")
    chat = world.chats.get(chat_id) if isinstance(chat_id, int) else None
    if chat is None or chat.dialog:   # the bot is in no chat between two people
        raise bad_request("chat not found")
    if chat.migrated_to is not None:
        raise ApiError(400, f"Bad Request: {UPGRADED}", migrate_to_chat_id=chat.migrated_to)
    if chat.bot_kicked:
        raise ApiError(403, f"Forbidden: bot was kicked from the {chat.type} chat")
    if sending and chat.blocked:
        raise ApiError(403, "Forbidden: bot was blocked by the user")
    if sending and chat.is_private and not chat.opened:
        raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")
    return chat


def callback_url_param(world: World, params: dict[str, Any]) -> str | None:
    """answerCallbackQuery's url: only a t.me link to this bot (games are not emulated)."""
    url = params.get("url")
    if url is None or url == "":
        return None
    if not isinstance(url, str) or start_link_payload(url, world.bot.username or "") is None:
        raise bad_request("URL_INVALID")
    return url


def user_param(world: World, params: dict[str, Any]) -> User:
    user_id = params.get("user_id")
    if not isinstance(user_id, int):
        raise bad_request("invalid user_id specified")
    if user_id == world.bot.id:
        return world.bot
    user = world.users.get(user_id)
    if user is None:
        raise bad_request("user not found")
    return user


def thread_param(
    world: World, params: dict[str, Any], chat: Chat, reply_to: int | None
) -> int | None:
    """The forum topic a new message goes to: message_thread_id, else the replied message's.

    Outside forums the parameter is ignored (reply threads of supergroups are not emulated).
    """
    replied = None if reply_to is None else world.live_message(chat.id, reply_to)
    replied_thread = None if replied is None else replied.thread_id
    thread = params.get("message_thread_id")
    if not chat.is_forum or thread is None:
        return replied_thread
    if thread not in chat.topics:
        raise bad_request("message thread not found")
    if replied is not None and replied_thread != thread:
        raise bad_request("message to be replied not found")
    return thread


def message_param(world: World, params: dict[str, Any], chat: Chat, missing: str) -> Message:
    """The live message named by message_id in `chat`; `missing`: the error if there is none."""
    message_id = params.get("message_id")
    if not isinstance(message_id, int):
        raise bad_request("message identifier is not specified")
    message = world.live_message(chat.id, message_id)
    if message is None:
        raise bad_request(missing)
    return message


def text_param(world: World, params: dict[str, Any]) -> tuple[str, tuple[Entity, ...]]:
    """The message text and its entities, from `entities` or parse_mode HTML."""
    raw = params.get("text")
    if raw is None or raw == "":
        raise bad_request("message text is empty")
    text, entities = _formatted(world, str(raw), params)
    text, entities = trim(text, entities)
    if not text:
        raise bad_request("message text is empty")
    return text, tuple(entities)


def _formatted(world: World, text: str, params: dict[str, Any]) -> tuple[str, list[Entity]]:
    entities = params.get("entities")
    parse_mode = str(params.get("parse_mode") or "").lower()
    if entities is not None:
        if not isinstance(entities, list) or not all(isinstance(e, dict) for e in entities):
            raise bad_request("can't parse entities JSON object")
        return text, sort_entities(entities)
    if parse_mode == "html":
        try:
            return parse_html(text, lambda user_id: _mentioned_user(world, user_id))
        except EntityParseError as error:
            raise bad_request(f"can't parse entities: {error}") from None
    if parse_mode in ("markdown", "markdownv2"):
        raise bad_request("the fake Telegram server supports parse_mode HTML only")
    if parse_mode:
        raise bad_request("unsupported parse_mode")
    return text, []


def _mentioned_user(world: World, user_id: int) -> Entity | None:
    user = world.users.get(user_id)
    return None if user is None else user.to_api()


def keyboard_param(params: dict[str, Any]) -> InlineKeyboard:
    """The inline keyboard in reply_markup (other keyboards are accepted but not shown)."""
    markup = params.get("reply_markup")
    if markup is None:
        return ()
    if not isinstance(markup, dict):
        raise bad_request("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" not in markup:
        return ()
    rows = markup["inline_keyboard"]
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise bad_request(
            'Field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays'
        )
    return tuple(tuple(_button(b) for b in row) for row in rows)


def _button(button: Any) -> InlineButton:
    if not isinstance(button, dict) or not isinstance(button.get("text"), str):
        raise bad_request("can't parse inline keyboard button: Field \"text\" must be of type "
                          "String")
    if "callback_data" in button:
        data = button["callback_data"]
        if not isinstance(data, str) or not (
            1 <= len(data.encode("utf-8")) <= MAX_CALLBACK_DATA_BYTES
        ):
            raise bad_request("BUTTON_DATA_INVALID")
        return InlineButton(button["text"], callback_data=data)
    if "url" in button:
        return InlineButton(button["text"], url=str(button["url"]))
    if "web_app" in button:
        return InlineButton(button["text"], web_app=_web_app_url(button["web_app"]))
    if _OTHER_BUTTON_KINDS & button.keys():
        return InlineButton(button["text"])
    raise bad_request(
        "can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"
    )


def _web_app_url(web_app: Any) -> str:
    url = web_app.get("url") if isinstance(web_app, dict) else None
    if not isinstance(url, str) or not url:
        raise bad_request("can't parse inline keyboard button: Field \"url\" must be of type "
                          "String")
    if not is_web_app_url(url):
        raise bad_request(f"inline keyboard button Web App URL '{url}' is invalid: Only HTTPS "
                          "links are allowed")
    return url


def check_keyboard_fits(chat: Chat, buttons: InlineKeyboard) -> None:
    """Mini App buttons open in private chats only: Telegram refuses them elsewhere."""
    if not chat.is_private and any(b.web_app is not None for row in buttons for b in row):
        raise bad_request("BUTTON_TYPE_INVALID")


def scope_key(world: World, scope: Any) -> ScopeKey:
    """The key of a BotCommandScope object (None: the default scope)."""
    if scope is None:
        return ("default",)
    if not isinstance(scope, dict):
        raise bad_request("can't parse scope JSON object")
    kind = scope.get("type")
    if kind in _GLOBAL_SCOPES:
        return (kind,)
    if kind not in ("chat", "chat_administrators", "chat_member"):
        raise bad_request("unsupported bot command scope type")
    chat = chat_param(world, scope)
    if kind == "chat_member":
        user_id = scope.get("user_id")
        if not isinstance(user_id, int) or user_id not in world.users:
            raise bad_request("user not found")
        return (kind, chat.id, user_id)
    return (kind, chat.id)


def menu_param(world: World, params: dict[str, Any]) -> tuple[ScopeKey, str]:
    """The (scope, language_code) a *MyCommands call is about."""
    scope = params.get("scope")
    if isinstance(scope, dict):
        scope = normalize_params(scope)
    return scope_key(world, scope), str(params.get("language_code") or "")


def commands_param(params: dict[str, Any]) -> list[Command]:
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
    return parsed
