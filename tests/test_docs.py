"""The README and docs/ say what the code does (issue 15): checks that fail when they drift apart.

Everything is read from the file system, the source and `python -m tg_durak --help` (which
imports nothing heavy); nothing of the project is imported here.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
MAX_README_LINES = 200
# The subcommands; test_the_subcommand_list_matches_the_command_line holds them to --help.
SUBCOMMANDS = ("local", "check", "backup", "ratings", "copy-db", "migrate", "webhook",
               "set-webhook")
# What .ci/run runs; the README must give a newcomer exactly this, or the two drift apart.
CI_TEST_COMMAND = ("python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[dev]' "
                   "&& ruff check . && mypy && python -m pytest")
# How the code reads a setting: Settings.from_env's env.get("X") and _number(env, "X", ...), the
# operator tools' os.environ.get("X") and the terminal's os.environ.get("LANG").
ENV_READ = re.compile(r"""(?:\benv\.get|environ\.get|\bgetenv|_number)\(\s*(?:env\s*,\s*)?"""
                      r"""["']([A-Z][A-Z0-9_]*)["']|environ\[["']([A-Z][A-Z0-9_]*)["']\]""")
RULE_ID = re.compile(r"\bR(\d{1,2})(?:\.(\d{1,2}))?\b")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _docs() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _outside_code(text: str) -> str:
    """The text without fenced code blocks (a link or heading inside one is not one)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    return {_slug(m) for m in re.findall(r"^#+\s+(.+)$", _outside_code(_text(path)), re.M)}


def _section(text: str, heading: str) -> str:
    """The text under `## heading` up to the next heading of that level."""
    match = re.search(rf"^## {re.escape(heading)}\s*$(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match, f"no section '## {heading}'"
    return match.group(1)


def env_names(sources: list[Path]) -> set[str]:
    return {a or b for p in sources for a, b in ENV_READ.findall(_text(p))}


def rule_ids_cited(sources: list[Path]) -> set[str]:
    return {f"R{a}.{b}" if b else f"R{a}" for p in sources for a, b in RULE_ID.findall(_text(p))}


def rule_ids_defined(text: str) -> set[str]:
    """Headings "## R8 The end of the game" and entries "- **R8.2** ..."."""
    return (set(re.findall(r"^#+ (R\d+)\b", text, re.M))
            | set(re.findall(r"^\s*- \*\*(R\d+\.\d+)\*\*", text, re.M)))


def tree_entries(text: str) -> set[str]:
    """The paths named by the first ```text block under "## Layout": an entry is a line whose
    first word ends in "/" or ".py", indented two spaces a level under the directory above it."""
    block = re.search(r"^```text\n(.*?)^```", _section(text, "Layout"), re.S | re.M)
    assert block, "no ```text tree under '## Layout'"
    found, stack = set(), []
    for line in block.group(1).splitlines():
        word = line.split()[0] if line.strip() else ""
        if not word.endswith(("/", ".py")):
            continue
        depth = (len(line) - len(line.lstrip(" "))) // 2
        stack = stack[:depth]
        path = "".join(stack) + word
        found.add(path)
        if word.endswith("/"):
            stack.append(word)
    return found


def layout_on_disk() -> set[str]:
    """engine/ and tg_durak/ themselves, every package under them (a directory with an
    __init__.py) and the modules directly in the two."""
    found = set()
    for top in ("engine", "tg_durak"):
        found.add(f"{top}/")
        found |= {f"{p.parent.relative_to(ROOT).as_posix()}/"
                  for p in (ROOT / top).rglob("__init__.py")}
        found |= {f"{top}/{p.name}" for p in (ROOT / top).glob("*.py")}
    return found


def test_the_readme_is_short() -> None:
    lines = len(_text(README).splitlines())
    assert lines <= MAX_README_LINES, f"README.md has {lines} lines; move detail to docs/"


@pytest.mark.parametrize("doc", _docs(), ids=lambda p: p.name)
def test_every_relative_link_resolves(doc: Path) -> None:
    """To a file that exists, and a #fragment to one of its headings."""
    broken = []
    for target in LINK.findall(_outside_code(_text(doc))):
        if re.match(r"[a-z]+:", target):   # http:, https:, mailto: are not ours to check
            continue
        file, _, anchor = target.partition("#")
        path = (doc.parent / file).resolve() if file else doc
        missing_anchor = anchor and path.suffix == ".md" and anchor not in _anchors(path)
        if not path.exists() or missing_anchor:
            broken.append(target)
    assert broken == []


def test_the_docs_readme_links_exist() -> None:
    """Every page the README promises is there, and the README links to each page of docs/."""
    linked = {Path(t.partition("#")[0]).name for t in LINK.findall(_text(README))
              if t.startswith("docs/")}
    assert linked == {p.name for p in DOCS.glob("*.md")}


def test_the_architecture_tree_is_the_real_layout() -> None:
    shown = tree_entries(_text(DOCS / "architecture.md"))
    real = layout_on_disk()
    assert {"missing": sorted(real - shown), "gone": sorted(shown - real)} == {
        "missing": [], "gone": []}


def test_every_setting_the_code_reads_is_in_the_configuration_table() -> None:
    names = env_names(sorted((ROOT / "tg_durak").rglob("*.py")))
    assert {"BOT_TOKEN", "DURAK_DB", "TELEGRAM_TIMEOUT"} <= names   # the scan itself works
    table = _section(_text(README), "Configuration")
    rows = set(re.findall(r"^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|", table, re.M))
    assert names - rows == set(), "read by the code, missing from the README's table"
    assert rows - names == set(), "in the README's table, read by no code"


def test_every_subcommand_is_in_the_readme() -> None:
    text = _text(README)
    missing = [c for c in SUBCOMMANDS if f"python -m tg_durak {c}" not in text]
    assert missing == []


def test_the_subcommand_list_matches_the_command_line() -> None:
    """SUBCOMMANDS are the commands `python -m tg_durak --help` lists (it needs no token)."""
    shown = subprocess.run([sys.executable, "-m", "tg_durak", "--help"], capture_output=True,
                           text=True, check=True, cwd=ROOT).stdout
    assert set(re.findall(r"^ {4}([a-z-]+) ", shown, re.M)) == set(SUBCOMMANDS), shown


def test_every_rule_id_the_code_cites_is_in_the_rules() -> None:
    sources = [p for top in ("engine", "tg_durak", "tests", "bench")
               for p in sorted((ROOT / top).rglob("*.py")) if p != Path(__file__).resolve()]
    cited = rule_ids_cited(sources)
    assert {"R3.1", "R11"} <= cited   # the scan itself works
    defined = rule_ids_defined(_text(DOCS / "rules.md"))
    assert sorted(cited - defined) == []


def test_the_docs_cite_no_rule_that_does_not_exist() -> None:
    cited = rule_ids_cited(_docs())
    defined = rule_ids_defined(_text(DOCS / "rules.md"))
    # "R1-R11" names a range; every id read from it is a heading anyway.
    assert sorted(cited - defined) == []


def test_the_readme_gives_the_ci_test_command() -> None:
    assert CI_TEST_COMMAND in _text(ROOT / ".ci" / "run")
    assert CI_TEST_COMMAND in _text(README)


def test_no_page_cites_a_rules_file_the_repository_does_not_have() -> None:
    assert [p.name for p in _docs() if "RULES.md" in _text(p)] == []


# ---- the checkers can fail ---------------------------------------------------------------

def test_self_check_the_tree_reader_follows_indentation() -> None:
    text = ("## Layout\n\n```text\npkg/   the package\n  a.py   a module\n"
            "         a continuation line, ignored\n  sub/   a package\n    b.py  deep\n"
            "other/  top\n```\n")
    assert tree_entries(text) == {"pkg/", "pkg/a.py", "pkg/sub/", "pkg/sub/b.py", "other/"}


def test_self_check_settings_are_found_however_they_are_read(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text('a = env.get("A_ONE", "x")\nb = _number(env, "B_TWO", 5, "w")\n'
                   'c = os.environ.get("C")\nd = os.environ["D_4"]\ne = os.getenv("E")\n'
                   'f = other.get("NOT_A_SETTING")\n', encoding="utf-8")
    assert env_names([src]) == {"A_ONE", "B_TWO", "C", "D_4", "E"}


def test_self_check_rule_ids_are_read_and_defined_as_written() -> None:
    rules = "## R1 Cards\n\n- **R1.1** The deck.\n- R1.2 without bold is no entry\n"
    assert rule_ids_defined(rules) == {"R1", "R1.1"}
    path_text = "# R1.1, R10.2 and R11; not PR12 or R1x\n"
    assert RULE_ID.findall(path_text) == [("1", "1"), ("10", "2"), ("11", "")]


def test_self_check_anchors_follow_githubs_slugs(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text("# Title\n## R8 The end of the game\n## Under load: one budget, by priority\n"
                    "```\n# not a heading\n```\n", encoding="utf-8")
    assert _anchors(page) == {"title", "r8-the-end-of-the-game",
                              "under-load-one-budget-by-priority"}
