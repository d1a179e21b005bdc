"""Telegram updates handled: each is claimed once, so a restarted bot leaves the handled alone."""

from __future__ import annotations

from tg_durak.storage.connection import Connection

# Telegram update ids remembered as handled (a restart may be offered the last few again);
# the oldest are forgotten every _FORGET_EVERY updates.
_KEEP_UPDATES = 10_000
_FORGET_EVERY = 1_000


class Updates:
    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    async def claim(self, update_id: int) -> bool:
        """True the first time a Telegram update is offered: it is recorded as handled, so that
        a bot restarted after a crash, offered it again, leaves it alone (False)."""
        async with self._connection.statement() as db:
            claimed = await db.execute(
                "INSERT INTO handled_updates (update_id) VALUES (?) ON CONFLICT DO NOTHING",
                (update_id,),
            )
            if claimed == 0:
                return False
            if update_id % _FORGET_EVERY == 0:
                await db.execute("DELETE FROM handled_updates WHERE update_id <= ?",
                                 (update_id - _KEEP_UPDATES,))
            return True

    async def handled(self, update_id: int) -> bool:
        """Whether the update was claimed already (a look that claims nothing)."""
        async with self._connection.reading() as db:
            row = await db.fetchone("SELECT 1 FROM handled_updates WHERE update_id = ?",
                                    (update_id,))
        return row is not None

    async def release(self, update_id: int) -> None:
        """Forget a claim whose handling failed, so that the update, offered again, is taken."""
        async with self._connection.statement() as db:
            await db.execute("DELETE FROM handled_updates WHERE update_id = ?", (update_id,))
