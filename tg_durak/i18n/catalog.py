"""Maintenance of the message catalogs.

    python -m tg_durak.i18n.catalog compile   # every locales/*/LC_MESSAGES/messages.po -> .mo
    python -m tg_durak.i18n.catalog check     # the checks the tests run, readable by a human

To add a text: add the key to en.po with the English text and to ru.po, uk.po, pl.po with their
translations (same {placeholders}; a plural key gets msgid_plural "<key>.plural" and one msgstr[i]
per plural form), run ``compile``, then ``check``, and commit the .po and .mo files together.

``check`` covers the catalogs (same keys everywhere, nothing empty or fuzzy, same placeholders,
Telegram-safe HTML, plural rules, compiled files up to date) and the code: user-facing text in
tg_durak/ must come from the catalog, and every literal key the code asks for must exist.
"""

from __future__ import annotations

import argparse
import ast
import gettext
import re
import string
from collections.abc import Iterator, Mapping
from contextlib import suppress
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.mofile import read_mo, write_mo
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po

from tg_durak.i18n.translate import DEFAULT_LOCALE, DOMAIN, LOCALES, LOCALES_DIR, PLURAL_SUFFIX

PACKAGE_DIR = Path(__file__).resolve().parent.parent   # tg_durak/
# Under Telegram's 4096 so that a screen may add a line or two around one text.
MAX_TEXT_LENGTH = 3500
# Telegram's HTML parse mode knows these tags and nothing else.
TELEGRAM_TAGS = frozenset(
    {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "span", "tg-spoiler", "a"}
    | {"tg-emoji", "code", "pre", "blockquote"}
)
_TAG = re.compile(r"<(/?)([a-zA-Z][\w-]*)(?:\s[^<>]*)?>")
_ENTITY = re.compile(r"&(?:lt|gt|amp|quot|#\d+|#x[0-9a-fA-F]+);")


def po_path(locale: str, root: Path = LOCALES_DIR) -> Path:
    return root / locale / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(locale: str, root: Path = LOCALES_DIR) -> Path:
    return po_path(locale, root).with_suffix(".mo")


def read_catalogs(root: Path = LOCALES_DIR) -> dict[str, Catalog]:
    catalogs = {}
    for locale in LOCALES:
        with po_path(locale, root).open("rb") as fp:
            catalogs[locale] = read_po(fp, locale=locale, abort_invalid=True)
    return catalogs


def compile_catalogs(root: Path = LOCALES_DIR) -> list[Path]:
    """Write every locale's .mo from its .po; fuzzy entries are left out, as gettext does."""
    written = []
    for locale, catalog in read_catalogs(root).items():
        with mo_path(locale, root).open("wb") as fp:
            write_mo(fp, catalog)
        written.append(mo_path(locale, root))
    return written


def key_of(message: Message) -> str:
    return message.id if isinstance(message.id, str) else message.id[0]


def forms_of(message: Message) -> tuple[str, ...]:
    string = message.string
    if isinstance(string, str):
        return (string,)
    assert string is not None   # read from a .po file: a text, or one per plural form
    return tuple(string)


def _messages(catalog: Catalog) -> Iterator[Message]:
    return (message for message in catalog if message.id)


def placeholders(text: str) -> set[str]:
    """The ``{names}`` a text expects; raises ValueError on a malformed brace."""
    return {field for _, field, _, _ in string.Formatter().parse(text) if field is not None}


def html_problems(text: str) -> list[str]:
    """Why Telegram's HTML parse mode would reject ``text`` (an empty list if it would not)."""
    problems, open_tags = [], []
    for match in _TAG.finditer(text):
        closing, tag = match.group(1) == "/", match.group(2).lower()
        if tag not in TELEGRAM_TAGS:
            problems.append(f"tag <{tag}> is not allowed by Telegram")
        elif not closing:
            open_tags.append(tag)
        elif not open_tags or open_tags.pop() != tag:
            problems.append(f"</{tag}> closes nothing")
    problems += [f"<{tag}> is never closed" for tag in open_tags]
    bare = set(_ENTITY.sub("", _TAG.sub("", text))) & set("<>&")
    problems += [f"bare {char!r} must be written as an HTML entity" for char in sorted(bare)]
    return problems


