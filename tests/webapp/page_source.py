"""The page's scripts read as text, as the browser gets them: no JavaScript runs here."""

from __future__ import annotations

import json
import re
from pathlib import Path

import tg_durak.webapp

STATIC = Path(tg_durak.webapp.__file__).parent / "static"
SCRIPTS = STATIC / "js"
# A string literal ('…', "…", `…`) or a comment, whichever starts first: a quote inside a
# comment is no string, and // inside a string is no comment.
_TOKEN = re.compile(r"""(?P<string>'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`)"""
                    r"|//[^\n]*|/\*.*?\*/", re.S)


def script(name: str) -> str:
    return (SCRIPTS / name).read_text(encoding="utf-8")


def scripts() -> dict[str, str]:
    return {path.name: path.read_text(encoding="utf-8") for path in sorted(SCRIPTS.glob("*.js"))}


def strings_in(source: str) -> list[str]:
    """Every string literal's text, without its quotes."""
    return [m["string"][1:-1] for m in _TOKEN.finditer(source) if m["string"]]


def without_comments(source: str) -> str:
    return _TOKEN.sub(lambda m: m[0] if m["string"] else "", source)


def constant(source: str, name: str) -> object:
    """The value of `export const <name> = …;`: a number, or a plain object literal (frozen or
    not) of strings, numbers, true, false and null."""
    found = re.search(rf"^export const {name} = (.*?);$", without_comments(source), re.M | re.S)
    assert found, f"no export const {name}"
    text = re.sub(r"^Object\.freeze\((.*)\)$", r"\1", found[1].strip(), flags=re.S)
    text = re.sub(r"([{,]\s*)(\w+):", r'\1"\2":', text)   # bare keys
    text = re.sub(r"'((?:[^'\\]|\\.)*)'", r'"\1"', text)    # single-quoted strings
    text = re.sub(r",(\s*})", r"\1", text)                  # trailing commas
    return json.loads(text)
