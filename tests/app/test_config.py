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


def test_the_mini_app_settings() -> None:
    s = Settings.from_env({"BOT_TOKEN": TOKEN})
    assert (s.web_host, s.web_port, s.webapp_url, s.webapp_name) == (
        "127.0.0.1", 8080, None, None)
    s = Settings.from_env({"BOT_TOKEN": TOKEN, "DURAK_WEB_HOST": "0.0.0.0",
                           "DURAK_WEB_PORT": "9000", "DURAK_WEBAPP_URL": "https://d.example/",
                           "DURAK_WEBAPP_NAME": "durak"})
    assert (s.web_host, s.web_port, s.webapp_url, s.webapp_name) == (
        "0.0.0.0", 9000, "https://d.example/", "durak")


def test_the_webhook_settings_and_what_the_webhook_commands_require() -> None:
    s = Settings.from_env({"BOT_TOKEN": TOKEN})
    assert (s.webhook_url, s.webhook_secret) == (None, None)
    with pytest.raises(ConfigError, match="DURAK_WEBHOOK_URL is not set"):
        s.require_webhook()
    secret = "A-z_09" * 42 + "abcd"   # 256 characters, every kind Telegram allows
    s = Settings.from_env({"BOT_TOKEN": TOKEN, "DURAK_WEBHOOK_URL": "https://d.example/hook",
                           "DURAK_WEBHOOK_SECRET": secret})
    assert s.require_webhook() == ("https://d.example/hook", secret)
    s = Settings.from_env({"BOT_TOKEN": TOKEN, "DURAK_WEBHOOK_URL": "https://d.example/hook"})
    with pytest.raises(ConfigError, match="DURAK_WEBHOOK_SECRET is not set"):
        s.require_webhook()


@pytest.mark.parametrize(("env", "words"), [
    ({}, "BOT_TOKEN is not set"),
    ({"BOT_TOKEN": "  "}, "BOT_TOKEN is not set"),
    ({"BOT_TOKEN": "abc"}, "BOT_TOKEN is malformed"),
    ({"BOT_TOKEN": TOKEN, "DURAK_TIME_SCALE": "fast"}, "DURAK_TIME_SCALE must be"),
    ({"BOT_TOKEN": TOKEN, "DURAK_TIME_SCALE": "0"}, "DURAK_TIME_SCALE must be"),
    ({"BOT_TOKEN": TOKEN, "DURAK_EDIT_INTERVAL": "-1"}, "DURAK_EDIT_INTERVAL must be"),
    ({"BOT_TOKEN": TOKEN, "DURAK_WEB_PORT": "http"}, "DURAK_WEB_PORT must be"),
    ({"BOT_TOKEN": TOKEN, "DURAK_WEB_PORT": "70000"}, "DURAK_WEB_PORT must be"),
    ({"BOT_TOKEN": TOKEN, "DURAK_WEBHOOK_URL": "durak.example/hook"}, "DURAK_WEBHOOK_URL must"),
    ({"BOT_TOKEN": TOKEN, "DURAK_WEBHOOK_SECRET": "has space"}, "DURAK_WEBHOOK_SECRET must"),
    ({"BOT_TOKEN": TOKEN, "DURAK_WEBHOOK_SECRET": "x" * 257}, "DURAK_WEBHOOK_SECRET must"),
    ({"BOT_TOKEN": TOKEN, "DURAK_WEBHOOK_SECRET": "ключ"}, "DURAK_WEBHOOK_SECRET must"),
])
def test_bad_settings_are_one_clear_sentence(env: dict[str, str], words: str) -> None:
    with pytest.raises(ConfigError, match=words) as info:
        Settings.from_env(env)
    assert "\n" not in str(info.value)
