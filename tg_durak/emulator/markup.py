"""Message text the way Telegram stores it: plain text plus entities with UTF-16 offsets.

`parse_html` follows the Bot API's HTML parse mode (tdlib's parser) closely enough to produce the
same entities and the same error texts, including byte offsets into the UTF-8 source.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

Entity = dict[str, Any]

MAX_TEXT_LENGTH = 4096

_TAGS = frozenset(
    {"a", "b", "strong", "i", "em", "s", "strike", "del", "u", "ins", "tg-spoiler", "tg-emoji",
     "span", "pre", "code", "blockquote"}
)
_SIMPLE_TYPES = {
    "b": "bold", "strong": "bold", "i": "italic", "em": "italic", "u": "underline",
    "ins": "underline", "s": "strikethrough", "strike": "strikethrough", "del": "strikethrough",
    "tg-spoiler": "spoiler", "span": "spoiler",
}
# tdlib orders entities by offset, then longer first, then by this priority (lower first).
_PRIORITY = {
    "blockquote": 0, "expandable_blockquote": 0, "pre": 11, "code": 20, "text_link": 49,
    "text_mention": 49, "bold": 90, "italic": 91, "underline": 92, "strikethrough": 93,
    "spoiler": 94, "custom_emoji": 99,
}
_SPACE = frozenset(b" \t\r\n\v\f\x00")  # tdlib's is_space() also treats NUL as space
_TRIMMED = " \t\r\n"


class EntityParseError(ValueError):
    """The text cannot be parsed; str(error) is tdlib's message."""


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def sort_entities(entities: list[Entity]) -> list[Entity]:
    return sorted(
        entities, key=lambda e: (e["offset"], -e["length"], _PRIORITY.get(e["type"], 50))
    )


def _decode_entity(b: bytes, pos: int) -> tuple[int, int] | None:
    """Decode an HTML character reference at b[pos] == '&' into (code point, next position)."""

    def at(i: int) -> int:
        return b[i] if i < len(b) else 0

    end = pos + 1
    if at(end) == ord("#"):
        end += 1
        code = 0
        if at(end) == ord("x"):
            end += 1
            while chr(at(end)) in "0123456789abcdefABCDEF" and at(end):
                code = code * 16 + int(chr(at(end)), 16)
                end += 1
        else:
            while ord("0") <= at(end) <= ord("9"):
                code = code * 10 + at(end) - ord("0")
                end += 1
        if code == 0 or code >= 0x10FFFF or end - pos >= 10:
            return None
    else:
        while chr(at(end)).isascii() and chr(at(end)).isalpha():
            end += 1
        code = {b"lt": 0x3C, b"gt": 0x3E, b"amp": 0x26, b"quot": 0x22}.get(b[pos + 1:end], 0)
        if code == 0:
            return None
    if at(end) == ord(";"):
        end += 1
    return code, end


