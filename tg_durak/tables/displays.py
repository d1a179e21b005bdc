"""Every way the tables are shown: the chat's messages, and what joins them at start-up (the
Mini App's sockets). The core hands each change here once; each display takes what is its own."""

from __future__ import annotations

from tg_durak.tables.core import TableDisplay
from tg_durak.tables.live import LiveLobby, LiveTable


class Displays:
    def __init__(self, *displays: TableDisplay) -> None:
        self.displays = list(displays)

    def add(self, display: TableDisplay) -> None:
        self.displays.append(display)

    def show(self, live: LiveTable, only: int | None = None, bar: bool = False) -> None:
        for display in self.displays:
            display.show(live, only, bar)

    def show_lobby(self, live: LiveLobby) -> None:
        for display in self.displays:
            display.show_lobby(live)
