"""Readiness, the metrics' access check and the collector over the components' counters."""

from __future__ import annotations

import asyncio

import pytest
from prometheus_client import CollectorRegistry
from prometheus_client.exposition import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from tg_durak.observe import readiness as ready_module
from tg_durak.observe.metrics import StatsCollector
from tg_durak.observe.readiness import Readiness, Stage, schema_current
from tg_durak.observe.routes import metrics_allowed
from tg_durak.storage import migrations


async def ok() -> str | None:
    return None


async def test_not_ready_while_starting_and_stopping() -> None:
    readiness = Readiness({"database": ok})
    assert await readiness.problems() == ["starting"]
    assert not readiness.serving()
    taking = [True]
    readiness.ready(lambda: taking[0])
    assert readiness.stage == Stage.READY and await readiness.problems() == []
    assert readiness.serving()
    taking[0] = False   # polling ended
    assert not readiness.serving()
    readiness.stopping()
    assert await readiness.problems() == ["stopping"] and not readiness.serving()


async def test_each_failed_check_is_a_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    async def refused() -> str | None:
        raise ConnectionRefusedError("no server")

    async def hangs() -> str | None:
        await asyncio.Event().wait()
        return None

    monkeypatch.setattr(ready_module, "CHECK_SECONDS", 0.01)
    readiness = Readiness({"database": ok, "redis": refused, "other": hangs})
    readiness.ready(lambda: False)   # polling ended
    assert await readiness.problems() == [
        "updates: not being taken", "redis: ConnectionRefusedError: no server",
        "other: no answer in 0.01 s"]


class OldSchema:
    async def schema_version(self) -> int:
        return migrations.load()[-1].version - 1


async def test_a_schema_behind_the_code_is_not_ready() -> None:
    assert "expected" in str(await schema_current(OldSchema())())


def test_heartbeat_age() -> None:
    now = [100.0]
    readiness = Readiness({}, clock=lambda: now[0])
    assert readiness.heartbeat_age() is None
    readiness.beat()
    now[0] = 112.5
    assert readiness.heartbeat_age() == 12.5


@pytest.mark.parametrize(("remote", "authorization", "token", "allowed"), [
    ("127.0.0.1", None, None, True),
    ("::1", None, "s3cret", True),
    ("203.0.113.5", None, None, False),
    ("203.0.113.5", None, "s3cret", False),
    ("203.0.113.5", "Bearer wrong", "s3cret", False),
    ("203.0.113.5", "Bearer s3cret", None, False),   # no token set: loopback only
    ("203.0.113.5", "Bearer s3cret", "s3cret", True),
    (None, None, None, False),
    ("not an address", None, None, False),
])
def test_who_may_read_the_metrics(remote: str | None, authorization: str | None,
                                  token: str | None, allowed: bool) -> None:
    assert metrics_allowed(remote, authorization, token) is allowed


class Counted:
    def __init__(self, stats: dict[str, float]) -> None:
        self.stats = stats


def test_the_collector_reads_the_components_counters() -> None:
    registry = CollectorRegistry()
    components = {
        "tables": Counted({"tap:ok": 7, "tap:stale": 2, "computer_moves": 5, "timers": 3,
                           "claimed": 4, "reread": 6}),
        "publisher": Counted({"edits": 4, "coalesced": 6, "errors_429": 1, "queued": 2,
                              "sent_mover": 3, "max_wait_s_mover": 0.5}),
        "computers": Counted({"decisions": 9, "shed": 1, "queue_wait_p99_ms": 250.0,
                              "mean_budget_s": 0.4}),
        "mini_app": Counted({"sockets": 2, "tables": 1}),
    }
    readiness = Readiness({})
    registry.register(StatsCollector(components, lambda: {"private": 1, "lobby": 0},
                                     readiness))
    text = generate_latest(registry).decode()
    samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
               for family in text_string_to_metric_families(text) for s in family.samples}
    assert samples[("durak_taps_total", (("outcome", "ok"),))] == 7
    assert samples[("durak_taps_total", (("outcome", "stale"),))] == 2
    assert samples[("durak_outbox_skipped_total", (("reason", "coalesced"),))] == 6
    assert samples[("durak_outbox_sent_total", (("priority", "mover"),))] == 3
    assert samples[("durak_outbox_wait_max_seconds", (("priority", "mover"),))] == 0.5
    assert samples[("durak_outbox_queued", ())] == 2
    assert samples[("durak_computer_decisions_total", ())] == 9
    assert samples[("durak_computer_queue_wait_p99_seconds", ())] == 0.25
    assert samples[("durak_computer_mean_budget_seconds", ())] == 0.4
    assert samples[("durak_wakes_claimed_total", ())] == 4
    assert samples[("durak_tables_reread_total", ())] == 6
    assert samples[("durak_tables_open", (("kind", "private"),))] == 1
    assert samples[("durak_app_sockets", ())] == 2
    assert samples[("durak_ready", ())] == 0   # still starting
    assert ("durak_heartbeat_age_seconds", ()) not in samples   # none written yet
