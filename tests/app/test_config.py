"""Settings an operator gives: read from the environment, refused with a clear sentence."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tg_durak.config import ConfigError, LogFormat, Settings

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


def test_a_log_level_and_format_are_checked_with_the_other_settings() -> None:
    assert Settings.from_env({"BOT_TOKEN": TOKEN}).log_format is LogFormat.TEXT
    s = Settings.from_env({"BOT_TOKEN": TOKEN, "LOG_LEVEL": "warning",
                           "DURAK_LOG_FORMAT": "JSON"})
    assert (s.log_level, s.log_format) == ("WARNING", LogFormat.JSON)
    with pytest.raises(ConfigError, match=r"LOG_LEVEL must be one of .*not 'VERBOSE'"):
        Settings.from_env({"BOT_TOKEN": TOKEN, "LOG_LEVEL": "verbose"})
    with pytest.raises(ConfigError, match="DURAK_LOG_FORMAT must be text or json, not 'xml'"):
        Settings.from_env({"BOT_TOKEN": TOKEN, "DURAK_LOG_FORMAT": "xml"})


def test_secrets_come_from_files_where_the_variable_is_not_set(tmp_path: Path) -> None:
    files = {name: tmp_path / name for name in ("token", "db", "secret", "metrics")}
    files["token"].write_text(TOKEN + "\n")
    files["db"].write_text("postgresql://durak:pw@db/durak\n")
    files["secret"].write_text("hook-secret\r\n")
    files["metrics"].write_text("scrape-me")
    env = {"BOT_TOKEN_FILE": str(files["token"]), "DURAK_DB_FILE": str(files["db"]),
           "DURAK_WEBHOOK_SECRET_FILE": str(files["secret"]),
           "DURAK_METRICS_TOKEN_FILE": str(files["metrics"])}
    s = Settings.from_env(env)
    assert (s.token, s.db_path, s.webhook_secret, s.metrics_token) == (
        TOKEN, "postgresql://durak:pw@db/durak", "hook-secret", "scrape-me")
    # The variable itself wins over its file.
    s = Settings.from_env({**env, "BOT_TOKEN": "42:other", "DURAK_DB": "/tmp/x.db"})
    assert (s.token, s.db_path) == ("42:other", "/tmp/x.db")
    assert Settings.from_env({"BOT_TOKEN": TOKEN}).metrics_token is None


@pytest.mark.parametrize("variable", ["BOT_TOKEN_FILE", "DURAK_DB_FILE",
                                      "DURAK_WEBHOOK_SECRET_FILE", "DURAK_METRICS_TOKEN_FILE"])
def test_an_unreadable_secret_file_is_one_sentence(variable: str, tmp_path: Path) -> None:
    env = {"BOT_TOKEN": TOKEN, variable: str(tmp_path / "missing")}
    if variable == "BOT_TOKEN_FILE":
        del env["BOT_TOKEN"]
    with pytest.raises(ConfigError, match=f"^{variable}: cannot read .*missing: No such file"):
        Settings.from_env(env)


def test_the_secrets_no_output_may_show() -> None:
    s = Settings.from_env({"BOT_TOKEN": TOKEN, "DURAK_DB": "postgresql://u:p%40ss@h/d",
                           "DURAK_WEBHOOK_SECRET": "hook", "DURAK_METRICS_TOKEN": "scrape",
                           "DURAK_REDIS": "redis://:redis-pw@h:6379/0"})
    assert set(s.secrets()) == {TOKEN, "p%40ss", "p@ss", "hook", "scrape", "redis-pw"}
    assert Settings.from_env({"BOT_TOKEN": TOKEN}).secrets() == [TOKEN]
    with pytest.raises(ConfigError) as refused:
        Settings.from_env({"BOT_TOKEN": TOKEN, "DURAK_REDIS": "http://:redis-pw@h"})
    assert "redis-pw" not in str(refused.value)


def test_the_env_file_is_read_from_the_working_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".env").write_text(f"BOT_TOKEN={TOKEN}\nDURAK_TIME_SCALE=0.5\n"
                                   "DURAK_EDIT_INTERVAL=3\n")
    monkeypatch.chdir(tmp_path)
    for name in ("BOT_TOKEN", "BOT_TOKEN_FILE", "DURAK_TIME_SCALE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DURAK_EDIT_INTERVAL", "2")   # the environment wins over .env
    try:
        s = Settings.from_env()
        assert (s.token, s.time_scale, s.edit_interval) == (TOKEN, 0.5, 2.0)
    finally:   # load_dotenv wrote them into os.environ, which monkeypatch does not undo
        os.environ.pop("BOT_TOKEN", None)
        os.environ.pop("DURAK_TIME_SCALE", None)
