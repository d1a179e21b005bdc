"""Inline mode's rules: a table whose public message a person sent "via @bot" into any chat.

The bot is told neither that chat nor its id: a tap on the message carries the message's
`inline_message_id` and the chat's `chat_instance` (the same for everyone in that chat). A
table there is a group table whose chat id is a key made of the chat_instance, below every real
chat id (Telegram's need at most 52 bits), so that one chat's inline tables share a group's
budget and standings and a button pressed in another chat is told apart.
"""

from __future__ import annotations

import hashlib
import hmac

INLINE_CHATS_BELOW = -(2**52)
_KEY_BYTES = 6   # 48 bits of the chat_instance's hash
SIGNATURE_CHARS = 10
# /start's payload of the inline results' "More options" and of "My record"'s Play: the setup.
SETUP_PAYLOAD = "play"


def inline_chat(chat_instance: str) -> int:
    """The chat id an inline table of this chat is stored under."""
    digest = hashlib.blake2b(chat_instance.encode(), digest_size=_KEY_BYTES).digest()
    return INLINE_CHATS_BELOW - int.from_bytes(digest, "big")


def is_inline(chat_id: int) -> bool:
    return chat_id <= INLINE_CHATS_BELOW


def signature(secret: str, *fields: object) -> str:
    """A short MAC of an inline offer's fields: a tap on a message the bot did not offer (its
    button's data forged) opens no table in anyone's name."""
    text = ":".join(str(f) for f in fields)
    mac = hmac.new(secret.encode(), text.encode(), hashlib.sha256).hexdigest()
    return mac[:SIGNATURE_CHARS]
