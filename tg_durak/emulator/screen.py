"""What people see in a chat: every message's current text and buttons, oldest first."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tg_durak.emulator.world import World


@dataclass(frozen=True)
class Shown:
    """One message as a chat's members see it now."""

    chat_id: int
    message_id: int
    sender: str  # the sender's name as the app shows it
    from_bot: bool
    text: str
    buttons: tuple[tuple[str, ...], ...]  # the buttons' texts, by row
    thread_id: int | None = None  # the forum topic (None: General or not a forum)

    def __str__(self) -> str:
        rows = " / ".join(" | ".join(row) for row in self.buttons)
        return f"{self.sender}: {self.text}" + (f" [{rows}]" if rows else "")


def screen(world: World, chat_id: int, thread: int | None = None) -> list[Shown]:
    """Every live text message in the chat (in one forum topic, if `thread`), oldest first.

    A supergroup that replaced a basic group shows the old group's history first, as the apps
    do; those messages keep the old chat's id (the bot can no longer edit them).
    """
    chat = world.chat(chat_id)
    shown = [] if chat.migrated_from is None else screen(world, chat.migrated_from, thread)
    for message in world.messages(chat_id, include_user=True):
        if message.service is None and (thread is None or message.thread_id == thread):
            sender = world.bot if message.from_bot else world.user(message.sender_id)
            name = " ".join(filter(None, (sender.first_name, sender.last_name)))
            shown.append(Shown(
                chat_id=chat_id, message_id=message.message_id, sender=name,
                from_bot=message.from_bot, text=message.text,
                buttons=tuple(tuple(b.text for b in row) for row in message.buttons),
                thread_id=message.thread_id,
            ))
    return shown
