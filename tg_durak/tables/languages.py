"""Each person's language, for drawing his messages outside of his own updates."""

from __future__ import annotations

from collections.abc import Iterable

from tg_durak.i18n.translate import DEFAULT_LOCALE
from tg_durak.storage.users import Users


class PlayerLanguages:
    """What the users' rows the store keeps in memory say (every update a person sends brings
    his row there); read from the store for those not seen since the start (a restart).

    A table is drawn for each of its players when anyone's tap or a timer changes it, so the
    language cannot come from the update being handled.
    """

    def __init__(self, users: Users) -> None:
        self._users = users

    def of(self, user_id: int) -> str:
        row = self._users.cached(user_id)
        return row.language if row is not None and row.language else DEFAULT_LOCALE

    async def load(self, user_ids: Iterable[int]) -> None:
        """Read the rows of those not in memory."""
        await self._users.many(user_ids)
