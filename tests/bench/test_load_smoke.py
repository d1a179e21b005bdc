"""bench/load.py's command line is a contract other tools rely on: the last line of a run is one
JSON object with the agreed keys. A few tables for a few seconds, and a small restart; no
figure is judged here (the machine is shared), only that the run measured something."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# A guard against a hung run, not a speed check: a run starts the bot (twice for a restart run:
# bench/load.py's START_TIMEOUT each) on a machine that may be busy with other work.
RUN_TIMEOUT = 900
CONTRACT = ("tables", "taps", "taps_per_s", "p50_answer_ms", "p99_answer_ms", "p99_edit_ms",
            "requests_per_tap", "kb_per_table", "errors_429")


def last_line_json(*args: str) -> dict:
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "load.py"), *args], cwd=ROOT,
                         capture_output=True, text=True, timeout=RUN_TIMEOUT)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert set(CONTRACT) <= set(result)
    return result


def test_a_short_load_run_prints_the_contract() -> None:
    result = last_line_json("--tables", "3", "--seconds", "5")
    assert result["tables"] == 3 and result["people_playing"] == 3
    assert result["taps"] > 0 and result["taps_per_s"] > 0
    assert 0 < result["p50_answer_ms"] <= result["p99_answer_ms"]
    assert result["p99_edit_ms"] is not None
    assert result["requests_per_tap"] >= 1, "each tap is answered at least"
    # Every tap was answered (one made at the window's end may be answered just after it).
    assert result["outcomes"].get("unanswered", 0) == 0, result["outcomes"]
    assert result["requests_by_method"]["answerCallbackQuery"] > 0
    assert result["errors_429"] == 0
    assert result["setup_failures"] == {}
    assert result["bot_log"].get("tracebacks", 0) == 0
    assert result["bot_now"]["tables"]["running"] == 3
    assert result["bot_cpu_ms_per_tap"] > 0


def test_a_restart_run_prints_the_contract_and_the_rearm_time() -> None:
    result = last_line_json("--restart-tables", "50")
    assert result["tables"] == 50 and result["resumed"] == 50
    assert result["rearm_s"] > 0
    assert result["taps"] == 0 and result["errors_429"] == 0
    assert result["log_entries"] > 0, "the tables are mid-game"
