"""The fake chat world: users, chats, messages and callback queries, and what people do in it.

The driver-side operations (`user_message`, `press`, `user_delete_message`, ...) are what a human
does in a Telegram app; they queue the updates the bot is told about. No I/O and no asyncio.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from tg_durak.emulator.commands import CommandMenus
from tg_durak.emulator.markup import find_bot_commands
from tg_durak.emulator.models import CallbackQuery, Change, Chat, Command, Message, User
from tg_durak.emulator.updates import UpdateQueue


class World:
    """Users, chats, messages, callback queries, the bot's command menus and its update queue."""

    def __init__(
        self,
        token: str,
        *,
        bot_username: str,
        bot_name: str,
        clock: Callable[[], float],
        notify: Callable[[Change | None], None],
        privacy_mode: bool = True,
        first_update_id: int = 1,
    ) -> None:
        self.bot = User(
            id=int(token.split(":", 1)[0]), first_name=bot_name, username=bot_username,
            language_code=None, is_bot=True,
        )
        self.clock = clock
        self.privacy_mode = privacy_mode
        self.users: dict[int, User] = {}
        self.chats: dict[int, Chat] = {}
        self.callbacks: dict[str, CallbackQuery] = {}
        self.command_menus = CommandMenus()
        self.updates = UpdateQueue(first_update_id, on_new=lambda: notify(None))
        self.notify = notify
        self._messages: dict[int, dict[int, Message]] = defaultdict(dict)
        self._next_query_id = 4_242_000_000_000_000_001

    # ---------------------------------------------------------------- people and chats

    def add_user(
        self,
        user_id: int,
        first_name: str,
        language_code: str | None = "en",
        username: str | None = None,
        last_name: str | None = None,
    ) -> User:
        if user_id <= 0 or user_id in self.users:
            raise ValueError(f"user id {user_id} must be positive and new")
        user = User(user_id, first_name, last_name, username, language_code)
        self.users[user_id] = user
        self.chats[user_id] = Chat(id=user_id, type="private", user=user, members={user_id})
        return user

    def add_group(
        self,
        chat_id: int,
        title: str,
        members: Iterable[int] = (),
        admins: Iterable[int] = (),
        bot_is_admin: bool = False,
    ) -> Chat:
        if chat_id >= 0 or chat_id in self.chats:
            raise ValueError(f"group id {chat_id} must be negative and new")
        members, admins = set(members), set(admins)
        unknown = (members | admins) - self.users.keys()
        if unknown:
            raise ValueError(f"unknown users {sorted(unknown)}: add_user them first")
        # Supergroup ids are -100 followed by the channel id, as in Telegram.
        kind = "supergroup" if chat_id < -1_000_000_000_000 else "group"
        chat = Chat(id=chat_id, type=kind, title=title, members=members | admins, admins=admins,
                    bot_is_admin=bot_is_admin)
        self.chats[chat_id] = chat
        return chat

    def user(self, user_id: int) -> User:
        if user_id not in self.users:
            raise LookupError(f"unknown user {user_id}: add_user it first")
        return self.users[user_id]

    def chat(self, chat_id: int) -> Chat:
        if chat_id not in self.chats:
            raise LookupError(f"unknown chat {chat_id}")
        return self.chats[chat_id]

    # ---------------------------------------------------------------- messages

    def messages(
        self, chat_id: int, include_deleted: bool = False, include_user: bool = False
    ) -> list[Message]:
        return [
            m for m in self._messages[chat_id].values()
            if (include_deleted or not m.deleted) and (include_user or m.from_bot)
        ]

    def message(self, chat_id: int, message_id: int) -> Message:
        try:
            return self._messages[chat_id][message_id]
        except KeyError:
            raise LookupError(f"no message {chat_id}/{message_id}") from None

    def live_message(self, chat_id: int, message_id: int) -> Message | None:
        """The message if it exists and is not deleted."""
        message = self._messages[chat_id].get(message_id)
        return None if message is None or message.deleted else message

    def message_json(self, message: Message, with_reply: bool = True) -> dict[str, Any]:
        sender = self.bot if message.from_bot else self.users[message.sender_id]
        data: dict[str, Any] = {
            "message_id": message.message_id,
            "from": sender.to_api(),
            "chat": self.chats[message.chat_id].to_api(),
            "date": message.date,
        }
        if message.edit_date is not None:
            data["edit_date"] = message.edit_date
        if with_reply and message.reply_to_message_id is not None:
            replied = self.live_message(message.chat_id, message.reply_to_message_id)
            if replied is not None:
                data["reply_to_message"] = self.message_json(replied, with_reply=False)
        data["text"] = message.text
        if message.entities:
            data["entities"] = [dict(e) for e in message.entities]
        if message.buttons:
            data["reply_markup"] = {
                "inline_keyboard": [[b.to_api() for b in row] for row in message.buttons]
            }
        return data

    def store(self, message: Message, kind: str) -> Message:
        """Keep this version of the message and tell subscribers (kind: a Change kind)."""
        self._messages[message.chat_id][message.message_id] = message
        self.notify(Change(kind, message.chat_id, message.message_id, message))
        return message

    def new_message_id(self, chat_id: int) -> int:
        return max(self._messages[chat_id], default=0) + 1

    # ---------------------------------------------------------------- what users do

    def user_message(
        self, user_id: int, text: str, chat_id: int | None = None, reply_to: int | None = None
    ) -> Message:
        """A user writes `text` (a private chat by default); the bot gets it unless filtered."""
        user = self.user(user_id)
        chat = self.chat(user_id if chat_id is None else chat_id)
        if chat.is_private:
            if chat.id != user_id:
                raise ValueError(f"user {user_id} cannot write in the private chat {chat.id}")
            chat.opened, chat.blocked = True, False
        else:
            chat.members.add(user_id)
        if reply_to is not None:
            self.message(chat.id, reply_to)
        message = self.store(Message(
            message_id=self.new_message_id(chat.id), chat_id=chat.id, sender_id=user.id,
            from_bot=False, date=int(self.clock()), text=text,
            entities=tuple(find_bot_commands(text)), reply_to_message_id=reply_to,
        ), "message")
        if self._bot_sees(chat, message):
            self.updates.push("message", self.message_json(message))
        return message

    def _bot_sees(self, chat: Chat, message: Message) -> bool:
        if chat.is_private:
            return True
        if chat.bot_kicked:
            return False
        if not self.privacy_mode:
            return True
        # Privacy mode: commands, mentions of the bot and replies to the bot only (a reply to a
        # since deleted message of the bot counts too).
        replied = self._messages[chat.id].get(message.reply_to_message_id or 0)
        return (
            any(e["type"] == "bot_command" for e in message.entities)
            or f"@{self.bot.username}".lower() in message.text.lower()
            or (replied is not None and replied.from_bot)
        )

    def press(self, user_id: int, chat_id: int, message_id: int, data: str) -> CallbackQuery:
        """A user taps a callback button carrying `data` (which need not be on the message)."""
        user = self.user(user_id)
        chat = self.chat(chat_id)
        if chat.is_private and chat.id != user_id:
            raise ValueError(f"user {user_id} cannot see the private chat {chat_id}")
        message = self.message(chat_id, message_id)
        if message.deleted:
            raise LookupError(f"message {chat_id}/{message_id} was deleted")
        if not chat.is_private:
            chat.members.add(user_id)
        query = CallbackQuery(
            id=str(self._next_query_id), user_id=user_id, chat_id=chat_id,
            message_id=message_id, data=data, created=self.clock(),
        )
        self._next_query_id += 1
        self.callbacks[query.id] = query
        delivered = self.updates.push("callback_query", {
            "id": query.id,
            "from": user.to_api(),
            "message": self.message_json(message),
            "chat_instance": str(abs(chat_id * 7_919 + 104_729)),
            "data": data,
        })
        if not delivered:
            allowed = sorted(self.updates.allowed or ())
            raise RuntimeError(f"callback_query is not among the bot's allowed_updates {allowed}")
        return query

    def user_delete_message(self, chat_id: int, message_id: int) -> None:
        """A user deletes a message for everyone; bots are not told about deletions."""
        message = self.message(chat_id, message_id)
        if not message.deleted:
            self.store(replace(message, deleted=True), "delete")

    def block_bot(self, user_id: int, blocked: bool = True) -> None:
        self.chat(user_id).blocked = blocked

    def kick_bot(self, chat_id: int) -> None:
        self.chat(chat_id).bot_kicked = True

    def visible_commands(self, user_id: int, chat_id: int | None = None) -> list[Command]:
        """The command menu a user sees in a chat (default: the private chat)."""
        user = self.user(user_id)
        return self.command_menus.visible(user, self.chat(user_id if chat_id is None else chat_id))
