"""The messages that show each table: the group's public one and each player's private one.

A message id is an int, or a str: an inline message's inline_message_id (play/inline.py), kept
in its own column while message_id holds 0.
"""

from __future__ import annotations

from tg_durak.play.rows import MessageRow
from tg_durak.storage.columns import RUNNING_IDS
from tg_durak.storage.connection import Connection

# The group's public message has no user; a primary key cannot hold NULL, so it is stored as 0.
_GROUP_VIEWER = 0


_COLUMNS = "viewer, chat_id, message_id, inline_message_id"


def _message_row(table_id: int, viewer: int, chat_id: int, message_id: int,
                 inline_message_id: str | None) -> MessageRow:
    return MessageRow(table_id, None if viewer == _GROUP_VIEWER else viewer, chat_id,
                      message_id if inline_message_id is None else inline_message_id)


class Messages:
    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    async def set(self, table_id: int, user_id: int | None, chat_id: int,
                  message_id: int | str) -> None:
        """Remember which message shows the table to ``user_id`` (None: the group's message).
        An inline message shows one table at a time: another's claim on it ends."""
        viewer = _GROUP_VIEWER if user_id is None else user_id
        inline = message_id if isinstance(message_id, str) else None
        async with self._connection.transaction() as db:
            if inline is not None:
                await db.execute(
                    "DELETE FROM messages WHERE inline_message_id = ? AND table_id <> ?",
                    (inline, table_id))
            await db.execute(
                "INSERT INTO messages (table_id, viewer, chat_id, message_id, inline_message_id)"
                " VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT (table_id, viewer) DO UPDATE"
                " SET chat_id = excluded.chat_id, message_id = excluded.message_id,"
                " inline_message_id = excluded.inline_message_id",
                (table_id, viewer, chat_id, 0 if inline is not None else message_id, inline),
            )

    async def of_inline(self, inline_message_id: str) -> int | None:
        """The table an inline message shows now, if any."""
        async with self._connection.reading() as db:
            row = await db.fetchone(
                "SELECT table_id FROM messages WHERE inline_message_id = ?", (inline_message_id,))
        return None if row is None else int(row[0])

    async def of_table(self, table_id: int) -> list[MessageRow]:
        """The table's messages, the group's public one first."""
        async with self._connection.reading() as db:
            rows = await db.fetchall(
                f"SELECT {_COLUMNS} FROM messages WHERE table_id = ?"
                " ORDER BY viewer",
                (table_id,),
            )
        return [_message_row(table_id, *row) for row in rows]

    async def running(self) -> dict[int, list[MessageRow]]:
        """The messages of every running table, by table id (as `of_table` gives them)."""
        async with self._connection.reading() as db:
            rows = await db.fetchall(
                f"SELECT table_id, {_COLUMNS} FROM messages"
                f" WHERE table_id IN ({RUNNING_IDS}) ORDER BY table_id, viewer")
        found: dict[int, list[MessageRow]] = {}
        for row in rows:
            found.setdefault(row[0], []).append(_message_row(*row))
        return found
