"""The bot's metrics in Prometheus' text format, from one registry per process (built at the
composition root: tests run several bots in one process).

Most of what is exposed the components count already for ops/stats.py: `StatsCollector` reads
those counters at scrape time instead of keeping a second set. `counting.py` counts the rest.
"""

from __future__ import annotations

import time
from collections import Counter as Tally
from collections.abc import Callable, Iterator, Mapping

from prometheus_client import CollectorRegistry, Gauge, Info
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from tg_durak.observe.readiness import Readiness
from tg_durak.ops.stats import counters
from tg_durak.outbox.queue import Priority
from tg_durak.play.rows import TableKind
from tg_durak.tables.live import LiveTable

# The outbox's counts (publisher.stats) of screens never sent, by why.
SKIPPED = ("coalesced", "unchanged", "dropped", "stale")
# The computers' counts (computers.stats), each a counter of its own.
DECISIONS = {
    "decisions": "Decisions the computer players made",
    "hard_decisions": "Decisions that searched (the hard level)",
    "shed": "Searching decisions given less than the full budget: the pool was busy",
    "normal_instead": "Searching decisions played as normal: the pool was too busy",
    "kernel_decisions": "Searching decisions made in the compiled search kernel",
}

OpenCounts = Callable[[], Mapping[str, int]]


class StatsCollector(Collector):
    """Reads the components' `stats` (as ops/stats.py does: `tables`, `publisher`,
    `computers`, and where they run `mini_app` and `relay`), the tables open by kind and the
    readiness, at each scrape."""

    def __init__(self, components: Mapping[str, object], open_counts: OpenCounts,
                 readiness: Readiness) -> None:
        self._components = components
        self._open_counts = open_counts
        self._readiness = readiness

    def collect(self) -> Iterator[Metric]:
        parts = {name: counters(part) for name, part in self._components.items()}
        yield from _tables(parts.get("tables", {}), self._open_counts())
        yield from _outbox(parts.get("publisher", {}))
        yield from _computers(parts.get("computers", {}))
        app = parts.get("mini_app")
        if app is not None:
            yield GaugeMetricFamily("durak_app_sockets", "Mini App sockets open",
                                    value=app.get("sockets", 0))
        relay = parts.get("relay")
        if relay is not None:
            yield CounterMetricFamily("durak_relay_shown_total",
                                      "Other processes' changes shown to sockets here",
                                      value=relay.get("relayed", 0))
        yield GaugeMetricFamily("durak_ready",
                                "1 while started, taking updates and not stopping",
                                value=float(self._readiness.serving()))
        age = self._readiness.heartbeat_age()
        if age is not None:
            yield GaugeMetricFamily("durak_heartbeat_age_seconds",
                                    "Seconds since the heartbeat was last written", value=age)


def _tables(stats: Mapping[str, float], open_now: Mapping[str, int]) -> Iterator[Metric]:
    taps = CounterMetricFamily("durak_taps_total", "Taps on the bot's buttons, by outcome",
                               labels=["outcome"])
    for key, value in stats.items():
        if key.startswith("tap:"):
            taps.add_metric([key.removeprefix("tap:")], value)
    yield taps
    opened = GaugeMetricFamily("durak_tables_open", "Tables and lobbies held by this process",
                               labels=["kind"])
    for kind, count in open_now.items():
        opened.add_metric([kind], count)
    yield opened
    yield CounterMetricFamily("durak_computer_moves_total", "Computer players' moves played",
                              value=stats.get("computer_moves", 0))
    yield CounterMetricFamily("durak_computer_moves_late_total",
                              "Computer moves played later than their window (overdue wakes)",
                              value=stats.get("computer_late", 0))
    yield GaugeMetricFamily("durak_timers_armed", "Table timers armed",
                            value=stats.get("timers", 0))
    yield CounterMetricFamily("durak_tables_reread_total",
                              "Held tables another process had changed: read again under the "
                              "lock (a shared database's version conflicts)",
                              value=stats.get("reread", 0))
    if "claimed" in stats:   # a shared database: overdue tables taken up from the store
        yield CounterMetricFamily("durak_wakes_claimed_total",
                                  "Overdue tables claimed from the store and woken here",
                                  value=stats["claimed"])


def _outbox(stats: Mapping[str, float]) -> Iterator[Metric]:
    sent = CounterMetricFamily("durak_outbox_sent_total", "Screens sent, by priority",
                               labels=["priority"])
    longest = GaugeMetricFamily("durak_outbox_wait_max_seconds",
                                "The longest a message waited for its screen, by priority",
                                labels=["priority"])
    mean = GaugeMetricFamily("durak_outbox_wait_mean_seconds",
                             "The mean a message waited for its screen, by priority",
                             labels=["priority"])
    for priority in Priority:
        name = priority.name.lower()
        sent.add_metric([name], stats.get(f"sent_{name}", 0))
        longest.add_metric([name], stats.get(f"max_wait_s_{name}", 0))
        mean.add_metric([name], stats.get(f"mean_wait_s_{name}", 0))
    yield from (sent, longest, mean)
    skipped = CounterMetricFamily("durak_outbox_skipped_total",
                                  "Screens never sent, by why (coalesced: superseded)",
                                  labels=["reason"])
    for reason in SKIPPED:
        skipped.add_metric([reason], stats.get(reason, 0))
    yield skipped
    yield CounterMetricFamily("durak_outbox_429_total", "Screens Telegram answered with a 429",
                              value=stats.get("errors_429", 0))
    yield CounterMetricFamily("durak_outbox_failures_total", "Screens that could not be sent",
                              value=stats.get("failures", 0))
    yield GaugeMetricFamily("durak_outbox_queued", "Screens waiting to be sent",
                            value=stats.get("queued", 0))


def _computers(stats: Mapping[str, float]) -> Iterator[Metric]:
    for key, text in DECISIONS.items():
        yield CounterMetricFamily(f"durak_computer_{key}_total", text, value=stats.get(key, 0))
    yield GaugeMetricFamily("durak_computer_in_flight", "Decisions under way in the pool",
                            value=stats.get("in_flight", 0))
    yield GaugeMetricFamily("durak_computer_mean_budget_seconds",
                            "The mean think time searching decisions were given",
                            value=stats.get("mean_budget_s", 0))
    yield GaugeMetricFamily("durak_computer_queue_wait_p99_seconds",
                            "p99 of a decision's wait for the pool, over the recent ones",
                            value=stats.get("queue_wait_p99_ms", 0) / 1000)


def open_by_kind(tables: Mapping[int, LiveTable], lobbies: Mapping[int, object]) -> OpenCounts:
    """The tables held, by their kind, and the lobbies (both read at each scrape)."""
    def count() -> Mapping[str, int]:
        kinds = Tally(str(live.row.kind) for live in tables.values())
        return {**{str(kind): 0 for kind in TableKind}, **kinds, "lobby": len(lobbies)}
    return count


def build_info(registry: CollectorRegistry, version: str) -> None:
    """The version running and when it started."""
    Info("durak_build", "The bot's version", registry=registry).info({"version": version})
    Gauge("durak_start_time_seconds", "When the process started (Unix time)",
          registry=registry).set(time.time())
