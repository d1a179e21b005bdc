"""Every way the tables are shown: the chat's messages and whatever the composition root hands
the service beside them (the Mini App's sockets, the other processes' relay). The core hands each
change here once; each display takes what is its own.

What a change shows each seat is noted here, once, whoever shows it: a late tap (a chat button,
a page's move) is read against the screens its player was shown (play/stale_taps.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from tg_durak.tables.core import TableDisplay
from tg_durak.tables.live import LiveLobby, LiveTable


def note_shown(live: LiveTable, only: int | None = None) -> None:
    """Each person's seat (only `only`'s, a user id, if given) was shown the table as it is."""
    version = live.game.version
    for seat in live.people:
        if only is None or seat.user_id == only:
            view, legal = live.seen_by(seat.seat)
            live.shown.note(version, view, legal)


class Displays:
    def __init__(self, displays: Sequence[TableDisplay]) -> None:
        self.displays = tuple(displays)

    def show(self, live: LiveTable, only: int | None = None, bar: bool = False) -> None:
        if not bar:   # a bar moves a clock: the screen's version is noted already
            note_shown(live, only)
        for display in self.displays:
            display.show(live, only, bar)

    def show_lobby(self, live: LiveLobby) -> None:
        for display in self.displays:
            display.show_lobby(live)
