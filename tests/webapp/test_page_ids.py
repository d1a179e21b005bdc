"""The page's elements are named in one place (static/js/ids.js): every id there is an element
of index.html and every element's id is there, and no other script spells an id itself."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from tests.webapp.page_source import (
    STATIC,
    constant,
    script,
    scripts,
    strings_in,
    without_comments,
)


class _Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids += [value for name, value in attrs if name == "id" and value]


def page_ids() -> set[str]:
    parser = _Ids()
    parser.feed((STATIC / "index.html").read_text(encoding="utf-8"))
    return set(parser.ids)


OTHER_SCRIPTS = sorted(set(scripts()) - {"ids.js"})


def test_ids_js_names_every_element_of_the_page_and_nothing_else() -> None:
    named = constant(script("ids.js"), "ID")
    assert isinstance(named, dict)
    assert len(set(named.values())) == len(named)
    assert set(named.values()) == page_ids()


@pytest.mark.parametrize("name", OTHER_SCRIPTS)
def test_no_other_script_spells_an_id(name: str) -> None:
    source = without_comments(script(name))
    # an element looked up, or an id compared, by a literal rather than through ids.js
    assert not re.search(r"""(?:\$|getElementById)\(\s*['"`]""", source)
    assert not re.search(r"""\.id\s*[!=]==?\s*['"`]""", source)
    # a selector (or a fragment) naming an element: "#hand .card"
    names = "|".join(map(re.escape, page_ids()))
    selector = re.compile(rf"#({names})(?![\w-])")
    assert not [text for text in strings_in(source) if selector.search(text)]


def test_one_lookup_by_id_in_dom_js() -> None:
    defined = [name for name, source in scripts().items()
               if re.search(r"(?:const|let|var|function)\s+\$\s*[=(]", source)]
    lookups = [name for name, source in scripts().items() if "getElementById" in source]
    assert defined == lookups == ["dom.js"]
