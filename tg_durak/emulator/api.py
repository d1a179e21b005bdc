"""The Bot API methods the fake server answers, in one table: method name -> handler.

A handler takes the decoded request parameters and returns the Bot API `result`, or raises
`ApiError` with Telegram's own error code and description. No I/O and no asyncio.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from tg_durak.emulator.inline import check_inline_keyboard
from tg_durak.emulator.limits import RateLimiter
from tg_durak.emulator.markup import MAX_TEXT_LENGTH
from tg_durak.emulator.members import bot_status, member_json
from tg_durak.emulator.models import (
    CallbackAnswer,
    Change,
    ChangeKind,
    Chat,
    Message,
    bad_request,
)
from tg_durak.emulator.params import (
    callback_url_param,
    chat_param,
    check_keyboard_fits,
    commands_param,
    keyboard_param,
    menu_param,
    message_param,
    text_param,
    thread_param,
    user_param,
)
from tg_durak.emulator.updates import Webhook
from tg_durak.emulator.world import World

NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly the same "
    "as a current content and reply markup of the message"
)
QUERY_TOO_OLD = "query is too old and response timeout expired or query ID is invalid"
MAX_CALLBACK_ANSWER_LENGTH = 200
CHAT_ACTIONS = frozenset({
    "typing", "upload_photo", "record_video", "upload_video", "record_voice", "upload_voice",
    "upload_document", "choose_sticker", "find_location", "record_video_note",
    "upload_video_note",
})

ApiMethod = Callable[["BotApi", dict[str, Any]], Any]
# Telegram method names are case-insensitive: lower-case name -> (canonical name, handler).
_METHODS: dict[str, tuple[str, ApiMethod]] = {}


def _method(name: str) -> Callable[[ApiMethod], ApiMethod]:
    """Register the decorated BotApi method as the handler of the Bot API method `name`."""

    def register(handler: ApiMethod) -> ApiMethod:
        _METHODS[name.lower()] = (name, handler)
        return handler

    return register


def webhook_param(params: dict[str, Any], url: str) -> Webhook:
    """setWebhook's url (https, or http to this machine: the emulator's own), secret_token and
    max_connections, checked as Telegram checks them."""
    parts = urlsplit(url)
    local = parts.scheme == "http" and parts.hostname in ("127.0.0.1", "localhost")
    if not (parts.scheme == "https" or local) or not parts.hostname:
        raise bad_request("bad webhook: An HTTPS URL must be provided for webhook")
    secret = params.get("secret_token")
    if secret is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", str(secret)):
        raise bad_request("secret token contains unallowed characters")
    most = params.get("max_connections", 40)
    if not isinstance(most, int) or not 1 <= most <= 100:
        raise bad_request("bad webhook: max_connections must be between 1 and 100")
    return Webhook(url, None if secret is None else str(secret), most)


def canonical_method(name: str) -> str | None:
    """The method's canonical spelling, or None if the emulator does not know it."""
    entry = _METHODS.get(name.lower())
    return None if entry is None else entry[0]


