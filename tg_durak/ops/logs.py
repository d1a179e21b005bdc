"""The bot's log on stderr: readable lines, or one JSON object a line for a log collector; with
no secret in either (a library's message may quote a URL with the token or the database's
address with its password)."""

from __future__ import annotations

import json
import logging
import sys
import threading
from collections.abc import Iterable
from datetime import UTC, datetime
from types import TracebackType

from tg_durak.config import LogFormat, Settings

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
HIDDEN = "***"


def hide(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each of ``secrets`` replaced by ***."""
    for secret in secrets:
        text = text.replace(secret, HIDDEN)
    return text


class TextLines(logging.Formatter):
    """Today's readable line (and traceback), secrets hidden."""

    def __init__(self, secrets: list[str]) -> None:
        super().__init__(TEXT_FORMAT)
        self.secrets = secrets

    def format(self, record: logging.LogRecord) -> str:
        return hide(super().format(record), self.secrets)


class JsonLines(logging.Formatter):
    """One JSON object a line: time (UTC, ISO 8601), level, logger, message, and the exception's
    traceback when the record has one; secrets hidden."""

    def __init__(self, secrets: list[str]) -> None:
        super().__init__()
        self.secrets = secrets

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps({key: hide(value, self.secrets) for key, value in entry.items()},
                          ensure_ascii=False)


def configure(settings: Settings) -> None:
    """The root logger writes to stderr at LOG_LEVEL in DURAK_LOG_FORMAT; so does an exception
    nothing caught, in the main thread or another, which Python would print as it is."""
    handler = logging.StreamHandler()
    secrets = settings.secrets()
    handler.setFormatter(JsonLines(secrets) if settings.log_format is LogFormat.JSON
                         else TextLines(secrets))
    logging.basicConfig(level=settings.log_level, handlers=[handler], force=True)
    sys.excepthook = _log_uncaught
    threading.excepthook = _log_uncaught_in_thread


def _log_uncaught(kind: type[BaseException], value: BaseException,
                  traceback: TracebackType | None) -> None:
    logging.getLogger("tg_durak").critical("uncaught exception", exc_info=(kind, value, traceback))


def _log_uncaught_in_thread(args: threading.ExceptHookArgs) -> None:
    if args.exc_value is not None:
        name = args.thread.name if args.thread is not None else "a thread"
        logging.getLogger("tg_durak").critical(
            "uncaught exception in %s", name,
            exc_info=(args.exc_type, args.exc_value, args.exc_traceback))