def parse_html(
    source: str, resolve_user: Callable[[int], Entity | None] = lambda _: None
) -> tuple[str, list[Entity]]:
    """Parse Bot API HTML into (text, entities); raise EntityParseError with tdlib's wording.

    `resolve_user` turns the id in a tg://user?id= link into a Bot API User object (or None to
    drop the mention, as Telegram does for users the bot cannot see).
    """
    b = source.encode("utf-8", "surrogatepass")
    size = len(b)

    def at(i: int) -> int:
        return b[i] if i < size else 0

    out = bytearray()
    utf16 = 0
    entities: list[Entity] = []
    # open tags: (tag name, argument, utf16 offset, position in `out`)
    stack: list[tuple[str, str, int, int]] = []
    i = 0
    while i < size:
        c = b[i]
        if c == ord("&") and (decoded := _decode_entity(b, i)) is not None:
            code, i = decoded
            out += chr(code).encode("utf-8", "surrogatepass")
            utf16 += 2 if code > 0xFFFF else 1
            continue
        if c != ord("<"):
            if c & 0xC0 != 0x80:  # first byte of a UTF-8 sequence
                utf16 += 2 if c >= 0xF0 else 1
            out.append(c)
            i += 1
            continue

        begin = i
        i += 1
        if at(i) != ord("/"):
            while at(i) not in _SPACE and at(i) != ord(">"):
                i += 1
            if at(i) == 0:
                raise EntityParseError(f"Unclosed start tag at byte offset {begin}")
            tag = b[begin + 1:i].decode("utf-8", "replace").lower()
            if tag not in _TAGS:
                raise EntityParseError(f'Unsupported start tag "{tag}" at byte offset {begin}')
            argument = ""
            while at(i) != ord(">"):
                while at(i) != 0 and at(i) in _SPACE:
                    i += 1
                if at(i) == ord(">"):
                    break
                name_begin = i
                while at(i) not in _SPACE and at(i) not in b"=>":
                    i += 1
                name = b[name_begin:i].decode("utf-8", "replace")
                if not name:
                    raise EntityParseError(
                        f'Empty attribute name in the tag "{tag}" at byte offset {begin}'
                    )
                while at(i) != 0 and at(i) in _SPACE:
                    i += 1
                if at(i) != ord("="):
                    if tag == "blockquote" and name == "expandable":
                        argument = "expandable"
                        continue
                    raise EntityParseError(
                        "Expected equal sign in declaration of an attribute of the tag "
                        f'"{tag}" at byte offset {begin}'
                    )
                i += 1
                while at(i) != 0 and at(i) in _SPACE:
                    i += 1
                if at(i) == 0:
                    raise EntityParseError(f'Unclosed start tag "{tag}" at byte offset {begin}')
                if at(i) not in (ord("'"), ord('"')):
                    token_begin = i
                    while chr(at(i)).isascii() and (chr(at(i)).isalnum() or at(i) in b".-"):
                        i += 1
                    value = b[token_begin:i].decode("ascii").lower()
                    if at(i) not in _SPACE and at(i) != ord(">"):
                        raise EntityParseError(
                            f"Unexpected end of name token at byte offset {token_begin}"
                        )
                else:
                    quote = at(i)
                    i += 1
                    raw = bytearray()
                    while at(i) != quote and at(i) != 0:
                        if at(i) == ord("&") and (decoded := _decode_entity(b, i)) is not None:
                            code, i = decoded
                            raw += chr(code).encode("utf-8", "surrogatepass")
                            continue
                        raw.append(at(i))
                        i += 1
                    if at(i) == quote:
                        i += 1
                    value = raw.decode("utf-8", "replace")
                if at(i) == 0:
                    raise EntityParseError(f"Unclosed start tag at byte offset {begin}")
                if tag == "a" and name == "href":
                    argument = value
                elif tag == "code" and name == "class" and value.startswith("language-"):
                    argument = value[len("language-"):]
                elif tag == "span" and name == "class" and value.startswith("tg-"):
                    argument = value[len("tg-"):]
                elif tag == "tg-emoji" and name == "emoji-id":
                    argument = value
            if tag == "span" and argument != "spoiler":
                raise EntityParseError(
                    f'Tag "span" must have class "tg-spoiler" at byte offset {begin}'
                )
            stack.append((tag, argument, utf16, len(out)))
        else:
            if not stack:
                raise EntityParseError(f"Unexpected end tag at byte offset {begin}")
            while at(i) not in _SPACE and at(i) != ord(">"):
                i += 1
            end_tag = b[begin + 2:i].decode("utf-8", "replace").lower()
            while at(i) != 0 and at(i) in _SPACE:
                i += 1
            if at(i) != ord(">"):
                raise EntityParseError(f"Unclosed end tag at byte offset {begin}")
            tag, argument, offset, out_begin = stack.pop()
            if end_tag and end_tag != tag:
                raise EntityParseError(
                    f'Unmatched end tag at byte offset {begin}, expected "</{tag}>", '
                    f'found "</{end_tag}>"'
                )
            if utf16 > offset:
                inner = out[out_begin:].decode("utf-8", "surrogatepass")
                entity = _make_entity(tag, argument, offset, utf16 - offset, inner, entities,
                                      resolve_user)
                if entity is not None:
                    entities.append(entity)
        i += 1
    if stack:
        raise EntityParseError(f'Can\'t find end tag corresponding to start tag "{stack[-1][0]}"')
    try:
        text = out.decode("utf-8")
    except UnicodeDecodeError:
        raise EntityParseError(
            "Text contains invalid Unicode characters after decoding HTML entities, check for "
            "unmatched surrogate code units"
        ) from None
    for entity in entities:
        if entity["type"] == "code":
            entity.pop("language", None)
    return text, sort_entities(entities)