class BotApi:
    """The bot's side of the world: each Bot API method, checked the way Telegram checks it."""

    def __init__(self, world: World, limiter: RateLimiter, callback_ttl: float = 15.0) -> None:
        self.world = world
        self.limiter = limiter
        self.callback_ttl = callback_ttl

    def call(self, method: str, params: dict[str, Any]) -> Any:
        """Run a known method (see canonical_method) with decoded parameters."""
        return _METHODS[method.lower()][1](self, params)

    # ---------------------------------------------------------------- the bot and its updates

    @_method("getMe")
    def _get_me(self, params: dict[str, Any]) -> dict[str, Any]:
        return {
            **self.world.bot.to_api(),
            "can_join_groups": True,
            "can_read_all_group_messages": not self.world.privacy_mode,
            "supports_inline_queries": self.world.inline.enabled,
            "can_connect_to_business": False,
            "has_main_web_app": self.world.web_apps.main is not None,
        }

    @_method("getUpdates")
    def _get_updates(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        # Without waiting: the server's long poll is asynchronous and lives in FakeTelegram.
        updates = self.world.updates
        return updates.take(updates.start_poll(params))

    @_method("setWebhook")
    def _set_webhook(self, params: dict[str, Any]) -> bool:
        url = str(params.get("url") or "")
        if not url:   # Telegram: an empty url removes the webhook
            return self._delete_webhook(params)
        updates = self.world.updates
        updates.webhook = webhook_param(params, url)
        allowed = params.get("allowed_updates")
        if isinstance(allowed, list):
            updates.allowed = frozenset(allowed) if allowed else None
        if params.get("drop_pending_updates"):
            updates.clear()
        return True

    @_method("deleteWebhook")
    def _delete_webhook(self, params: dict[str, Any]) -> bool:
        self.world.updates.webhook = None
        if params.get("drop_pending_updates"):
            self.world.updates.clear()
        return True

    @_method("getWebhookInfo")
    def _get_webhook_info(self, params: dict[str, Any]) -> dict[str, Any]:
        updates, hook = self.world.updates, self.world.updates.webhook
        info: dict[str, Any] = {
            "url": hook.url if hook else "",
            "has_custom_certificate": False,
            "pending_update_count": len(updates.pending),
        }
        if hook is not None:
            info["max_connections"] = hook.max_connections
            if updates.allowed is not None:
                info["allowed_updates"] = sorted(updates.allowed)
            if hook.last_error_date is not None:
                info["last_error_date"] = hook.last_error_date
                info["last_error_message"] = hook.last_error_message
        return info

    # ---------------------------------------------------------------- messages

    @_method("sendMessage")
    def _send_message(self, params: dict[str, Any]) -> dict[str, Any]:
        text, entities = text_param(self.world, params)
        buttons = keyboard_param(params)
        chat = chat_param(self.world, params, sending=True)
        check_keyboard_fits(chat, buttons)
        reply_to = self._reply_target(params, chat)
        thread = thread_param(self.world, params, chat, reply_to)
        if len(text) > MAX_TEXT_LENGTH:
            raise bad_request("message is too long")
        message_id = self.world.new_message_id(chat.id)
        self.limiter.check("sendMessage", chat, message_id)
        message = self.world.store(Message(
            message_id=message_id, chat_id=chat.id, sender_id=self.world.bot.id, from_bot=True,
            date=int(self.world.clock()), text=text, entities=entities, buttons=buttons,
            reply_to_message_id=reply_to, thread_id=thread,
        ), ChangeKind.MESSAGE)
        return self.world.message_json(message)

    def _reply_target(self, params: dict[str, Any], chat: Chat) -> int | None:
        """The message a new one replies to, from reply_to_message_id or reply_parameters."""
        reply_to = params.get("reply_to_message_id")
        reply = params.get("reply_parameters")
        if isinstance(reply, dict):
            reply_to = reply.get("message_id")
        if reply_to is None:
            return None
        if isinstance(reply_to, int) and self.world.live_message(chat.id, reply_to) is not None:
            return reply_to
        allow = params.get("allow_sending_without_reply") or (
            isinstance(reply, dict) and reply.get("allow_sending_without_reply")
        )
        if not allow:
            raise bad_request("message to be replied not found")
        return None

    @_method("editMessageText")
    def _edit_message_text(self, params: dict[str, Any]) -> dict[str, Any] | bool:
        return self._edit("editMessageText", params, text_too=True)

    @_method("editMessageReplyMarkup")
    def _edit_message_reply_markup(self, params: dict[str, Any]) -> dict[str, Any] | bool:
        return self._edit("editMessageReplyMarkup", params, text_too=False)

    def _edit(self, method: str, params: dict[str, Any], text_too: bool) -> dict[str, Any] | bool:
        text_and_entities = text_param(self.world, params) if text_too else None
        buttons = keyboard_param(params)
        inline = bool(params.get("inline_message_id"))
        if inline:   # a message sent via the bot: edited by its id alone, wherever it is
            chat, message = self.world.inline.message(params)
            check_inline_keyboard(buttons)
        else:
            chat = chat_param(self.world, params)
            check_keyboard_fits(chat, buttons)
            message = message_param(self.world, params, chat, "message to edit not found")
            if not message.from_bot:
                raise bad_request("message can't be edited")
        text, entities = text_and_entities or (message.text, message.entities)
        if len(text) > MAX_TEXT_LENGTH:
            raise bad_request("message is too long")
        if (text, entities, buttons) == (message.text, message.entities, message.buttons):
            raise bad_request(NOT_MODIFIED)
        self.limiter.check(method, chat, message.message_id, inline=inline)
        edited = self.world.store(replace(
            message, text=text, entities=entities, buttons=buttons,
            edit_count=message.edit_count + 1, edit_date=int(self.world.clock()),
        ), ChangeKind.EDIT)
        return True if inline else self.world.message_json(edited)

    @_method("answerInlineQuery")
    def _answer_inline_query(self, params: dict[str, Any]) -> bool:
        return self.world.inline.answer(params, lambda p: text_param(self.world, p),
                                        keyboard_param)

    @_method("deleteMessage")
    def _delete_message(self, params: dict[str, Any]) -> bool:
        chat = chat_param(self.world, params)
        message = message_param(self.world, params, chat, "message to delete not found")
        if not message.from_bot and not chat.is_private and not chat.bot_is_admin:
            raise bad_request("message can't be deleted")
        self.world.store(replace(message, deleted=True), ChangeKind.DELETE)
        return True

    @_method("answerCallbackQuery")
    def _answer_callback_query(self, params: dict[str, Any]) -> bool:
        query = self.world.callbacks.get(str(params.get("callback_query_id")))
        if (
            query is None
            or query.answer is not None
            or self.world.clock() - query.created > self.callback_ttl
        ):
            raise bad_request(QUERY_TOO_OLD)
        text = params.get("text")
        if text is not None and len(str(text)) > MAX_CALLBACK_ANSWER_LENGTH:
            raise bad_request("MESSAGE_TOO_LONG")
        url = callback_url_param(self.world, params)
        cache_time = params.get("cache_time")
        query.answer = CallbackAnswer(
            text=None if text in (None, "") else str(text),
            show_alert=bool(params.get("show_alert")),
            url=url,
            cache_time=cache_time if isinstance(cache_time, int) else 0,
        )
        self.world.notify(Change(ChangeKind.ANSWER, query.chat_id, query.message_id, query.answer))
        return True

    # ---------------------------------------------------------------- command menus

    @_method("setMyCommands")
    def _set_my_commands(self, params: dict[str, Any]) -> bool:
        commands = commands_param(params)
        self.world.command_menus.set(*menu_param(self.world, params), commands)
        return True

    @_method("getMyCommands")
    def _get_my_commands(self, params: dict[str, Any]) -> list[dict[str, str]]:
        menu = self.world.command_menus.get(*menu_param(self.world, params))
        return [c._asdict() for c in menu]

    @_method("deleteMyCommands")
    def _delete_my_commands(self, params: dict[str, Any]) -> bool:
        self.world.command_menus.delete(*menu_param(self.world, params))
        return True

    # ---------------------------------------------------------------- chats

    @_method("getChat")
    def _get_chat(self, params: dict[str, Any]) -> dict[str, Any]:
        chat = chat_param(self.world, params)
        data = {
            **chat.to_api(),
            "accent_color_id": 0,
            "max_reaction_count": 11,
            "accepted_gift_types": {
                "unlimited_gifts": False, "limited_gifts": False, "unique_gifts": False,
                "premium_subscription": False, "gifts_from_channels": False,
            },
        }
        pinned = self.world.live_message(chat.id, chat.pinned_message_id or 0)
        if pinned is not None:
            data["pinned_message"] = self.world.message_json(pinned)
        return data

    @_method("getChatMember")
    def _get_chat_member(self, params: dict[str, Any]) -> dict[str, Any]:
        chat = chat_param(self.world, params)
        user = user_param(self.world, params)
        status = bot_status(chat) if user.id == self.world.bot.id else chat.status_of(user.id)
        return member_json(user, status, chat)

    @_method("sendChatAction")
    def _send_chat_action(self, params: dict[str, Any]) -> bool:
        chat = chat_param(self.world, params, sending=True)
        action = params.get("action")
        if action not in CHAT_ACTIONS:
            raise bad_request("wrong parameter action in request")
        self.world.notify(Change(ChangeKind.ACTION, chat.id, None, action))
        return True

    @_method("pinChatMessage")
    def _pin_chat_message(self, params: dict[str, Any]) -> bool:
        chat = chat_param(self.world, params)
        message = message_param(self.world, params, chat, "message to pin not found")
        chat.pinned_message_id = message.message_id
        self.world.notify(Change(ChangeKind.PIN, chat.id, message.message_id, message))
        return True

    @_method("unpinChatMessage")
    def _unpin_chat_message(self, params: dict[str, Any]) -> bool:
        chat = chat_param(self.world, params)
        if params.get("message_id") in (None, chat.pinned_message_id):
            chat.pinned_message_id = None
            self.world.notify(Change(ChangeKind.PIN, chat.id, None, None))
        return True
