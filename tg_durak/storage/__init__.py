"""Everything the bot keeps between restarts, and the only package that knows SQL.

Callers use the `Store` facade and the errors below; the records it reads and writes are the
plain ones of `tg_durak.play.records`.
"""

from tg_durak.storage.store import (
    AlreadySeated,
    CorruptRow,
    LobbyClosed,
    LobbyFull,
    RateTable,
    SchemaTooNew,
    StaleVersion,
    Store,
    StoreUnavailable,
)

__all__ = [
    "AlreadySeated",
    "CorruptRow",
    "LobbyClosed",
    "LobbyFull",
    "RateTable",
    "SchemaTooNew",
    "StaleVersion",
    "Store",
    "StoreUnavailable",
]
