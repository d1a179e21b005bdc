"""The fake chat world: users, chats, messages and callback queries, and what people do in it.

The driver-side operations (`user_message`, `press`, `follow_url`, ...) are what a human does in
a Telegram app; they queue the updates the bot is told about. What happens to chats and memberships
(statuses, the bot removed or added, topics, upgrades) is in lifecycle.py, which builds on this
module; the bot blocked in a private chat is here, because writing to the bot unblocks it.
No I/O, no asyncio.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from aiogram.enums import ChatType

from tg_durak.emulator.commands import CommandMenus
from tg_durak.emulator.inline import InlineMode
from tg_durak.emulator.links import WebApps, start_link_payload
from tg_durak.emulator.markup import find_bot_commands
from tg_durak.emulator.members import bot_status, member_json, member_updated
from tg_durak.emulator.models import (
    SUPERGROUP_IDS_BELOW,
    CallbackQuery,
    Change,
    ChangeKind,
    Chat,
    Command,
    Message,
    User,
    chat_instance,
)
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
        self.web_apps = WebApps()
        self.updates = UpdateQueue(first_update_id, on_new=lambda: notify(None))
        self.notify = notify
        self._messages: dict[int, dict[int, Message]] = defaultdict(dict)
        self._last_message_id: dict[int, int] = defaultdict(int)
        self._next_query_id = 4_242_000_000_000_000_001
        self.inline = InlineMode(self)

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
        self.chats[user_id] = Chat(id=user_id, type=ChatType.PRIVATE.value, user=user,
                                   members={user_id})
        return user

    def add_group(
        self,
        chat_id: int,
        title: str,
        members: Iterable[int] = (),
        admins: Iterable[int] = (),
        bot_is_admin: bool = False,
        creator: int | None = None,
        is_forum: bool = False,
    ) -> Chat:
        if chat_id >= 0 or chat_id in self.chats:
            raise ValueError(f"group id {chat_id} must be negative and new")
        admins = set(admins) | ({creator} if creator is not None else set())
        members = set(members) | admins
        unknown = members - self.users.keys()
        if unknown:
            raise ValueError(f"unknown users {sorted(unknown)}: add_user them first")
        kind = ChatType.SUPERGROUP if chat_id < SUPERGROUP_IDS_BELOW else ChatType.GROUP
        if is_forum and kind != ChatType.SUPERGROUP:
            raise ValueError(f"only a supergroup can be a forum, not {chat_id}")
        chat = Chat(id=chat_id, type=kind.value, title=title, members=members, admins=admins,
                    bot_is_admin=bot_is_admin, creator_id=creator, is_forum=is_forum)
        self.chats[chat_id] = chat
        if is_forum:
            self._last_message_id[chat_id] = 1  # message 1 opens the General topic
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
        chat = self.chats[message.chat_id]
        data: dict[str, Any] = {
            "message_id": message.message_id,
            "from": sender.to_api(),
            "chat": chat.to_api(),
            "date": message.date,
        }
        thread = self._thread_of(chat, message)
        if thread is not None:
            data["message_thread_id"] = thread
        if message.thread_id is not None:
            data["is_topic_message"] = True
        if message.edit_date is not None:
            data["edit_date"] = message.edit_date
        if message.forwarded_from is not None:
            data["forward_origin"] = {"type": "user", "date": message.date,
                                      "sender_user": self._sender(message.forwarded_from).to_api()}
        elif message.forwarded_name is not None:
            data["forward_origin"] = {"type": "hidden_user", "date": message.date,
                                      "sender_user_name": message.forwarded_name}
        replied = self.live_message(chat.id, self._replied_id(message) or 0) if with_reply else None
        if replied is not None:
            data["reply_to_message"] = self.message_json(replied, with_reply=False)
        if message.service is not None:
            return {**data, **message.service}
        data["text"] = message.text
        if message.entities:
            data["entities"] = [dict(e) for e in message.entities]
        if message.buttons:
            data["reply_markup"] = {
                "inline_keyboard": [[b.to_api() for b in row] for row in message.buttons]
            }
        return data

    def _sender(self, user_id: int) -> User:
        return self.bot if user_id == self.bot.id else self.users[user_id]

    @staticmethod
    def _replied_id(message: Message) -> int | None:
        """The message this one replies to; in a topic that is at least the topic's first one."""
        if message.reply_to_message_id is not None or message.thread_id == message.message_id:
            return message.reply_to_message_id
        return message.thread_id

    def _thread_of(self, chat: Chat, message: Message) -> int | None:
        """message_thread_id: the forum topic, or in a supergroup the root of a reply chain
        (then without is_topic_message, which is how bots tell the two apart)."""
        if message.thread_id is not None or chat.type != ChatType.SUPERGROUP:
            return message.thread_id
        root = message
        while root.reply_to_message_id is not None:
            parent = self._messages[chat.id].get(root.reply_to_message_id)
            if parent is None:
                break
            root = parent
        return None if root is message else root.message_id

    def store(self, message: Message, kind: ChangeKind) -> Message:
        """Keep this version of the message and tell subscribers."""
        self._messages[message.chat_id][message.message_id] = message
        last = self._last_message_id
        last[message.chat_id] = max(last[message.chat_id], message.message_id)
        self.notify(Change(kind, message.chat_id, message.message_id, message))
        return message

    def new_message_id(self, chat_id: int) -> int:
        """The id the chat's next message gets (ids are never reused)."""
        return self._last_message_id[chat_id] + 1

    def service_message(
        self, chat: Chat, sender_id: int, service: dict[str, Any], thread_id: int | None = None
    ) -> Message:
        """Store a service message from a user; bots get those even in privacy mode."""
        message = self.store(Message(
            message_id=self.new_message_id(chat.id), chat_id=chat.id, sender_id=sender_id,
            from_bot=False, date=int(self.clock()), text="", thread_id=thread_id,
            service=service,
        ), ChangeKind.MESSAGE)
        if not chat.bot_kicked:
            self.updates.push("message", self.message_json(message))
        return message

    # ---------------------------------------------------------------- what users do

    def user_message(
        self,
        user_id: int,
        text: str,
        chat_id: int | None = None,
        reply_to: int | None = None,
        thread: int | None = None,
    ) -> Message:
        """A user writes `text` (a private chat by default; in a forum, in topic `thread` or in
        that of the replied message); the bot gets it unless privacy mode filters it out."""
        user = self.user(user_id)
        chat = self.chat(user_id if chat_id is None else chat_id)
        self._let_write(user_id, chat)
        thread = self._user_thread(chat, reply_to, thread)
        message = self.store(Message(
            message_id=self.new_message_id(chat.id), chat_id=chat.id, sender_id=user.id,
            from_bot=False, date=int(self.clock()), text=text,
            entities=tuple(find_bot_commands(text)), reply_to_message_id=reply_to,
            thread_id=thread,
        ), ChangeKind.MESSAGE)
        if self._bot_sees(chat, message):
            self.updates.push("message", self.message_json(message))
        return message

    def forward(self, user_id: int, chat_id: int, message_id: int, to_chat_id: int | None = None,
                hidden: bool = False) -> Message:
        """A user forwards a message he can see in `chat_id` to `to_chat_id` (default: his
        private chat with the bot); `hidden`: its sender's privacy settings forbid a link to
        him, so the copy names him only."""
        source = self.live_message(chat_id, message_id)
        if source is None or (user_id not in self.chat(chat_id).members and chat_id != user_id):
            raise ValueError(f"user {user_id} cannot see message {chat_id}/{message_id}")
        chat = self.chat(user_id if to_chat_id is None else to_chat_id)
        self._let_write(user_id, chat)
        sender = self.bot if source.from_bot else self.user(source.sender_id)
        message = self.store(Message(
            message_id=self.new_message_id(chat.id), chat_id=chat.id, sender_id=user_id,
            from_bot=False, date=int(self.clock()), text=source.text, entities=source.entities,
            forwarded_from=None if hidden else sender.id,
            forwarded_name=sender.first_name if hidden else None,
        ), ChangeKind.MESSAGE)
        if self._bot_sees(chat, message):
            self.updates.push("message", self.message_json(message))
        return message

    def _let_write(self, user_id: int, chat: Chat) -> None:
        """Check that the user can write in `chat`; writing opens (and unblocks) a private chat
        and makes the user a group member."""
        if chat.migrated_to is not None:
            raise ValueError(f"group {chat.id} was upgraded to the supergroup {chat.migrated_to}")
        if chat.dialog:
            if user_id not in chat.members:
                raise ValueError(f"user {user_id} cannot write in the private chat {chat.id}")
        elif chat.is_private:
            if chat.id != user_id:
                raise ValueError(f"user {user_id} cannot write in the private chat {chat.id}")
            self.block_bot(user_id, blocked=False)  # a client's "Restart" unblocks
            chat.opened = True
        elif user_id in chat.banned:
            raise ValueError(f"user {user_id} was removed from chat {chat.id}")
        else:
            chat.members.add(user_id)

    def _user_thread(self, chat: Chat, reply_to: int | None, thread: int | None) -> int | None:
        """The forum topic of a user's message: the one asked for or the replied message's."""
        replied_thread = None if reply_to is None else self.message(chat.id, reply_to).thread_id
        if thread is None:
            return replied_thread
        if not chat.is_forum:
            raise ValueError(f"chat {chat.id} is not a forum: it has no topics")
        if thread not in chat.topics:
            raise LookupError(f"no topic {thread} in chat {chat.id}; topics: {chat.topics}")
        if reply_to is not None and replied_thread != thread:
            raise ValueError(f"message {chat.id}/{reply_to} is not in topic {thread}")
        return thread

    def follow_url(self, user_id: int, url: str | None = None) -> Message:
        """The user opens a t.me link to the bot (default: the URL the bot answered his last
        tap with) and taps Start: `/start <payload>` arrives from the private chat."""
        if url is None:
            url = self.last_answer_url(user_id)
        payload = start_link_payload(url, self.bot.username or "")
        if payload is None:
            raise ValueError(f"{url!r} is not a link to @{self.bot.username}")
        return self.user_message(user_id, f"/start {payload}" if payload else "/start")

    def last_answer_url(self, user_id: int) -> str:
        """The url of the bot's answer to the user's latest answered tap."""
        for query in reversed(self.callbacks.values()):
            if query.user_id == user_id and query.answer is not None:
                if query.answer.url is None:
                    raise LookupError(
                        f"the bot answered user {user_id}'s last tap ({query.data!r}) without a url"
                    )
                return query.answer.url
        raise LookupError(f"the bot has answered no tap of user {user_id}")

    def _bot_sees(self, chat: Chat, message: Message) -> bool:
        if chat.dialog:
            return False   # two people's own chat: the bot is not in it
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
        message = self.message(chat_id, message_id)
        if message.inline_id is not None and not message.deleted:
            return self.inline.press(user_id, message, data)
        if chat.is_private and chat.id != user_id:
            raise ValueError(f"user {user_id} cannot see the private chat {chat_id}")
        if message.deleted:
            raise LookupError(f"message {chat_id}/{message_id} was deleted")
        if chat.bot_kicked:
            raise ValueError(f"the bot is not in chat {chat_id}: no one would answer the tap")
        if user_id in chat.banned:
            raise ValueError(f"user {user_id} was removed from chat {chat_id}")
        if not chat.is_private:
            chat.members.add(user_id)
        query = self.new_callback(user_id, message, data)
        delivered = self.updates.push("callback_query", {
            "id": query.id,
            "from": user.to_api(),
            "message": self.message_json(message),
            "chat_instance": chat_instance(chat_id),
            "data": data,
        })
        if not delivered:
            allowed = sorted(self.updates.allowed or ())
            raise RuntimeError(f"callback_query is not among the bot's allowed_updates {allowed}")
        return query

    def new_callback(self, user_id: int, message: Message, data: str) -> CallbackQuery:
        """A tap's callback query, kept for its answer."""
        query = CallbackQuery(
            id=str(self._next_query_id), user_id=user_id, chat_id=message.chat_id,
            message_id=message.message_id, data=data, created=self.clock(),
        )
        self._next_query_id += 1
        self.callbacks[query.id] = query
        return query

    def user_delete_message(self, chat_id: int, message_id: int) -> None:
        """A user deletes a message for everyone; bots are not told about deletions."""
        message = self.message(chat_id, message_id)
        if not message.deleted:
            self.store(replace(message, deleted=True), ChangeKind.DELETE)

    def block_bot(self, user_id: int, blocked: bool = True) -> None:
        """The user blocks (or unblocks) the bot; the bot gets my_chat_member member <-> kicked."""
        chat = self.chat(user_id)
        if chat.blocked == blocked:
            return

        def change() -> None:
            chat.blocked = blocked

        self.change_bot_status(chat, self.user(user_id), change)

    def change_bot_status(self, chat: Chat, by: User, change: Callable[[], None]) -> None:
        """Make `change` to how the bot stands in `chat` and tell the bot: my_chat_member."""
        old = member_json(self.bot, bot_status(chat), chat)
        change()
        new = member_json(self.bot, bot_status(chat), chat)
        self.updates.push("my_chat_member", member_updated(chat, by, int(self.clock()), old, new))

    def visible_commands(self, user_id: int, chat_id: int | None = None) -> list[Command]:
        """The command menu a user sees in a chat (default: the private chat)."""
        user = self.user(user_id)
        return self.command_menus.visible(user, self.chat(user_id if chat_id is None else chat_id))
