"""What happens to a group chat around its lobby or table: it becomes a supergroup, or the bot is
removed from it; and a chat that refuses the bot (issue 10, "Chat lifecycle").

A mixin of `TableService` (tables.py). Telegram says so in updates (the `migrate_to_chat_id`
service message, `my_chat_member`) and in errors the publisher meets (a 400 with the new chat id,
a 403); either way the same methods run, and running them twice changes nothing more.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tg_durak.tables.lobbies import LiveLobby
    from tg_durak.tables.service import LiveTable, TableService


class ChatLifecycle:
    """Chat migration, removal and refusal for TableService (see the module docstring)."""

    def _in_chat(self: TableService, chat_id: int) -> list[LiveLobby | LiveTable]:
        return [holder for holder in (*self._lobbies.values(), *self._tables.values())
                if holder.row.chat_id == chat_id]

    async def chat_refused(self: TableService, chat_id: int) -> None:
        """The publisher's 403: a person's private chat (he blocked the bot) or a group the bot
        may no longer write to."""
        if chat_id > 0:
            await self.mark_unreachable(chat_id)
        else:
            await self.bot_removed(chat_id)

    async def migrate_chat(self: TableService, old_chat_id: int, new_chat_id: int) -> None:
        """A group became a supergroup: its lobby or table follows it, and the group message is
        sent afresh in the new chat (the old one cannot be edited under the new id)."""
        await self.store.tables.migrate_chat(old_chat_id, new_chat_id)
        for holder in self._in_chat(old_chat_id):
            async with self._locks[holder.id]:
                holder.row = replace(holder.row, chat_id=new_chat_id)
                holder.messages.pop(None, None)
                if self._lobbies.get(holder.id) is holder:
                    self._show_lobby(holder)
                elif self._tables.get(holder.id) is holder and not holder.group_gone:
                    self._publish_group(holder)

    async def bot_removed(self: TableService, chat_id: int) -> None:
        """The bot left or was removed: the chat's open lobby closes; a running table plays on
        from the private messages alone."""
        for holder in self._in_chat(chat_id):
            async with self._locks[holder.id]:
                if self._lobbies.get(holder.id) is holder:
                    await self._close(holder, "removed")
                elif self._tables.get(holder.id) is holder:
                    holder.group_gone = True
                    holder.messages.pop(None, None)