def check_headers(catalogs: Mapping[str, Catalog]) -> list[str]:
    """Each catalog's Plural-Forms must choose the same form as CLDR for every count."""
    problems = []
    for locale, catalog in catalogs.items():
        expected = get_plural(locale)
        if catalog.num_plurals != expected.num_plurals:
            problems.append(
                f"{locale}: nplurals={catalog.num_plurals}, expected {expected.num_plurals}"
            )
            continue
        ours, cldr = gettext.c2py(catalog.plural_expr), gettext.c2py(expected.plural_expr)
        wrong = [n for n in range(1000) if ours(n) != cldr(n)]
        if wrong:
            problems.append(f"{locale}: Plural-Forms picks the wrong form for n={wrong[:5]}")
    return problems


def check_keys(catalogs: Mapping[str, Catalog]) -> list[str]:
    """Every locale has exactly the keys of the English catalog, plural where English is."""
    reference = {key_of(m): m.pluralizable for m in _messages(catalogs[DEFAULT_LOCALE])}
    problems = []
    for locale, catalog in catalogs.items():
        keys = {key_of(m): m.pluralizable for m in _messages(catalog)}
        problems += [f"{locale}: missing {key}" for key in sorted(reference.keys() - keys.keys())]
        problems += [
            f"{locale}: {key} is not in en.po" for key in sorted(keys.keys() - reference.keys())
        ]
        problems += [
            f"{locale}: {key} must {'' if reference[key] else 'not '}be a plural message"
            for key in sorted(keys.keys() & reference.keys())
            if keys[key] != reference[key]
        ]
        problems += [f"{locale}: obsolete entry {key_of(m)}" for m in catalog.obsolete.values()]
    return problems


def check_texts(catalogs: Mapping[str, Catalog]) -> list[str]:
    """No empty or fuzzy text; the placeholders of English in every form; valid HTML; short."""
    expected: dict[str, set[str]] = {}
    for message in _messages(catalogs[DEFAULT_LOCALE]):
        with suppress(ValueError):  # reported below, with the other problems of this text
            expected[key_of(message)] = placeholders(forms_of(message)[0])
    problems = []
    for locale, catalog in catalogs.items():
        for message in _messages(catalog):
            key = key_of(message)
            where = f"{locale}: {key}"
            if message.fuzzy:
                problems.append(f"{where} is fuzzy")
            if message.pluralizable and message.id[1] != key + PLURAL_SUFFIX:
                problems.append(f"{where}: msgid_plural must be {key + PLURAL_SUFFIX!r}")
            for index, text in enumerate(forms_of(message)):
                form = f"{where}[{index}]" if message.pluralizable else where
                problems += [f"{form}: {problem}" for problem in _text_problems(text)]
                try:
                    names = placeholders(text)
                except ValueError as error:
                    problems.append(f"{form}: malformed placeholder ({error})")
                    continue
                if key in expected and names != expected[key]:
                    problems.append(
                        f"{form}: placeholders {sorted(names)}, en has {sorted(expected[key])}"
                    )
    return problems


def _text_problems(text: str) -> list[str]:
    if not text.strip():
        return ["empty"]
    problems = html_problems(text)
    length = len(text.encode("utf-16-le")) // 2  # Telegram counts UTF-16 code units
    if length > MAX_TEXT_LENGTH:
        problems.append(f"{length} characters, more than {MAX_TEXT_LENGTH}")
    return problems


def check_compiled(catalogs: Mapping[str, Catalog], root: Path = LOCALES_DIR) -> list[str]:
    """Each .mo holds exactly its .po's texts and plural rule (compared by content, not bytes,
    so a different Babel version writing a different header does not count)."""
    problems = []
    for locale, catalog in catalogs.items():
        path = mo_path(locale, root)
        if not path.exists():
            problems.append(
                f"{locale}: {path.name} is missing; run: python -m tg_durak.i18n.catalog compile"
            )
            continue
        with path.open("rb") as fp:
            compiled = read_mo(fp)
        if _contents(compiled) != _contents(catalog) or (
            compiled.plural_forms != catalog.plural_forms
        ):
            problems.append(
                f"{locale}: {path.name} is out of date; run: "
                "python -m tg_durak.i18n.catalog compile"
            )
    return problems


