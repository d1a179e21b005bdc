"""What an operator sees when the bot starts and fails (issue "Run it for a real community"):
no secret in any line, a wrong setting in one line with exit 2, the log as text or JSON lines.
Each runs `python -m tg_durak` as a process of its own, in a directory of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

TOKEN = "123456:AAH-valid_token"
PASSWORD = "s3cret-pw"
# Nothing listens on port 9: Telegram is never reached, whatever the test gets to.
UNREACHABLE_API = "http://127.0.0.1:9"


def durak(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("BOT_TOKEN", "DURAK_", "LOG_LEVEL", "TELEGRAM_"))}
    return subprocess.run([sys.executable, "-m", "tg_durak", *args], capture_output=True,
                          text=True, timeout=120, env={**base, **env}, cwd=cwd)


@pytest.mark.parametrize(("address", "exit_code"), [
    # No such role or database on the test server (or no server): refused for good.
    (f"postgresql://durak:{PASSWORD}@127.0.0.1:5432/no_such_database", 2),
    # Nothing listens there: may pass, a supervisor may retry.
    (f"postgresql://durak:{PASSWORD}@127.0.0.1:9/test", 4),
    (f"postgresql://durak:{PASSWORD}@127.0.0.1:x/test", 4),
])
@pytest.mark.parametrize("log_format", ["text", "json"])
def test_a_failed_start_never_shows_the_password(address: str, exit_code: int,
                                                 log_format: str, tmp_path: Path) -> None:
    done = durak({"BOT_TOKEN": TOKEN, "DURAK_DB": address, "LOG_LEVEL": "DEBUG",
                  "DURAK_LOG_FORMAT": log_format, "TELEGRAM_API_URL": UNREACHABLE_API},
                 tmp_path)
    assert done.returncode == exit_code, done.stderr
    assert PASSWORD not in done.stdout + done.stderr
    assert TOKEN not in done.stdout + done.stderr
    *log, said = done.stderr.splitlines()
    assert said.startswith("tg-durak: ") and "durak:***@127.0.0.1" in said, done.stderr
    assert log, "LOG_LEVEL=DEBUG logs the start"
    if log_format == "json":
        for line in log:
            entry = json.loads(line)
            assert {"time", "level", "logger", "message"} <= entry.keys()


def test_the_operator_tools_never_show_the_password(tmp_path: Path) -> None:
    address = f"postgresql://durak:{PASSWORD}@127.0.0.1:9/test"
    for args in (["check"], ["ratings", "--rebuild"], ["copy-db", "missing.sqlite3", address]):
        (tmp_path / "missing.sqlite3").write_bytes(b"")
        done = durak({"DURAK_DB": address}, tmp_path, *args)
        assert done.returncode == 2, done.stderr
        assert PASSWORD not in done.stdout + done.stderr
        assert done.stderr.startswith("tg-durak: ") and "***" in done.stderr, done.stderr


@pytest.mark.parametrize(("env", "said"), [
    ({"LOG_LEVEL": "VERBOSE"}, "LOG_LEVEL must be one of"),
    ({"DURAK_LOG_FORMAT": "xml"}, "DURAK_LOG_FORMAT must be text or json"),
    ({"DURAK_OPERATORS": "@olga"}, "DURAK_OPERATORS must be Telegram user ids"),
    ({"DURAK_DB_FILE": "/nonexistent/db"}, "DURAK_DB_FILE: cannot read /nonexistent/db"),
    ({"BOT_TOKEN": "", "BOT_TOKEN_FILE": "/nonexistent/token"}, "BOT_TOKEN_FILE: cannot read"),
])
def test_a_wrong_setting_is_one_line_and_exit_2(env: dict[str, str], said: str,
                                               tmp_path: Path) -> None:
    done = durak({"BOT_TOKEN": TOKEN, **env}, tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith(f"tg-durak: {said}") and len(done.stderr.splitlines()) == 1, (
        done.stderr)


def test_the_tools_read_the_database_from_a_file_and_env_from_the_working_directory(
        tmp_path: Path) -> None:
    (tmp_path / "address").write_text(str(tmp_path / "from-file.sqlite3") + "\n")
    (tmp_path / ".env").write_text(f"DURAK_DB_FILE={tmp_path / 'address'}\n")
    done = durak({}, tmp_path, "check")
    assert f"no database at {tmp_path / 'from-file.sqlite3'}" in done.stderr
    done = durak({"DURAK_DB_FILE": str(tmp_path / "missing")}, tmp_path, "check")
    assert (done.returncode, done.stderr.count("\n")) == (2, 1), done.stderr
