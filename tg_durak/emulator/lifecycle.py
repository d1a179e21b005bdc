"""What happens to chats and memberships, and the updates Telegram sends about it.

People's statuses in a group, the bot added to or removed from a group, forum topics opened, and
a basic group upgraded to a supergroup (the bot blocked in a private chat is World.block_bot).
No I/O.
"""

from __future__ import annotations

from aiogram.enums import ChatMemberStatus, ChatType

from tg_durak.emulator.members import STATUSES, member_json, member_updated
from tg_durak.emulator.models import SUPERGROUP_IDS_BELOW, Chat, User
from tg_durak.emulator.world import World

# The colour Telegram gives a topic created without one (0x6FB9F0).
TOPIC_ICON_COLOR = 7_322_096


def set_member(
    world: World, chat_id: int, user_id: int, status: str, by: int | None = None
) -> None:
    """Give a user a status in a group: creator, administrator, member, left or kicked.

    A bot that is an administrator gets a chat_member update (if it asked for that opt-in type);
    `by` is who made the change (default: the user himself).
    """
    chat, user = _group(world, chat_id), world.user(user_id)
    if status not in STATUSES:
        raise ValueError(f"unknown status {status!r}: one of {STATUSES}")
    old = member_json(user, chat.status_of(user_id), chat)
    if status == ChatMemberStatus.CREATOR and chat.creator_id not in (None, user_id):
        chat.creator_id = None  # ownership moves; the former owner stays an administrator
    _apply_status(chat, user_id, status)
    new = member_json(user, status, chat)
    if old != new and chat.bot_is_admin and not chat.bot_kicked:
        actor = world.user(user_id if by is None else by)
        world.updates.push("chat_member", member_updated(chat, actor, _now(world), old, new))


def _apply_status(chat: Chat, user_id: int, status: str) -> None:
    if chat.creator_id == user_id:
        chat.creator_id = None
    for group in (chat.members, chat.admins, chat.banned):
        group.discard(user_id)
    if status == ChatMemberStatus.KICKED:
        chat.banned.add(user_id)
    elif status != ChatMemberStatus.LEFT:
        chat.members.add(user_id)
    if status in (ChatMemberStatus.CREATOR, ChatMemberStatus.ADMINISTRATOR):
        chat.admins.add(user_id)
    if status == ChatMemberStatus.CREATOR:
        chat.creator_id = user_id


def kick_bot(world: World, chat_id: int, by: int | None = None) -> None:
    """Someone removes the bot from a group: my_chat_member to "kicked" (supergroup) or "left"."""
    chat = _group(world, chat_id)
    if chat.bot_kicked:
        return

    def remove() -> None:
        chat.bot_kicked, chat.bot_is_admin = True, False

    world.change_bot_status(chat, _actor(world, chat, by), remove)


def add_bot(world: World, chat_id: int, by: int | None = None, admin: bool = False) -> None:
    """Someone adds the removed bot back: my_chat_member, then the new_chat_members message."""
    chat = _group(world, chat_id)
    if not chat.bot_kicked:
        raise ValueError(f"the bot is already in chat {chat_id}")
    actor = _actor(world, chat, by)

    def add() -> None:
        chat.bot_kicked, chat.bot_is_admin = False, admin

    world.change_bot_status(chat, actor, add)
    world.service_message(chat, actor.id, {"new_chat_members": [world.bot.to_api()]})


def add_topic(world: World, chat_id: int, name: str, by: int) -> int:
    """A user opens a forum topic; its id (message_thread_id) is that of its first message."""
    chat = _group(world, chat_id)
    if not chat.is_forum:
        raise ValueError(f"chat {chat_id} is not a forum")
    world.user(by)
    thread_id = world.new_message_id(chat.id)
    chat.topics[thread_id] = name
    world.service_message(
        chat, by, {"forum_topic_created": {"name": name, "icon_color": TOPIC_ICON_COLOR}},
        thread_id=thread_id,
    )
    return thread_id


def migrate(
    world: World, chat_id: int, by: int | None = None, new_chat_id: int | None = None
) -> Chat:
    """Upgrade a basic group to a supergroup, as Telegram does.

    The old group keeps its messages and answers every later request with 400 and
    migrate_to_chat_id. The supergroup starts a new history: its message 1 is the
    migrate_from_chat_id service message; the old group's last one is migrate_to_chat_id.
    The old messages' buttons can still be tapped (the apps show the old history above the new).
    Default new id: -100 and the old id's digits padded to ten (-42 -> -1000000000042).
    """
    old = _group(world, chat_id)
    if old.type != ChatType.GROUP or old.migrated_to is not None:
        raise ValueError(f"chat {chat_id} is not a basic group that can be upgraded")
    new_id = SUPERGROUP_IDS_BELOW + chat_id if new_chat_id is None else new_chat_id
    if new_id >= SUPERGROUP_IDS_BELOW or new_id in world.chats:
        raise ValueError(f"supergroup id {new_id} must be below {SUPERGROUP_IDS_BELOW} and new")
    actor = _actor(world, old, by)
    new = Chat(
        id=new_id, type=ChatType.SUPERGROUP.value, title=old.title, members=set(old.members),
        admins=set(old.admins), bot_is_admin=old.bot_is_admin, bot_kicked=old.bot_kicked,
        creator_id=old.creator_id, banned=set(old.banned), migrated_from=old.id,
    )
    world.chats[new_id] = new
    old.migrated_to = new_id
    world.service_message(old, actor.id, {"migrate_to_chat_id": new_id})
    world.service_message(new, actor.id, {"migrate_from_chat_id": old.id})
    return new


def _group(world: World, chat_id: int) -> Chat:
    chat = world.chat(chat_id)
    if chat.is_private:
        raise ValueError(f"chat {chat_id} is a private chat, not a group")
    return chat


def _actor(world: World, chat: Chat, by: int | None) -> User:
    """Who does something to a group: `by`, else its creator, an administrator or a member."""
    if by is None:
        by = chat.creator_id
    if by is None:
        by = min(chat.admins or chat.members, default=None)
    if by is None:
        raise ValueError(f"chat {chat.id} has nobody in it: pass by=<user id>")
    return world.user(by)


def _now(world: World) -> int:
    return int(world.clock())
