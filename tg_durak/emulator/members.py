"""ChatMember objects (getChatMember, my_chat_member, chat_member) shaped as the Bot API does."""

from __future__ import annotations

from typing import Any

from aiogram.enums import ChatMemberStatus, ChatType

from tg_durak.emulator.models import Chat, User

# Telegram's statuses but "restricted", which the emulator does not give.
STATUSES = tuple(s.value for s in ChatMemberStatus if s != ChatMemberStatus.RESTRICTED)

# What an administrator added with default rights may do; the bot never edits rights.
_ADMIN_RIGHTS = {
    "can_be_edited": False, "is_anonymous": False, "can_manage_chat": True,
    "can_delete_messages": True, "can_manage_video_chats": True, "can_restrict_members": True,
    "can_promote_members": False, "can_change_info": True, "can_invite_users": True,
    "can_post_stories": False, "can_edit_stories": False, "can_delete_stories": False,
    "can_send_welcome_messages": False, "can_pin_messages": True,
}


def member_json(user: User, status: str, chat: Chat) -> dict[str, Any]:
    """The ChatMember object of `user` with `status` in `chat`."""
    if status not in STATUSES:
        raise ValueError(f"unknown status {status!r}: one of {STATUSES}")
    data: dict[str, Any] = {"status": status, "user": user.to_api()}
    if status == ChatMemberStatus.CREATOR:
        data["is_anonymous"] = False
    elif status == ChatMemberStatus.ADMINISTRATOR:
        data.update(_ADMIN_RIGHTS)
        if chat.is_forum:
            data["can_manage_topics"] = True
    elif status == ChatMemberStatus.KICKED:
        data["until_date"] = 0  # banned forever
    return data


def bot_status(chat: Chat) -> ChatMemberStatus:
    """The bot's own status: a blocked bot is "kicked" from the private chat; a bot removed from
    a supergroup is banned ("kicked"), from a basic group it has "left"."""
    if chat.is_private:
        return ChatMemberStatus.KICKED if chat.blocked else ChatMemberStatus.MEMBER
    if chat.bot_kicked:
        return ChatMemberStatus.KICKED if chat.type == ChatType.SUPERGROUP \
            else ChatMemberStatus.LEFT
    return ChatMemberStatus.ADMINISTRATOR if chat.bot_is_admin else ChatMemberStatus.MEMBER


def member_updated(
    chat: Chat, by: User, date: int, old: dict[str, Any], new: dict[str, Any]
) -> dict[str, Any]:
    """A ChatMemberUpdated payload (my_chat_member, chat_member)."""
    return {
        "chat": chat.to_api(), "from": by.to_api(), "date": date,
        "old_chat_member": old, "new_chat_member": new,
    }
