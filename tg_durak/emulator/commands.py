"""The bot's command menus (setMyCommands) by scope and language, and the one a user sees."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tg_durak.emulator.models import Chat, Command, User

# ("default",), ("all_private_chats",), ("chat", chat_id), ("chat_member", chat_id, user_id), ...
ScopeKey = tuple[Any, ...]


class CommandMenus:
    def __init__(self) -> None:
        self._menus: dict[tuple[ScopeKey, str], tuple[Command, ...]] = {}

    def get(self, scope: ScopeKey, language: str) -> list[Command]:
        """The commands set for exactly this scope and language ("" for any language)."""
        return list(self._menus.get((scope, language), ()))

    def set(self, scope: ScopeKey, language: str, commands: Sequence[Command]) -> None:
        """Set the menu; an empty list deletes it, as in Telegram."""
        if commands:
            self._menus[(scope, language)] = tuple(commands)
        else:
            self.delete(scope, language)

    def delete(self, scope: ScopeKey, language: str) -> None:
        self._menus.pop((scope, language), None)

    def visible(self, user: User, chat: Chat) -> list[Command]:
        """The menu `user` sees in `chat`, resolved in Telegram's documented order."""
        lang = user.language_code or ""
        for scope in _scopes_in_order(user.id, chat):
            for language in ((lang, "") if lang else ("",)):
                if (scope, language) in self._menus:
                    return list(self._menus[(scope, language)])
        return []


def _scopes_in_order(user_id: int, chat: Chat) -> list[ScopeKey]:
    if chat.is_private:
        scopes: list[ScopeKey] = [("chat", chat.id), ("all_private_chats",)]
    else:
        admin = user_id in chat.admins
        scopes = [("chat_member", chat.id, user_id)]
        scopes += [("chat_administrators", chat.id)] if admin else []
        scopes += [("chat", chat.id)]
        scopes += [("all_chat_administrators",)] if admin else []
        scopes += [("all_group_chats",)]
    scopes.append(("default",))
    return scopes
