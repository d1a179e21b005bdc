"""Each person's last menu message, so that choosing another language redraws it too.

A menu is drawn from what it showed (`Redraw`, given the new language); only the last one per
person is kept, in memory: after a restart an older menu stays as it was, like any old message.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from tg_durak.i18n.translate import Translator
from tg_durak.outbox.publisher import Publisher
from tg_durak.render.screen import Screen

Redraw = Callable[[Translator], Screen]
KEPT = 10_000   # people whose last menu is remembered, the least recent forgotten first


class LastMenus:
    def __init__(self) -> None:
        self._menus: OrderedDict[int, tuple[int, int, Redraw]] = OrderedDict()

    def sent(self, user_id: int, chat_id: int, redraw: Redraw) -> Callable[[int], None]:
        """What the publisher calls with the id of a menu message it sent to `user_id`."""
        def remember(message_id: int) -> None:
            self._menus[user_id] = (chat_id, message_id, redraw)
            self._menus.move_to_end(user_id)
            if len(self._menus) > KEPT:
                self._menus.popitem(last=False)
        return remember

    def changed(self, user_id: int, chat_id: int, message_id: int, redraw: Redraw) -> None:
        """A menu was edited in place (a setup's option): if it is his last, redraw it so."""
        last = self._menus.get(user_id)
        if last is not None and last[:2] == (chat_id, message_id):
            self._menus[user_id] = (chat_id, message_id, redraw)

    def redraw(self, user_id: int, t: Translator, publisher: Publisher) -> None:
        """His last menu, drawn again in the language `t` speaks."""
        last = self._menus.get(user_id)
        if last is not None:
            chat_id, message_id, redraw = last
            publisher.show(("menu", chat_id, message_id), chat_id, message_id, redraw(t))
