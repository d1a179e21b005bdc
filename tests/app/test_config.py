"""Settings an operator gives: read from the environment, refused with a clear sentence."""

from __future__ import annotations

import pytest

from tg_durak.config import ConfigError, Settings

TOKEN = "123456:AAH-valid_token"


def test_defaults_and_every_variable() -> None:
    s = Settings.from_env({"BOT_TOKEN": TOKEN})
    assert (s.db_path, s.api_url, s.time_scale, s.edit_interval, s.log_level) == (
        "./durak.sqlite3", None, 1.0, 1.0, "INFO")
    s = Settings.from_env({"BOT_TOKEN": TOKEN, "DURAK_DB": "/tmp/x.db", "LOG_LEVEL": "debug",
                           "TELEGRAM_API_URL": "http://127.0.0.1:8081",
                           "DURAK_TIME_SCALE": "0.02", "DURAK_EDIT_INTERVAL": "0.1"})
    assert (s.db_path, s.api_url, s.time_scale, s.edit_interval, s.log_level) == (
        "/tmp/x.db", "http://127.0.0.1:8081", 0.02, 0.1, "DEBUG")


@pytest.mark.parametrize(("env", "words"), [
    ({}, "BOT_TOKEN is not set"),
    ({"BOT_TOKEN": "  "}, "BOT_TOKEN is not set"),
    ({"BOT_TOKEN": "abc"}, "BOT_TOKEN is malformed"),
    ({"BOT_TOKEN": TOKEN, "DURAK_TIME_SCALE": "fast"}, "DURAK_TIME_SCALE must be"),
    ({"BOT_TOKEN": TOKEN, "DURAK_TIME_SCALE": "0"}, "DURAK_TIME_SCALE must be"),
    ({"BOT_TOKEN": TOKEN, "DURAK_EDIT_INTERVAL": "-1"}, "DURAK_EDIT_INTERVAL must be"),
])
def test_bad_settings_are_one_clear_sentence(env: dict[str, str], words: str) -> None:
    with pytest.raises(ConfigError, match=words) as info:
        Settings.from_env(env)
    assert "\n" not in str(info.value)
