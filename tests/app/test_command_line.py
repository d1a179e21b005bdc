"""`python -m tg_durak --help` and each command's --help (issue 15): they answer without a
token and without loading the bot (aiogram takes seconds to import), and list every command.

Run as an operator runs them: a process of its own, BOT_TOKEN left out of its environment.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

COMMANDS = ("local", "check", "backup", "ratings", "migrate", "webhook", "set-webhook")
# Those that work on a database of the operator's choice; the bot's own read DURAK_DB.
DATABASE_COMMANDS = ("local", "check", "backup", "ratings", "migrate")
# What the bot itself loads: --help must answer before any of it.
HEAVY = ("aiogram", "aiohttp", "aiosqlite")
# Runs `python -m tg_durak ARGS` in this interpreter, then prints which HEAVY modules got loaded.
LOADED = """\
import json, runpy, sys
{before}
sys.argv = ["tg_durak", *json.loads(sys.argv[1])]
try:
    runpy.run_module("tg_durak", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
print(json.dumps(sorted({{m.split(".")[0] for m in sys.modules}} & {heavy})))
"""


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "BOT_TOKEN"}


def durak(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    # A directory of its own: no .env of the checkout's is read.
    return subprocess.run([sys.executable, "-m", "tg_durak", *args], capture_output=True,
                          text=True, timeout=120, env=_env(), cwd=cwd)


def loaded(args: list[str], cwd: Path, before: str = "") -> list[str]:
    """The HEAVY modules in memory once `python -m tg_durak ARGS` has answered."""
    code = LOADED.format(before=before, heavy=repr(set(HEAVY)))
    done = subprocess.run([sys.executable, "-c", code, json.dumps(args)], capture_output=True,
                          text=True, timeout=120, env=_env(), cwd=cwd)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_the_help_lists_every_command_one_line_each(tmp_path: Path) -> None:
    done = durak("--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = [line.split() for line in done.stdout.splitlines()]
    listed = [words for words in lines if words and words[0] in COMMANDS]
    assert [words[0] for words in listed] == list(COMMANDS)
    assert all(len(words) > 1 for words in listed), "each with what it does"
    assert "none: run the bot" in done.stdout
    assert "BOT_TOKEN is not set" not in done.stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_has_its_own_help(command: str, tmp_path: Path) -> None:
    done = durak(command, "--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: python -m tg_durak {command} [-h]")
    assert ("--db" in done.stdout) == (command in DATABASE_COMMANDS)


def test_a_wrong_command_is_named_and_exits_with_2(tmp_path: Path) -> None:
    done = durak("frobnicate", cwd=tmp_path)
    assert done.returncode == 2
    assert "invalid choice: 'frobnicate'" in done.stderr
    assert all(f"'{command}'" in done.stderr for command in COMMANDS), "and the right ones"


@pytest.mark.parametrize("args", [["--help"], *([c, "--help"] for c in COMMANDS)],
                         ids=lambda args: " ".join(args))
def test_help_loads_none_of_the_bots_libraries(args: list[str], tmp_path: Path) -> None:
    assert loaded(args, tmp_path) == []


def test_self_check_a_library_loaded_is_seen(tmp_path: Path) -> None:
    assert loaded(["--help"], tmp_path, before="import aiosqlite") == ["aiosqlite"]
