"""The store's transactions, timed: how long each took from asking for it (a pooled connection
or SQLite's lock awaited) to its commit or rollback. The storage layer does not know Prometheus:
`TransactionTimes` is handed to `Store.open` as its `ScopeTimer` (app.py).

Version conflicts (a held table another process had changed) are counted by the table cache and
exposed by `metrics.StatsCollector` as durak_tables_reread_total.
"""

from __future__ import annotations

from enum import StrEnum

from prometheus_client import CollectorRegistry, Histogram

from tg_durak.storage.connection import Scope

# Seconds: a group commit on SQLite takes milliseconds, a held change on PostgreSQL tens of
# them; seconds mean a lock or the pool waited (lock_timeout refuses at 5 s).
TRANSACTION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


class TransactionOutcome(StrEnum):
    COMMITTED = "committed"
    ROLLED_BACK = "rolled_back"   # an error, a refusal, a stale version, a cancelled task


class TransactionTimes:
    def __init__(self, registry: CollectorRegistry) -> None:
        self.seconds = Histogram("durak_store_transaction_seconds",
                                 "A store transaction's time, from asking for it to its end,"
                                 " by scope (transaction, held: a table's change under its"
                                 " lock) and outcome (committed, rolled_back)",
                                 ["scope", "outcome"], buckets=TRANSACTION_BUCKETS,
                                 registry=registry)

    def __call__(self, scope: Scope, seconds: float, committed: bool) -> None:
        outcome = TransactionOutcome.COMMITTED if committed else TransactionOutcome.ROLLED_BACK
        self.seconds.labels(scope, outcome).observe(seconds)
