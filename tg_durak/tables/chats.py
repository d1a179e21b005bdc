"""What happens to the chats around tables: a message the outbox sent, a group that became a
supergroup, a chat that refuses the bot.

Telegram says so in updates (the `migrate_to_chat_id` service message, `my_chat_member`) and in
errors the outbox meets (a 400 with the new chat id, a 403); either way the same methods run,
and running them twice changes nothing more. The outbox's reports (outbox.reports) reach them
through `heard`.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace

from tg_durak.outbox.reports import ChatMigrated, ChatRefused, MessageSent, OutboxReport
from tg_durak.play.lobby_rules import LobbyEnd
from tg_durak.storage import Store
from tg_durak.tables.absences import Absences
from tg_durak.tables.core import TableCore
from tg_durak.tables.lobbies import GroupLobbies
from tg_durak.tables.screens import ChatScreens


class ChatLifecycle:
    def __init__(self, core: TableCore, screens: ChatScreens, store: Store,
                 lobbies: GroupLobbies, absences: Absences) -> None:
        self.core = core
        self.screens = screens
        self.store = store
        self.lobbies = lobbies
        self.absences = absences

    async def heard(self, report: OutboxReport) -> None:
        """What the outbox met while sending (outbox.reports)."""
        if isinstance(report, MessageSent):
            await self.message_sent(report.key, report.chat_id, report.message_id)
        elif isinstance(report, ChatRefused):
            await self.chat_refused(report.chat_id)
        elif isinstance(report, ChatMigrated):
            await self.chat_migrated(report.old_chat_id, report.new_chat_id)

    async def message_sent(self, key: Hashable, chat_id: int, message_id: int) -> None:
        """The outbox sent a fresh message for a player (or the group): remember it for later
        edits. A private message that went through means the bot may write to him."""
        if not (isinstance(key, tuple) and len(key) == 2):
            return   # a one-off notice (someone out of reach): never edited
        table_id, user_id = key
        holder = self.core.held(table_id)
        if holder is not None:
            holder.messages[user_id] = (chat_id, message_id)
        await self.store.messages.set(table_id, user_id, chat_id, message_id)
        if user_id is not None:
            await self.store.users.set_reachable(user_id, True)

    async def chat_refused(self, chat_id: int) -> None:
        """The outbox's 403: a person's private chat (he blocked the bot) or a group the bot
        may no longer write to."""
        if chat_id > 0:
            await self.absences.mark_unreachable(chat_id)
        else:
            await self.bot_removed(chat_id)

    async def chat_migrated(self, old_chat_id: int, new_chat_id: int) -> None:
        """A group became a supergroup: its lobby or table follows it, and the group message is
        sent afresh in the new chat (the old one cannot be edited under the new id)."""
        core = self.core
        holders = await core.find_in_chat(old_chat_id)
        await self.store.tables.migrate_chat(old_chat_id, new_chat_id)
        for holder in holders:
            async with core.lock(holder.id):
                holder.row = replace(holder.row, chat_id=new_chat_id)
                holder.messages.pop(None, None)
                if core.lobbies.get(holder.id) is holder:
                    self.core.display.show_lobby(holder)
                elif core.tables.get(holder.id) is holder and not holder.group_gone:
                    self.screens.show_public(holder)

    async def bot_removed(self, chat_id: int) -> None:
        """The bot left or was removed: the chat's open lobby closes; a running table plays on
        from the private messages alone."""
        core = self.core
        for holder in await core.find_in_chat(chat_id):
            async with core.lock(holder.id):
                if core.lobbies.get(holder.id) is holder:
                    await self.lobbies.close(holder, LobbyEnd.REMOVED)
                elif core.tables.get(holder.id) is holder:
                    holder.group_gone = True
                    holder.messages.pop(None, None)