def _contents(catalog: Catalog) -> dict[object, tuple[str, ...]]:
    return {
        tuple(m.id) if m.pluralizable else m.id: forms_of(m)
        for m in _messages(catalog)
        if m.string and not m.fuzzy  # what write_mo compiles
    }


# --- the code side: text shown to users must come from the catalog -------------------------

# Calls that send their argument at this position (or as text=/description=/caption=) to a user.
TEXT_POSITION = {
    "answer": 0,
    "reply": 0,
    "edit_text": 0,
    "edit_message_text": 0,
    "send_message": 1,
    "answer_callback_query": 1,
    "Screen": 0,
}
TEXT_KEYWORDS = frozenset({"text", "description", "caption"})
TRANSLATOR_NAMES = frozenset({"t", "_", "__"})
# Not the players': the emulator's (a test tool), the catalogs', and the operator's HTTP answers
# (health and metrics, read by load balancers and Prometheus).
SCAN_EXCLUDED = ("emulator/", "i18n/", "observe/")
_MARKUP = re.compile(r"<[^<>]*>|&#?\w+;")


def _is_translation(call: ast.Call) -> bool:
    """``t(...)``, ``_(...)``, ``__(...)`` or ``<anything>.plural(...)``."""
    func = call.func
    return (isinstance(func, ast.Name) and func.id in TRANSLATOR_NAMES) or (
        isinstance(func, ast.Attribute) and func.attr == "plural"
    )


def _callee(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return call.func.id if isinstance(call.func, ast.Name) else None


def _has_words(text: str) -> bool:
    """Letters outside HTML markup: emoji, card symbols, digits and tags need no translation."""
    return any(char.isalpha() for char in _MARKUP.sub("", text))


def _shown_literals(node: ast.AST) -> Iterator[ast.Constant]:
    """String literals inside ``node`` that would reach the user as written.

    Follows concatenation, f-strings, conditionals, lists, methods of a literal
    (``"\\n".join([...])``) and the values substituted into a translation; a literal handed to
    any other function is that function's business.
    """
    if isinstance(node, ast.Constant):
        if isinstance(node.value, str) and _has_words(node.value):
            yield node
        return
    for child in _shown_parts(node):
        yield from _shown_literals(child)


def _shown_parts(node: ast.AST) -> list[ast.AST]:
    """The parts of ``node`` whose text ends up in it (see ``_shown_literals``)."""
    if isinstance(node, ast.JoinedStr):
        return list(node.values)
    if isinstance(node, ast.FormattedValue):
        return [node.value]  # not the format spec: "{x:>3}" is not text
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    if isinstance(node, ast.List | ast.Tuple):
        return list(node.elts)
    if isinstance(node, ast.Call):
        if _is_translation(node):
            return [keyword.value for keyword in node.keywords]
        if isinstance(node.func, ast.Attribute) and isinstance(
            node.func.value, ast.Constant | ast.JoinedStr
        ):
            return [node.func.value, *node.args]
    return []


def _text_arguments(call: ast.Call) -> Iterator[ast.expr]:
    for keyword in call.keywords:
        if keyword.arg in TEXT_KEYWORDS:
            yield keyword.value
    position = TEXT_POSITION.get(_callee(call) or "")
    if position is not None and len(call.args) > position:
        yield call.args[position]


def find_bypasses(tree: ast.AST, filename: str) -> list[str]:
    """User-facing calls in ``tree`` whose text contains words written in the code."""
    found: dict[tuple[int, int], str] = {}
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call):
            continue
        for argument in _text_arguments(call):
            for literal in _shown_literals(argument):
                found[literal.lineno, literal.col_offset] = (
                    f"{filename}:{literal.lineno}: {literal.value!r} is shown to users without "
                    "the catalog; add a key to the .po files and use t(...)/_(...)"
                )
    return [found[place] for place in sorted(found)]


