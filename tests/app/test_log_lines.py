"""The log's two formats (tg_durak/ops/logs.py): readable text by default, one JSON object a line
with DURAK_LOG_FORMAT=json, and no secret in either, a traceback's text included."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

from tg_durak.ops.logs import JsonLines, TextLines

SECRETS = ["123456:AAH-valid_token", "s3cret-pw"]


def _record(message: str, *args: object, failed: bool = False) -> logging.LogRecord:
    exc_info = None
    if failed:
        try:
            raise ConnectionError("postgresql://durak:s3cret-pw@db/durak refused")
        except ConnectionError:
            exc_info = sys.exc_info()
    return logging.LogRecord("tg_durak.app", logging.ERROR, __file__, 1, message, args, exc_info)


def test_a_json_line_holds_time_level_logger_message_and_the_exception() -> None:
    url = "https://api/bot123456:AAH-valid_token/getMe"
    line = JsonLines(SECRETS).format(_record("cannot reach %s", url, failed=True))
    assert "\n" not in line
    entry = json.loads(line)
    assert entry.keys() == {"time", "level", "logger", "message", "exception"}
    assert (entry["level"], entry["logger"]) == ("ERROR", "tg_durak.app")
    assert entry["message"] == "cannot reach https://api/bot***/getMe"
    assert entry["time"].endswith("+00:00")
    assert entry["exception"].startswith("Traceback") and "durak:***@db" in entry["exception"]
    assert "exception" not in json.loads(JsonLines(SECRETS).format(_record("fine")))


def test_a_text_line_is_as_before_with_secrets_hidden() -> None:
    text = TextLines(SECRETS).format(_record("password %s", "s3cret-pw", failed=True))
    first = text.splitlines()[0]
    assert first.endswith(" ERROR tg_durak.app: password ***")
    assert "Traceback" in text and not any(secret in text for secret in SECRETS)


CRASH = """
import threading
from tg_durak.config import Settings
from tg_durak.ops import logs

logs.configure(Settings.from_env({"BOT_TOKEN": "123456:AAH-valid_token",
                                  "DURAK_DB": "postgresql://durak:s3cret-pw@db/durak",
                                  "DURAK_LOG_FORMAT": "json"}))
worker = threading.Thread(target=lambda: 1 / 0, name="worker")
worker.start()
worker.join()
raise RuntimeError("postgresql://durak:s3cret-pw@db/durak refused")
"""


def test_an_exception_nothing_caught_is_a_log_line_too(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", CRASH], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)
    assert done.returncode == 1
    entries = [json.loads(line) for line in done.stderr.splitlines()]
    assert [entry["message"] for entry in entries] == ["uncaught exception in worker",
                                                      "uncaught exception"]
    assert "ZeroDivisionError" in entries[0]["exception"]
    assert entries[1]["exception"].endswith("RuntimeError: postgresql://durak:***@db/durak refused")
