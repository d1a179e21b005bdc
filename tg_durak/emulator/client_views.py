"""What the web client (client_web.py) shows one person: his chats and their messages, as JSON.

Pure reading of the World; the page draws these objects as they are.
"""

from __future__ import annotations

from typing import Any

from tg_durak.emulator.models import Chat, InlineButton, Message, User
from tg_durak.emulator.world import World

# A game's chat stays short (the bot edits its messages in place); this bounds a long session.
MESSAGES_SHOWN = 100


def display_name(user: User) -> str:
    return " ".join(filter(None, (user.first_name, user.last_name)))


def person_json(user: User) -> dict[str, Any]:
    return {"key": user.first_name.lower(), "id": user.id, "name": display_name(user)}


def chats_of(world: World, user_id: int) -> list[Chat]:
    """The person's chats as his app lists them: the one with the bot, his private chats with
    other people (where only inline mode brings the bot), then his groups."""
    dialogs = [chat for chat in world.chats.values() if chat.dialog and user_id in chat.members]
    groups = [
        chat for chat in world.chats.values()
        if not chat.is_private and user_id in chat.members and user_id not in chat.banned
        and chat.migrated_to is None
    ]
    return [world.chat(user_id), *sorted(dialogs, key=lambda chat: chat.id),
            *sorted(groups, key=lambda chat: chat.title or "")]


def button_json(button: InlineButton) -> dict[str, Any]:
    if button.callback_data is not None:
        return {"text": button.text, "kind": "callback", "data": button.callback_data}
    if button.web_app is not None:
        return {"text": button.text, "kind": "web_app", "url": button.web_app}
    if button.url is not None:
        return {"text": button.text, "kind": "url", "url": button.url}
    return {"text": button.text, "kind": "other"}


def _service_text(world: World, message: Message) -> str | None:
    """The grey line an app shows for a service message (None: one it does not show)."""
    service = message.service or {}
    if "new_chat_members" in service:
        names = ", ".join(m["first_name"] for m in service["new_chat_members"])
        return f"{names} joined the group"
    if "left_chat_member" in service:
        return f"{service['left_chat_member']['first_name']} left the group"
    return None


def message_json(world: World, message: Message, user_id: int) -> dict[str, Any] | None:
    sender = world.bot if message.from_bot else world.user(message.sender_id)
    data: dict[str, Any] = {
        "id": message.message_id,
        "from": {"id": sender.id, "name": display_name(sender), "bot": message.from_bot},
        "mine": sender.id == user_id,
        "date": message.date,
        "edited": message.edit_count > 0,
        "revision": message.edit_count,
    }
    if message.inline_id is not None:   # sent by a person, "via @bot"
        data["via"] = world.bot.username
    if message.service is not None:
        text = _service_text(world, message)
        return None if text is None else {**data, "service": text}
    return {
        **data,
        "text": message.text,
        "entities": [dict(e) for e in message.entities],
        "reply_to": message.reply_to_message_id,
        "buttons": [[button_json(b) for b in row] for row in message.buttons],
    }


def chat_json(world: World, chat: Chat, user_id: int, stamp: int) -> dict[str, Any]:
    """One chat as the person sees it; `stamp` changes whenever something in it does."""
    if chat.dialog:
        other = next((m for m in sorted(chat.members) if m != user_id), user_id)
        title, subtitle = display_name(world.user(other)), f"type @{world.bot.username} to play"
    elif chat.is_private:
        title, subtitle = world.bot.first_name, "bot"
    else:
        count = len(chat.members) + (0 if chat.bot_kicked else 1)
        title, subtitle = chat.title or "", f"{count} members"
    shown = [
        view for view in (
            message_json(world, m, user_id)
            for m in world.messages(chat.id, include_user=True)[-MESSAGES_SHOWN:]
        ) if view is not None
    ]
    return {
        "id": chat.id,
        "type": chat.type,
        "title": title,
        "subtitle": subtitle,
        "avatar": chat.id if chat.dialog else world.bot.id if chat.is_private else chat.id,
        "stamp": stamp,
        # A private chat nobody has written in yet shows Telegram's START button.
        "started": not chat.is_private or chat.opened,
        "commands": [] if chat.dialog else [
            c._asdict() for c in world.visible_commands(user_id, chat.id)],
        "inline": world.inline.enabled,   # typing @bot there asks the bot
        "messages": shown,
    }
