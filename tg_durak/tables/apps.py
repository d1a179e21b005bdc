"""Who has the Mini App open at a table: what the tables ask of whatever knows it (the Mini
App's sockets, webapp.sockets, which hear of the other processes' apps too)."""

from __future__ import annotations

from typing import Protocol

from tg_durak.tables.live import LiveTable


class OpenApps(Protocol):
    """Who has the Mini App open at a table, on any process (webapp.sockets): such a person is
    not away, and his chat message waits until he closes it."""

    def seats_in_app(self, live: LiveTable) -> set[int]: ...


class NoApps:
    """No Mini App is served: nobody's app is ever open."""

    def seats_in_app(self, live: LiveTable) -> set[int]:
        return set()


NO_APPS = NoApps()
