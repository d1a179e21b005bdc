"""A fake Telegram Bot API server for end-to-end tests and for playing in the terminal.

    async with FakeTelegram() as tg:
        tg.add_user(1, "Ann")
        # or Bot(token, session=AiohttpSession(api=TelegramAPIServer.from_base(tg.url)))
        bot = tg.create_bot()
        ...
        await tg.send_text(1, "/start")
        menu = await tg.wait_for(lambda: tg.last_message(1))
        answer = await tg.press(1, menu, "Play")
"""

from tg_durak.emulator.fake import DEFAULT_TOKEN, Call, FakeTelegram
from tg_durak.emulator.limits import Hit, RateLimits
from tg_durak.emulator.models import (
    ApiError,
    CallbackAnswer,
    Change,
    Chat,
    Command,
    InlineButton,
    Message,
    User,
)
from tg_durak.emulator.screen import Shown
from tg_durak.emulator.web_apps import DARK_THEME, LIGHT_THEME

__all__ = [
    "DARK_THEME",
    "DEFAULT_TOKEN",
    "LIGHT_THEME",
    "ApiError",
    "Call",
    "CallbackAnswer",
    "Change",
    "Chat",
    "Command",
    "FakeTelegram",
    "Hit",
    "InlineButton",
    "Message",
    "RateLimits",
    "Shown",
    "User",
]
