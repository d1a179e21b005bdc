"""bench/load.py's command line is a contract other tools rely on: the last line of a run is one
JSON object with the agreed keys. A few tables for a few seconds, and a small restart; no
figure is judged here (the machine is shared), only that the run measured something."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.store.postgres_server import SERVER as POSTGRES
from tests.store.postgres_server import WANTED as POSTGRES_WANTED

ROOT = Path(__file__).resolve().parents[2]
# A guard against a hung run, not a speed check: a run starts the bot (twice for a restart run:
# bench/load.py's START_TIMEOUT each) on a machine that may be busy with other work.
RUN_TIMEOUT = 900
REDIS = os.environ.get("DURAK_TEST_REDIS", "redis://127.0.0.1:6379/0")
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


@pytest.mark.skipif(not POSTGRES_WANTED, reason="DURAK_TEST_NO_POSTGRES=1: no PostgreSQL server")
def test_a_stepped_run_of_two_webhook_processes_with_a_kill_prints_the_contract() -> None:
    """--workers on PostgreSQL and Redis (a database of the run's own, dropped after), --steps,
    and --kill-after in the last step's window: the failover is measured from the database."""
    result = last_line_json("--workers", "2", "--db", POSTGRES, "--redis", REDIS,
                            "--steps", "2,4", "--seconds", "6", "--kill-after", "2",
                            "--kill-process", "1")
    assert result["workers"] == 2 and result["database"] == "postgresql"
    assert [step["tables"] for step in result["steps"]][:1] == [2]
    assert result["taps"] > 0 and result["errors_429"] == 0
    assert result["setup_failures"] == {}
    assert result["bot_log"].get("tracebacks", 0) == 0
    assert result["database_cpu_share"] >= 0 and result["machine_cpu_share"] > 0
    if len(result["steps"]) == 2:   # a shared machine may saturate even 2 tables
        failover = result["failover"]
        assert failover["killed_process"] == 1 and failover["running_tables"] >= 1
        assert failover["tables_never_moved"] == 0


@pytest.mark.skipif(not POSTGRES_WANTED, reason="DURAK_TEST_NO_POSTGRES=1: no PostgreSQL server")
def test_a_capacity_run_reports_cpu_per_tap_and_decision_for_each_worker_count() -> None:
    """--workers 1,2: the same load on one process, then on two, each on a database of its own;
    each count's CPU per tap (read from /proc) and per computer decision, and the ratio to one's."""
    result = last_line_json("--workers", "1,2", "--db", POSTGRES, "--redis", REDIS,
                            "--tables", "2", "--seconds", "5", "--idle", "2")
    rows = result["capacity"]
    assert [row["workers"] for row in rows] == [1, 2]
    assert all(row["taps"] > 0 and row["bot_cpu_ms_per_tap"] > 0 for row in rows), rows
    assert all(row["tables_per_core"] > 0 for row in rows), rows
    assert set(result["cpu_per_tap_vs_one"]) == {"1", "2"}
    assert result["cpu_per_tap_vs_one"]["1"] == 1.0
    assert result["workers"] == 1 and result["errors_429"] == 0
