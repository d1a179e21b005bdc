"""Opening a Mini App as a Telegram client does: the URL it loads, with the launch data signed.

A web_app button on a message, or a t.me link with `startapp`, opens the app's URL with
`#tgWebAppData=<initData>&tgWebAppVersion=…&tgWebAppPlatform=…&tgWebAppThemeParams=…` appended;
initData is a query string that Telegram signs with the bot's token, so that the app's server can
tell who opened it (https://core.telegram.org/bots/webapps#validating-data-received-via-the-mini-app).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

from aiogram.enums import ChatType

from tg_durak.emulator.links import start_app_link
from tg_durak.emulator.models import Chat, InlineButton, Message, User, chat_instance
from tg_durak.emulator.world import World

WEB_APP_VERSION = "8.0"
PLATFORM = "web"
# Telegram Web's own colours: what an app gets unless a test asks for another theme.
LIGHT_THEME: dict[str, str] = {
    "bg_color": "#ffffff", "text_color": "#000000", "hint_color": "#707579",
    "link_color": "#3390ec", "button_color": "#3390ec", "button_text_color": "#ffffff",
    "secondary_bg_color": "#f4f4f5", "header_bg_color": "#ffffff",
    "accent_text_color": "#3390ec", "section_bg_color": "#ffffff",
    "section_header_text_color": "#3390ec", "subtitle_text_color": "#707579",
    "destructive_text_color": "#e53935", "bottom_bar_bg_color": "#ffffff",
}
DARK_THEME: dict[str, str] = {
    "bg_color": "#212121", "text_color": "#ffffff", "hint_color": "#aaaaaa",
    "link_color": "#8774e1", "button_color": "#8774e1", "button_text_color": "#ffffff",
    "secondary_bg_color": "#181818", "header_bg_color": "#212121",
    "accent_text_color": "#8774e1", "section_bg_color": "#212121",
    "section_header_text_color": "#8774e1", "subtitle_text_color": "#aaaaaa",
    "destructive_text_color": "#ee686f", "bottom_bar_bg_color": "#212121",
}


@dataclass(frozen=True)
class AppOpening:
    """How an app is opened: by whom, and what the client adds beside the user."""

    token: str             # the bot token the data is signed with
    user: User
    auth_date: int
    theme: dict[str, str]
    query_id: str | None = None      # a button's session (answerWebAppQuery would use it)
    start_param: str | None = None   # a link's startapp=
    chat: Chat | None = None         # the chat a link was tapped in


def sign_init_data(token: str, fields: dict[str, str]) -> str:
    """The fields as a query string with Telegram's `hash`: HMAC-SHA256 of the sorted
    "key=value" lines, keyed with HMAC-SHA256(key="WebAppData", msg=token)."""
    check_string = "\n".join(f"{key}={fields[key]}" for key in sorted(fields))
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    digest = hmac.new(secret, check_string.encode(), hashlib.sha256).hexdigest()
    return urlencode({**fields, "hash": digest}, quote_via=quote)


def _user_json(user: User) -> str:
    data: dict[str, Any] = {"id": user.id, "first_name": user.first_name}
    for key in ("last_name", "username", "language_code"):
        if getattr(user, key) is not None:
            data[key] = getattr(user, key)
    # Compact and unescaped, as Telegram's clients send it.
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def init_data(opening: AppOpening) -> str:
    """The signed initData string a client hands the app."""
    fields: dict[str, str] = {}
    if opening.query_id is not None:
        fields["query_id"] = opening.query_id
    fields["user"] = _user_json(opening.user)
    if opening.chat is not None:
        # "sender": the link was tapped in the opener's own chat with the bot.
        fields["chat_type"] = ChatType.SENDER.value if opening.chat.id == opening.user.id \
            else opening.chat.type
        fields["chat_instance"] = chat_instance(opening.chat.id)
    if opening.start_param is not None:
        fields["start_param"] = opening.start_param
    fields["auth_date"] = str(opening.auth_date)
    return sign_init_data(opening.token, fields)


def launch_url(app_url: str, opening: AppOpening) -> str:
    """The URL a client loads: the app's, with tgWebAppStartParam in the query for a link's
    start parameter and the launch parameters in the fragment (any fragment of its own goes)."""
    parts = urlsplit(app_url)
    query = parts.query
    if opening.start_param is not None:
        start = urlencode({"tgWebAppStartParam": opening.start_param})
        query = f"{query}&{start}" if query else start
    fragment = urlencode({
        "tgWebAppData": init_data(opening),
        "tgWebAppVersion": WEB_APP_VERSION,
        "tgWebAppPlatform": PLATFORM,
        "tgWebAppThemeParams": json.dumps(opening.theme, separators=(",", ":")),
    }, quote_via=quote)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, fragment))


class Opener:
    """What a Telegram client does when a person opens a Mini App, in one World."""

    def __init__(self, world: World, token: str) -> None:
        self.world = world
        self.token = token
        self._sessions = 0

    def _opening(self, user_id: int, theme: dict[str, str] | None, auth_date: int | None,
                token: str | None, **extra: Any) -> AppOpening:
        return AppOpening(
            token=self.token if token is None else token,
            user=self.world.user(user_id),
            auth_date=int(self.world.clock()) if auth_date is None else auth_date,
            theme=dict(LIGHT_THEME if theme is None else theme),
            **extra,
        )

    def _query_id(self, user_id: int) -> str:
        self._sessions += 1
        return f"AAE{user_id:x}S{self._sessions:08d}"

    def button(self, user_id: int, message: Message | tuple[int, int],
               button: str | InlineButton, *, theme: dict[str, str] | None = None,
               auth_date: int | None = None, token: str | None = None) -> str:
        """The URL opened when the user taps a web_app button (its text, or the button itself)
        on a message he can see."""
        chat_id, message_id = (
            (message.chat_id, message.message_id) if isinstance(message, Message) else message
        )
        current = self._visible_message(user_id, chat_id, message_id)
        found = button if isinstance(button, InlineButton) else self._button(current, button)
        if found.web_app is None:
            raise ValueError(f"{found} is not a web_app button")
        opening = self._opening(user_id, theme, auth_date, token,
                                query_id=self._query_id(user_id))
        return launch_url(found.web_app, opening)

    def link(self, user_id: int, url: str, chat_id: int | None = None, *,
             theme: dict[str, str] | None = None, auth_date: int | None = None,
             token: str | None = None) -> str:
        """The URL opened when the user follows a t.me link to one of the bot's Mini Apps, tapped
        in chat `chat_id` (None: from outside Telegram's chats, e.g. a browser)."""
        bot_username = self.world.bot.username or ""
        link = start_app_link(url, bot_username)
        if link is None:
            raise ValueError(f"{url!r} is not a link to a Mini App of @{bot_username}")
        app_url = self.world.web_apps.url(link.app_name, bot_username)
        chat = None if chat_id is None else self._visible_chat(user_id, chat_id)
        opening = self._opening(user_id, theme, auth_date, token,
                                start_param=link.start_param, chat=chat)
        return launch_url(app_url, opening)

    def _visible_chat(self, user_id: int, chat_id: int) -> Chat:
        self.world.user(user_id)
        chat = self.world.chat(chat_id)
        visible = user_id in chat.members   # a private chat's: the person (or two people)
        if not visible:
            raise ValueError(f"user {user_id} cannot see chat {chat_id}")
        return chat

    def _visible_message(self, user_id: int, chat_id: int, message_id: int) -> Message:
        self._visible_chat(user_id, chat_id)
        message = self.world.message(chat_id, message_id)
        if message.deleted:
            raise LookupError(f"message {chat_id}/{message_id} was deleted")
        return message

    @staticmethod
    def _button(message: Message, text_or_url: str) -> InlineButton:
        for row in message.buttons:
            for candidate in row:
                if text_or_url in (candidate.text, candidate.web_app):
                    return candidate
        raise LookupError(
            f"no button {text_or_url!r} on message {message.chat_id}/{message.message_id}; "
            f"buttons: {[b.text for row in message.buttons for b in row]}"
        )
