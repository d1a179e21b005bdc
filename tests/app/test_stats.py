"""The bot's counters for its operator and for bench/load.py: one JSON object with a part per
component, as a line (SIGUSR1, and at INFO when the bot stops) and as a file rewritten while it
runs (DURAK_STATS_FILE)."""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from pathlib import Path

import pytest

from tg_durak.config import Settings
from tg_durak.ops.stats import PREFIX, final_report, keep_writing, report, write_file


class Counting:
    def __init__(self) -> None:
        self.calls = 0

    def stats(self) -> dict[str, float]:
        self.calls += 1
        return {"edits": 3 * self.calls, "max_wait_s": 0.25}


def components() -> dict[str, object]:
    return {"publisher": Counting(), "tables": type("T", (), {"stats": Counter(taps=2)})(),
            "quiet": object()}


def test_the_line_holds_every_part() -> None:
    line = report(components())
    assert line.startswith(PREFIX)
    assert json.loads(line[len(PREFIX):]) == {
        "publisher": {"edits": 3, "max_wait_s": 0.25}, "tables": {"taps": 2}, "quiet": {}}


def test_the_file_is_replaced_whole(tmp_path: Path) -> None:
    path = tmp_path / "stats.json"
    parts = components()
    write_file(str(path), parts)
    write_file(str(path), parts)
    assert json.loads(path.read_text())["publisher"]["edits"] == 6
    assert [p.name for p in tmp_path.iterdir()] == ["stats.json"], "no partial file left"


async def test_the_file_is_rewritten_while_the_bot_runs(tmp_path: Path) -> None:
    path = tmp_path / "stats.json"
    parts = components()
    writer = asyncio.create_task(keep_writing(str(path), parts, every=0.01))
    try:
        while parts["publisher"].calls < 3:
            await asyncio.sleep(0.01)
    finally:
        writer.cancel()
    assert json.loads(path.read_text())["publisher"]["edits"] >= 9


async def test_an_unwritable_file_is_told_once_and_stops_nothing(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    parts = components()
    writer = asyncio.create_task(keep_writing(str(tmp_path / "no" / "stats.json"), parts,
                                              every=0.0))
    try:
        while parts["publisher"].calls < 3:
            await asyncio.sleep(0)
    finally:
        writer.cancel()
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 1


def test_at_stop_the_line_is_logged_and_the_file_written(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="tg_durak.ops.stats")
    path = tmp_path / "stats.json"
    final_report(components(), str(path))
    [record] = caplog.records
    assert record.levelno == logging.INFO and record.getMessage().startswith(PREFIX)
    assert json.loads(path.read_text())["tables"] == {"taps": 2}


def test_the_file_comes_from_the_environment() -> None:
    env = {"BOT_TOKEN": "123456789:AAHfakefakefakefakefakefakefakefake1"}
    assert Settings.from_env(env).stats_file is None
    assert Settings.from_env({**env, "DURAK_STATS_FILE": "/tmp/s.json"}).stats_file == \
        "/tmp/s.json"
