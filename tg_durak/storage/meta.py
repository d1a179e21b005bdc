"""A few named values the bot keeps for itself (when it was last alive, and the like)."""

from __future__ import annotations

from tg_durak.storage.columns import dumps, loads
from tg_durak.storage.connection import Connection


class Meta:
    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    async def get(self, key: str) -> object | None:
        async with self._connection.reading() as db:
            row = await db.fetchone("SELECT value FROM meta WHERE key = ?", (key,))
        return None if row is None else loads(row[0], f"meta {key!r}")

    async def set(self, key: str, value: object) -> None:
        text = dumps(value)
        async with self._connection.transaction() as db:
            await db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, text),
            )
