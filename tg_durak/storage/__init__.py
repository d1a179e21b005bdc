"""Everything the bot keeps between restarts, and the only package that knows SQL.

Callers use the `Store` facade (its repositories: ``store.users``, ``store.tables``, ...) and
the errors below; the records it reads and writes are the plain ones of `tg_durak.play.rows`.
"""

from tg_durak.storage.errors import (
    AlreadySeated,
    CorruptRow,
    DatabaseDown,
    LobbyClosed,
    LobbyFull,
    NoDatabase,
    SchemaTooNew,
    StaleVersion,
    StoreUnavailable,
)
from tg_durak.storage.results import RateTable
from tg_durak.storage.store import Store, is_postgres, redacted, refusals

__all__ = [
    "AlreadySeated",
    "CorruptRow",
    "DatabaseDown",
    "LobbyClosed",
    "LobbyFull",
    "NoDatabase",
    "RateTable",
    "SchemaTooNew",
    "StaleVersion",
    "Store",
    "StoreUnavailable",
    "is_postgres",
    "redacted",
    "refusals",
]