def find_unknown_keys(tree: ast.AST, filename: str, keys: Mapping[str, bool]) -> list[str]:
    """Translation calls in ``tree`` asking for a key that en.po lacks (or the wrong kind of key).

    ``keys`` maps each en.po key to whether it is a plural message. An f-string key such as
    ``t(f"rules.{variant}.full")`` must match at least one key; any other key expression is only
    checked at run time (it raises MissingKeyError).
    """
    problems = []
    for call in ast.walk(tree):
        if not (isinstance(call, ast.Call) and _is_translation(call) and call.args):
            continue
        plural = isinstance(call.func, ast.Attribute) or len(call.args) > 1
        key, where = call.args[0], f"{filename}:{call.lineno}"
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            candidates, shown = [key.value] if key.value in keys else [], repr(key.value)
        elif isinstance(key, ast.JoinedStr):
            pattern = _key_pattern(key)
            candidates, shown = [k for k in keys if pattern.fullmatch(k)], ast.unparse(key)
        else:
            continue
        if not candidates:
            problems.append(f"{where}: {shown} is not a key in en.po")
        elif any(keys[k] != plural for k in candidates):
            kind = "a plural message; use t.plural(...)" if not plural else "not a plural message"
            problems.append(f"{where}: {shown} is {kind}")
        elif isinstance(call.func, ast.Name) and plural and isinstance(key, ast.Constant) \
                and isinstance(key.value, str):
            second = call.args[1]
            if not (isinstance(second, ast.Constant) and second.value == key.value + PLURAL_SUFFIX):
                problems.append(f"{where}: the plural id must be {key.value + PLURAL_SUFFIX!r}")
    return problems


def _key_pattern(key: ast.JoinedStr) -> re.Pattern[str]:
    parts = [
        re.escape(part.value) if isinstance(part, ast.Constant) and isinstance(part.value, str)
        else ".+"
        for part in key.values
    ]
    return re.compile("".join(parts))


def source_files(package_dir: Path = PACKAGE_DIR) -> list[Path]:
    """tg_durak's modules, less the emulator (a stand-in for Telegram) and the i18n plumbing."""
    return [
        path
        for path in sorted(package_dir.rglob("*.py"))
        if not path.relative_to(package_dir).as_posix().startswith(SCAN_EXCLUDED)
    ]


def check_sources(keys: Mapping[str, bool], package_dir: Path = PACKAGE_DIR) -> list[str]:
    problems = []
    for path in source_files(package_dir):
        filename = path.relative_to(package_dir.parent).as_posix()
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename)
        except SyntaxError as error:
            problems.append(f"{filename}:{error.lineno}: cannot parse: {error.msg}")
            continue
        problems += find_bypasses(tree, filename) + find_unknown_keys(tree, filename, keys)
    return problems


def english_keys(catalogs: Mapping[str, Catalog]) -> dict[str, bool]:
    """en.po's keys, each mapped to whether it is a plural message."""
    return {key_of(m): m.pluralizable for m in _messages(catalogs[DEFAULT_LOCALE])}


def check_all(root: Path = LOCALES_DIR, package_dir: Path = PACKAGE_DIR) -> list[str]:
    catalogs = read_catalogs(root)
    return (
        check_headers(catalogs)
        + check_keys(catalogs)
        + check_texts(catalogs)
        + check_compiled(catalogs, root)
        + check_sources(english_keys(catalogs), package_dir)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tg_durak.i18n.catalog",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("command", choices=["compile", "check"])
    command = parser.parse_args(argv).command
    if command == "compile":
        for path in compile_catalogs():
            print(f"compiled {path.relative_to(PACKAGE_DIR.parent)}")
        return 0
    problems = check_all()
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} problem(s)")
        return 1
    keys = english_keys(read_catalogs())
    print(f"ok: {len(keys)} keys in {', '.join(LOCALES)}; the code uses the catalog")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
