"""Who opened the app: Telegram signs the launch data (initData) with the bot's token.

aiogram checks the signature; the age is ours to check (aiogram does not): a launch older than
a day is refused, as Telegram's own guidance suggests, so a leaked link stops working.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from aiogram.utils.web_app import safe_parse_webapp_init_data

MAX_AGE_SECONDS = 24 * 3600
MAX_INIT_DATA = 4096   # Telegram's initData is well under 1 KB


class LaunchRefused(Exception):
    """Launch data that is not Telegram's for this bot, or too old; `code` names which."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True)
class Launch:
    user_id: int
    name: str
    language_code: str | None
    start_param: str | None   # a group's lobby or table, by its invite


def check_launch(token: str, init_data: object, now: float | None = None) -> Launch:
    """The person the launch data names, once its signature and age are good."""
    if not isinstance(init_data, str) or not init_data or len(init_data) > MAX_INIT_DATA:
        raise LaunchRefused("launch_forged")
    try:
        data = safe_parse_webapp_init_data(token, init_data)
    except ValueError:   # a bad signature, or a well-signed but malformed field
        raise LaunchRefused("launch_forged") from None
    if data.user is None:
        raise LaunchRefused("launch_forged")
    age = (time.time() if now is None else now) - data.auth_date.timestamp()
    if age > MAX_AGE_SECONDS:
        raise LaunchRefused("launch_expired")
    user = data.user
    name = " ".join(p for p in (user.first_name, user.last_name) if p)
    return Launch(user.id, name, user.language_code, data.start_param)
