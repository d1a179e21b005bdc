"""Settings from the environment (and a .env file in the working directory): what an operator
configures."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from dotenv import load_dotenv


class ConfigError(Exception):
    """A setting an operator must fix; shown as one line, not a traceback."""


# What Telegram accepts as a webhook's secret_token.
WEBHOOK_SECRET = re.compile(r"[A-Za-z0-9_-]{1,256}")
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class LogFormat(Enum):
    TEXT = "text"   # one readable line a record
    JSON = "json"   # one JSON object a line, for a log collector


def load_env_file() -> None:
    """The working directory's .env under the environment (which wins): where an operator runs
    the bot, not where pip installed the package."""
    load_dotenv(Path.cwd() / ".env")


def _contents(variable: str, path: str | None) -> str | None:
    """The file ``variable`` names (a container's secret, kept out of the environment), without
    the trailing newline an editor leaves; None when ``variable`` is not set."""
    if not path:
        return None
    try:
        return Path(path).read_text(encoding="utf-8").rstrip("\r\n")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise ConfigError(f"{variable}: cannot read {path}: {reason}") from None


def passwords_in(address: str) -> list[str]:
    """The password in a scheme://user:password@host address, as written and unquoted."""
    from urllib.parse import unquote, urlsplit

    if "://" not in address:
        return []
    try:
        password = urlsplit(address).password
    except ValueError:   # a malformed address (an unclosed [): its password is still there
        password = address.partition("://")[2].rpartition("@")[0].partition(":")[2]
    return [password, unquote(password)] if password else []


def database_of(env: dict[str, str]) -> str:
    """DURAK_DB (or the file DURAK_DB_FILE names), else the bot's default SQLite file."""
    return (env.get("DURAK_DB") or _contents("DURAK_DB_FILE", env.get("DURAK_DB_FILE"))
            or Settings.db_path)


def operators_of(raw: str) -> frozenset[int]:
    """DURAK_OPERATORS: Telegram user ids, separated by commas or spaces."""
    ids = [part for part in re.split(r"[\s,]+", raw.strip()) if part]
    if not all(part.isdigit() and 0 < int(part) < 2**63 for part in ids):
        raise ConfigError("DURAK_OPERATORS must be Telegram user ids (numbers) separated by "
                          f"commas or spaces, not {raw!r}")
    return frozenset(int(part) for part in ids)


def keep_days_of(raw: str | None) -> int | None:
    """DURAK_KEEP_DAYS: whole days the finished tables' logs are kept (None: unset, for ever)."""
    if raw is None or not raw.strip():
        return None
    days = raw.strip()
    if not (days.isdigit() and 0 < int(days) <= 100_000):
        raise ConfigError(f"DURAK_KEEP_DAYS must be a whole number of days above 0, not {raw!r}")
    return int(days)


def _number(env: dict[str, str], name: str, most: float, what: str,
            default: str = "1") -> float:
    raw = env.get(name, default)
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value <= most:
        raise ConfigError(f"{name} must be {what}, not {raw!r}")
    return value


@dataclass(frozen=True)
class Settings:
    token: str
    db_path: str = "./durak.sqlite3"
    api_url: str | None = None
    time_scale: float = 1.0
    log_level: str = "INFO"
    log_format: LogFormat = LogFormat.TEXT
    edit_interval: float = 1.0  # seconds between edits in one private chat (Telegram: ~1/s)
    # Seconds before a request Telegram does not answer counts as failed (then retried); a long
    # poll gets this on top of its own wait.
    request_timeout: float = 20.0
    stats_file: str | None = None  # rewritten every few seconds with the bot's counters
    # The Mini App: where the bot serves it, and the public URL Telegram opens (None: no app).
    web_host: str = "127.0.0.1"
    web_port: int = 8080
    webapp_url: str | None = None
    webapp_name: str | None = None  # its short name for t.me/<bot>/<name> links
    # The webhook: the public address Telegram posts updates to (its path is served on
    # web_host:web_port) and the secret it sends in each request's header.
    webhook_url: str | None = None
    webhook_secret: str | None = None
    # Where several processes on one token share Telegram's budgets (None: this process's own).
    redis_url: str | None = None
    # What a scraper of /metrics must send (None: the route needs none).
    metrics_token: str | None = None
    # Days the finished tables' action logs are kept before a daily job deletes them (None:
    # for ever); their results and ratings stay.
    keep_days: int | None = None
    # The Telegram user ids whose private chat takes the operator commands (/ban, /broadcast..).
    operators: frozenset[int] = frozenset()

    def secrets(self) -> list[str]:
        """What no message or log line may show: the token, the database's password, the
        webhook's secret, the metrics token, and the passwords in DURAK_DB's and DURAK_REDIS's
        addresses."""
        found = [self.token, self.webhook_secret, self.metrics_token]
        found += passwords_in(self.db_path) + passwords_in(self.redis_url or "")
        return [secret for secret in found if secret]

    def require_webhook(self) -> tuple[str, str]:
        """The webhook's URL and secret, which `webhook` and `set-webhook` cannot do without."""
        url, secret = self.webhook_url, self.webhook_secret
        if not url or not secret:
            missing = "DURAK_WEBHOOK_URL" if not url else "DURAK_WEBHOOK_SECRET"
            raise ConfigError(
                f"{missing} is not set: the webhook needs DURAK_WEBHOOK_URL (the public https:// "
                "address Telegram posts to) and DURAK_WEBHOOK_SECRET (1-256 of A-Z a-z 0-9 _ -)")
        return url, secret

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        # Here, not at the top: aiogram takes seconds to import, and the operator's tools
        # (check, backup, ratings) read the database path from this module without it.
        from aiogram.utils.token import TokenValidationError, validate_token

        if env is None:
            load_env_file()
            env = dict(os.environ)
        token = (env.get("BOT_TOKEN")
                 or _contents("BOT_TOKEN_FILE", env.get("BOT_TOKEN_FILE")) or "").strip()
        if not token:
            raise ConfigError(
                "BOT_TOKEN is not set: get a token from @BotFather and put BOT_TOKEN=... in the "
                "environment or in .env (or run `python -m tg_durak local` to play without one)"
            )
        try:
            validate_token(token)
        except TokenValidationError:
            raise ConfigError(
                "BOT_TOKEN is malformed: a token looks like 123456789:AAH... (digits, a colon, "
                "then letters)"
            ) from None
        scale = _number(env, "DURAK_TIME_SCALE", 100, "a number above 0")
        interval = _number(env, "DURAK_EDIT_INTERVAL", 60, "seconds above 0")
        timeout = _number(env, "TELEGRAM_TIMEOUT", 600, "seconds above 0", default="20")
        web_port = env.get("DURAK_WEB_PORT", "8080").strip()
        if not (web_port.isdigit() and 0 < int(web_port) < 65536):
            raise ConfigError(f"DURAK_WEB_PORT must be a port number, not {web_port!r}")
        url = env.get("DURAK_WEBAPP_URL") or None
        if url is not None and not url.startswith(("https://", "http://")):
            raise ConfigError(f"DURAK_WEBAPP_URL must be the page's https:// address, not {url!r}")
        webhook_url = env.get("DURAK_WEBHOOK_URL") or None
        if webhook_url is not None and not webhook_url.startswith(("https://", "http://")):
            raise ConfigError("DURAK_WEBHOOK_URL must be the https:// address Telegram posts to, "
                              f"not {webhook_url!r}")
        secret = (env.get("DURAK_WEBHOOK_SECRET")
                  or _contents("DURAK_WEBHOOK_SECRET_FILE", env.get("DURAK_WEBHOOK_SECRET_FILE")))
        if secret is not None and not WEBHOOK_SECRET.fullmatch(secret):
            raise ConfigError("DURAK_WEBHOOK_SECRET must be 1-256 characters of A-Z a-z 0-9 _ - "
                              "(Telegram's rule for a webhook's secret token)")
        redis_url = env.get("DURAK_REDIS") or None
        if redis_url is not None and not redis_url.startswith(REDIS_SCHEMES):
            # Its scheme alone: the rest may hold Redis's password.
            raise ConfigError("DURAK_REDIS must be a redis://, rediss:// or unix:// address, "
                              f"not {redis_url.partition(':')[0]}:...")
        level = env.get("LOG_LEVEL", "INFO").upper()
        if level not in LOG_LEVELS:
            raise ConfigError(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, not {level!r}")
        log_format = env.get("DURAK_LOG_FORMAT", "text").lower()
        if log_format not in {known.value for known in LogFormat}:
            raise ConfigError(f"DURAK_LOG_FORMAT must be text or json, not {log_format!r}")
        return cls(
            token=token,
            edit_interval=interval,
            request_timeout=timeout,
            db_path=database_of(env),
            api_url=env.get("TELEGRAM_API_URL") or None,
            time_scale=scale,
            log_level=level,
            log_format=LogFormat(log_format),
            stats_file=env.get("DURAK_STATS_FILE") or None,
            web_host=env.get("DURAK_WEB_HOST") or "127.0.0.1",
            web_port=int(web_port),
            webapp_url=url,
            webapp_name=env.get("DURAK_WEBAPP_NAME") or None,
            webhook_url=webhook_url,
            webhook_secret=secret,
            redis_url=redis_url,
            keep_days=keep_days_of(env.get("DURAK_KEEP_DAYS")),
            operators=operators_of(env.get("DURAK_OPERATORS", "")),
            metrics_token=env.get("DURAK_METRICS_TOKEN") or _contents(
                "DURAK_METRICS_TOKEN_FILE", env.get("DURAK_METRICS_TOKEN_FILE")) or None,
        )
