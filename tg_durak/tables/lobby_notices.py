"""/notify: who asked to hear of a group's next lobby is told when one opens there.

A display beside the chat's (tables/displays.py): the first time this process shows a group's
lobby, the chat's subscribers the bot may write to and has not told of that lobby are marked
told in the store (once each, whichever process shows it) and get a private message with
one-tap Join, at the outbox's lowest priority that is never dropped.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque

from tg_durak.i18n.translate import translator
from tg_durak.outbox.queue import Priority
from tg_durak.play.rows import TableKind
from tg_durak.render.quick import lobby_notice_screen
from tg_durak.storage import Store
from tg_durak.tables.languages import PlayerLanguages
from tg_durak.tables.live import LiveLobby, LiveTable
from tg_durak.tables.quick_games import KEPT
from tg_durak.tables.screens import ChatLinks, ScreenOutbox

log = logging.getLogger(__name__)


class LobbyNotices:
    def __init__(self, store: Store, outbox: ScreenOutbox, languages: PlayerLanguages,
                 links: ChatLinks) -> None:
        self.store = store
        self.outbox = outbox
        self.languages = languages
        self.links = links
        self._seen: deque[int] = deque(maxlen=KEPT)   # the last lobbies this process told of
        self._telling: set[asyncio.Task[None]] = set()

    def show(self, live: LiveTable, only: int | None = None, bar: bool = False) -> None:
        """A running table tells nobody."""

    def show_lobby(self, live: LiveLobby) -> None:
        row = live.row
        if row.kind != TableKind.GROUP or row.invite is None or live.id in self._seen:
            return
        self._seen.append(live.id)
        task = asyncio.create_task(self._tell(live))
        self._telling.add(task)
        task.add_done_callback(self._telling.discard)

    async def _tell(self, live: LiveLobby) -> None:
        row = live.row
        assert row.invite is not None   # show_lobby's check
        try:
            subscribers = await self.store.quick.to_tell(row.chat_id, row.id)
            await self.languages.load(user_id for user_id, _ in subscribers)
        except Exception:   # the store refused: this lobby goes untold, the next one is told
            log.exception("lobby %s: its subscribers could not be told", row.id)
            return
        seated = set(live.lobby.people)
        for user_id, title in subscribers:
            if user_id in seated:
                continue
            t = translator(self.languages.of(user_id))
            screen = lobby_notice_screen(row.chat_id, title, live.host, row.invite,
                                         self.links.bot_username, t)
            self.outbox.show(("notify", row.id, user_id), user_id, None, screen,
                             priority=Priority.WATCHER)

    async def close(self) -> None:
        for task in list(self._telling):
            task.cancel()
        await asyncio.gather(*self._telling, return_exceptions=True)
