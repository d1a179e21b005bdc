"""DURAK_REDIS: unset, one process's budgets and nothing of Redis; set, the shared gate."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tg_durak.config import ConfigError, Settings

TOKEN = "123456789:AAHxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"


def test_the_redis_setting() -> None:
    assert Settings.from_env({"BOT_TOKEN": TOKEN}).redis_url is None
    s = Settings.from_env({"BOT_TOKEN": TOKEN, "DURAK_REDIS": "redis://10.0.0.5:6379/2"})
    assert s.redis_url == "redis://10.0.0.5:6379/2"
    with pytest.raises(ConfigError, match="DURAK_REDIS"):
        Settings.from_env({"BOT_TOKEN": TOKEN, "DURAK_REDIS": "10.0.0.5:6379"})


def test_one_process_imports_nothing_of_redis() -> None:
    code = ("import sys, tg_durak.app, tg_durak.outbox.publisher; "
            "print(any(m == 'redis' or m.startswith('redis.') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
