"""bench/app_load.py, the Mini App's load run: its last line is one JSON object with the agreed
keys. A few tables for a few seconds (and a short chat run beside it); no figure is judged here
(the machine is shared), only that the run measured answers and pushes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUN_TIMEOUT = 900   # two bot starts on a busy machine: a guard against a hang, not a speed check
CONTRACT = ("tables", "taps", "taps_per_s", "p50_answer_ms", "p99_answer_ms", "p50_push_ms",
            "p99_push_ms", "telegram_requests_for_app_moves", "cpu_ms_per_move", "errors_429")


def test_a_short_app_load_run_measures_answers_and_pushes() -> None:
    run = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "app_load.py"), "--app-tables", "3",
         "--seconds", "6", "--chat-seconds", "8"],
        cwd=ROOT, capture_output=True, text=True, timeout=RUN_TIMEOUT)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert set(CONTRACT) <= set(result)
    assert result["tables"] == 3 and result["apps_open"] == 3
    assert result["setup_failures"] == {} and result["app_errors"] == {}
    assert result["taps"] > 0 and result["taps_per_s"] > 0
    assert 0 < result["p50_answer_ms"] <= result["p99_answer_ms"]
    assert 0 < result["p50_push_ms"] <= result["p99_push_ms"]
    assert result["pushes_unseen"] == 0
    # The app's moves write nothing to the chat: its message waits while the app is open.
    assert result["telegram_requests_for_app_moves"] == 0, result["telegram_requests_app_chats"]
    assert result["errors_429"] == 0
    assert result["bot_log"].get("tracebacks", 0) == 0
    assert result["cpu_ms_per_move"] > 0
    assert result["chat"]["taps"] > 0 and result["chat_cpu_ms_per_tap"] > 0
