"""What the store raises that its callers handle."""

from __future__ import annotations


class SchemaTooNew(RuntimeError):
    """The database was written by a newer bot than this one."""


class StoreUnavailable(RuntimeError):
    """The database refused a write for now (disk full, locked by another process, an I/O
    error); nothing was written, and the same write may succeed later."""


class DatabaseDown(StoreUnavailable):
    """The database server does not answer at all (it crashed, restarts, or cannot be reached):
    nothing was tried. The store says so in its log once, and once when it answers again, so a
    caller need not log each refusal."""


class NoDatabase(RuntimeError):
    """The database cannot be opened as configured, and trying again will not help: no such
    database or role, a wrong password, not a database address."""


class StaleVersion(RuntimeError):
    """The table changed since the caller read it; nothing was written."""


class CorruptRow(RuntimeError):
    """A stored value cannot be decoded."""


class LobbyClosed(RuntimeError):
    """The lobby has started, expired or been cancelled; nothing was written."""


class LobbyFull(RuntimeError):
    """Every seat of the lobby is taken; nothing was written."""


class AlreadySeated(RuntimeError):
    """The person already has a seat at an open table (this one or another); nothing written."""

    def __init__(self, table_id: int) -> None:
        super().__init__(f"already seated at table {table_id}")
        self.table_id = table_id
