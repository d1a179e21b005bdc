"""Each person's language, for rendering his game message outside of his own updates."""

from __future__ import annotations

from collections.abc import Iterable

from tg_durak.i18n.translate import DEFAULT_LOCALE
from tg_durak.storage import Store


class PlayerLanguages:
    """Remembered from every update a person sends; read from the store for the rest (a restart).

    A table is rendered for each of its players when anyone's tap or a timer changes it, so the
    language cannot come from the update being handled.
    """

    def __init__(self, store: Store) -> None:
        self._store = store
        self._known: dict[int, str] = {}

    def of(self, user_id: int) -> str:
        return self._known.get(user_id, DEFAULT_LOCALE)

    def remember(self, user_id: int, locale: str) -> None:
        self._known[user_id] = locale

    async def load(self, user_ids: Iterable[int]) -> None:
        """Read the saved language of those not seen since the start."""
        unknown = [user_id for user_id in user_ids if user_id not in self._known]
        if not unknown:
            return
        for user_id, user in (await self._store.users(unknown)).items():
            if user.language:
                self._known[user_id] = user.language