def _make_entity(
    tag: str,
    argument: str,
    offset: int,
    length: int,
    inner: str,
    entities: list[Entity],
    resolve_user: Callable[[int], Entity | None],
) -> Entity | None:
    """The entity a closed tag produces; may instead upgrade the previous pre/code entity."""
    base: Entity = {"offset": offset, "length": length}
    if tag in _SIMPLE_TYPES:
        return {"type": _SIMPLE_TYPES[tag], **base}
    if tag == "blockquote":
        kind = "expandable_blockquote" if argument == "expandable" else "blockquote"
        return {"type": kind, **base}
    if tag == "tg-emoji":
        if not argument.isdigit() or int(argument) == 0:
            raise EntityParseError("Invalid custom emoji identifier specified")
        return {"type": "custom_emoji", **base, "custom_emoji_id": argument}
    if tag == "a":
        url = argument or inner
        if (m := re.fullmatch(r"tg://user\?id=(\d+)", url)) is not None:
            user = resolve_user(int(m.group(1)))
            return None if user is None else {"type": "text_mention", **base, "user": user}
        return {"type": "text_link", **base, "url": url} if url else None
    previous = entities[-1] if entities else None
    if previous is not None and (previous["offset"], previous["length"]) != (offset, length):
        previous = None   # only an entity of the same span is upgraded
    if tag == "pre":
        if previous is not None and previous["type"] == "code" and previous.get("language"):
            previous["type"] = "pre"
            return None
        return {"type": "pre", **base}
    # tag == "code"
    if previous is not None and previous["type"] == "pre" and argument:
        previous["language"] = argument
        return None
    return {"type": "code", **base, **({"language": argument} if argument else {})}


def trim(text: str, entities: list[Entity]) -> tuple[str, list[Entity]]:
    """Strip leading and trailing whitespace as Telegram does, keeping entities in place."""
    stripped = text.lstrip(_TRIMMED)
    shift = utf16_len(text) - utf16_len(stripped)
    stripped = stripped.rstrip(_TRIMMED)
    total = utf16_len(stripped)
    result = []
    for entity in entities:
        start = max(entity["offset"] - shift, 0)
        end = min(entity["offset"] + entity["length"] - shift, total)
        if end > start:
            result.append({**entity, "offset": start, "length": end - start})
    return stripped, result


_COMMAND = re.compile(r"(?<![\w/<>])/([A-Za-z0-9_]{1,64})(@[A-Za-z0-9_]*)?(?![\w/<>])")


def find_bot_commands(text: str) -> list[Entity]:
    """bot_command entities for /commands in a user's message, as Telegram marks them."""
    result = []
    for m in _COMMAND.finditer(text):
        mention = m.group(2)
        if mention is not None and not 3 <= len(mention) - 1 <= 32:
            continue
        result.append({
            "type": "bot_command",
            "offset": utf16_len(text[:m.start()]),
            "length": utf16_len(m.group(0)),
        })
    return result


def _open_tag(entity: Entity) -> tuple[str, str]:
    kind = entity["type"]
    simple = {"bold": "b", "italic": "i", "underline": "u", "strikethrough": "s",
              "spoiler": "tg-spoiler", "code": "code", "blockquote": "blockquote"}
    if kind in simple:
        return f"<{simple[kind]}>", f"</{simple[kind]}>"
    if kind == "expandable_blockquote":
        return "<blockquote expandable>", "</blockquote>"
    if kind == "pre":
        if entity.get("language"):
            lang = html.escape(entity["language"])
            return f'<pre><code class="language-{lang}">', "</code></pre>"
        return "<pre>", "</pre>"
    if kind == "text_link":
        return f'<a href="{html.escape(entity["url"])}">', "</a>"
    if kind == "text_mention":
        return f'<a href="tg://user?id={entity["user"]["id"]}">', "</a>"
    if kind == "custom_emoji":
        return f'<tg-emoji emoji-id="{entity["custom_emoji_id"]}">', "</tg-emoji>"
    return "", ""  # detected entities (bot_command, url, ...) have no markup


def to_html(text: str, entities: list[Entity]) -> str:
    """Render text and entities back to Bot API HTML (overlapping entities are clipped)."""
    units = text.encode("utf-16-le", "surrogatepass")

    def piece(start: int, end: int) -> str:
        return html.escape(units[2 * start:2 * end].decode("utf-16-le", "surrogatepass"), False)

    def render(start: int, end: int, inner: list[Entity]) -> str:
        parts = []
        pos = start
        k = 0
        while k < len(inner):
            entity = inner[k]
            e_start = max(entity["offset"], pos)
            e_end = min(entity["offset"] + entity["length"], end)
            k += 1
            if e_end <= e_start:
                continue
            children = []
            while k < len(inner) and inner[k]["offset"] < e_end:
                children.append(inner[k])
                k += 1
            opening, closing = _open_tag(entity)
            parts += [piece(pos, e_start), opening, render(e_start, e_end, children), closing]
            pos = e_end
        parts.append(piece(pos, end))
        return "".join(parts)

    return render(0, len(units) // 2, sort_entities(entities))
