"""DURAK_KEEP_DAYS: whole days above 0 or unset (keep for ever); anything else stops the bot with
one line and exit code 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tg_durak.config import ConfigError, Settings

TOKEN = "123456:AAH-valid_token"


def test_unset_keeps_for_ever_and_days_are_whole_numbers() -> None:
    assert Settings.from_env({"BOT_TOKEN": TOKEN}).keep_days is None
    assert Settings.from_env({"BOT_TOKEN": TOKEN, "DURAK_KEEP_DAYS": ""}).keep_days is None
    assert Settings.from_env({"BOT_TOKEN": TOKEN, "DURAK_KEEP_DAYS": " 90 "}).keep_days == 90


@pytest.mark.parametrize("wrong", ["0", "-3", "1.5", "ninety", "90d", "1000000"])
def test_a_wrong_value_is_refused(wrong: str) -> None:
    with pytest.raises(ConfigError,
                       match=f"DURAK_KEEP_DAYS must be a whole number of days above 0, "
                             f"not '{wrong}'"):
        Settings.from_env({"BOT_TOKEN": TOKEN, "DURAK_KEEP_DAYS": wrong})


def test_the_bot_says_it_in_one_line_and_exits_2(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("BOT_TOKEN", "DURAK_", "LOG_LEVEL", "TELEGRAM_"))}
    done = subprocess.run([sys.executable, "-m", "tg_durak"], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path,
                          env={**env, "BOT_TOKEN": TOKEN, "DURAK_KEEP_DAYS": "soon"})
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "tg-durak: DURAK_KEEP_DAYS must be a whole number of days above 0, not 'soon'"]
