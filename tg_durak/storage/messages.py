"""The messages that show each table: the group's public one and each player's private one."""

from __future__ import annotations

from tg_durak.play.rows import MessageRow
from tg_durak.storage.columns import RUNNING_IDS
from tg_durak.storage.connection import Connection

# The group's public message has no user; a primary key cannot hold NULL, so it is stored as 0.
_GROUP_VIEWER = 0


def _message_row(table_id: int, viewer: int, chat_id: int, message_id: int) -> MessageRow:
    return MessageRow(table_id, None if viewer == _GROUP_VIEWER else viewer, chat_id, message_id)


class Messages:
    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    async def set(self, table_id: int, user_id: int | None, chat_id: int, message_id: int) -> None:
        """Remember which message shows the table to ``user_id`` (None: the group's message)."""
        viewer = _GROUP_VIEWER if user_id is None else user_id
        async with self._connection.transaction() as db:
            await db.execute(
                "INSERT INTO messages (table_id, viewer, chat_id, message_id) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (table_id, viewer) DO UPDATE"
                " SET chat_id = excluded.chat_id, message_id = excluded.message_id",
                (table_id, viewer, chat_id, message_id),
            )

    async def of_table(self, table_id: int) -> list[MessageRow]:
        """The table's messages, the group's public one first."""
        async with self._connection.reading() as db:
            rows = await db.fetchall(
                "SELECT viewer, chat_id, message_id FROM messages WHERE table_id = ?"
                " ORDER BY viewer",
                (table_id,),
            )
        return [_message_row(table_id, *row) for row in rows]

    async def running(self) -> dict[int, list[MessageRow]]:
        """The messages of every running table, by table id (as `of_table` gives them)."""
        async with self._connection.reading() as db:
            rows = await db.fetchall(
                "SELECT table_id, viewer, chat_id, message_id FROM messages"
                f" WHERE table_id IN ({RUNNING_IDS}) ORDER BY table_id, viewer")
        found: dict[int, list[MessageRow]] = {}
        for row in rows:
            found.setdefault(row[0], []).append(_message_row(*row))
        return found
