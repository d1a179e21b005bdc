"""The project's modules (engine/ and tg_durak/) import one another one way only, and the pure
layers stay pure (docs/architecture.md's layers; issue 15).

Every import counts: at module level, inside a function, and under `if TYPE_CHECKING:` too
(tests/helpers/imports.py reads them from the source).
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers.imports import PROJECT, chain_to, circles, import_graph, within

# Pure: no I/O, no Telegram, no database, none of the owner of change.
PURE = ("engine", "tg_durak.play", "tg_durak.render")
IMPURE = ("aiogram", "aiosqlite", "tg_durak.storage", "tg_durak.telegram", "tg_durak.tables")


def impure_chains(graph: dict[str, set[str]], pure: tuple[str, ...],
                  impure: tuple[str, ...]) -> dict[str, str]:
    """Each pure module that reaches an impure one, with the chain of imports that does."""
    out = {}
    for module in sorted(m for m in graph if within(m, pure)):
        chain = chain_to(graph, module, lambda name: within(name, impure))
        if chain:
            out[module] = " -> ".join(chain)
    return out


def test_the_graph_is_read_from_both_packages() -> None:
    graph = import_graph(PROJECT)
    assert "engine.views" in graph["engine.ai.players"]
    assert "engine.game" in graph["engine.sampling"]
    assert any(within(t, ("engine",)) for t in graph["tg_durak.tables.service"])


def test_no_circle_between_the_projects_modules() -> None:
    found = circles(import_graph(PROJECT))
    assert found == [], "import circles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_pure_packages_reach_neither_telegram_nor_the_database_nor_the_tables() -> None:
    """engine, tg_durak.play and tg_durak.render, through every project module they import."""
    found = impure_chains(import_graph(PROJECT), PURE, IMPURE)
    assert found == {}, "impure imports:\n" + "\n".join(found.values())


def test_the_engine_never_imports_the_app() -> None:
    found = impure_chains(import_graph(PROJECT), ("engine",), ("tg_durak",))
    assert found == {}, "\n".join(found.values())


def test_the_game_builds_its_views_and_views_know_no_game() -> None:
    """Views are plain data: the game and the sampler import them, never the reverse (a view's
    history holds events, plain data of engine.actions)."""
    graph = import_graph(PROJECT)
    assert "engine.views" in graph["engine.game"]
    engine_imports = {t for t in graph["engine.views"] if within(t, ("engine",))}
    assert engine_imports <= {"engine.actions", "engine.cards", "engine.rules", "engine.state"}


# ---- the checker can fail ----------------------------------------------------------------

def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    pkg = tmp_path / "pkg"
    for name, text in files.items():
        (pkg / name).parent.mkdir(parents=True, exist_ok=True)
        (pkg / name).write_text(text, encoding="utf-8")
    return pkg


def test_self_check_a_late_import_closes_a_circle(tmp_path: Path) -> None:
    pkg = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "from pkg.b import B\n",
        "b.py": "def f():\n    from pkg import a\n    return a\nB = 1\n",
    })
    assert circles(import_graph([pkg])) == [["pkg.a", "pkg.b"]]


def test_self_check_a_type_checking_import_counts(tmp_path: Path) -> None:
    pkg = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "from pkg.b import B\n",
        "b.py": ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import A\n"
                 "else:\n    import json\nB = 1\n"),
    })
    graph = import_graph([pkg])
    assert graph["pkg.b"] == {"typing", "pkg.a", "json"}
    assert circles(graph) == [["pkg.a", "pkg.b"]]


def test_self_check_relative_imports_resolve(tmp_path: Path) -> None:
    pkg = _package(tmp_path, {"__init__.py": "from . import a\n", "a.py": "from .b import B\n",
                              "b.py": "from . import a\nB = 1\n"})
    graph = import_graph([pkg])
    assert graph == {"pkg": {"pkg.a"}, "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}}
    assert circles(graph) == [["pkg.a", "pkg.b"]]


def test_self_check_every_circle_is_reported(tmp_path: Path) -> None:
    pkg = _package(tmp_path, {"__init__.py": "", "a.py": "import pkg.b\n", "b.py": "import pkg.a\n",
                              "c.py": "import pkg.d\nimport pkg.a\n", "d.py": "import pkg.c\n",
                              "e.py": "import pkg.e\n"})
    assert circles(import_graph([pkg])) == [["pkg.a", "pkg.b"], ["pkg.c", "pkg.d"], ["pkg.e"]]


def test_self_check_an_impure_import_counts_through_the_modules_between(tmp_path: Path) -> None:
    """A pure module that imports a project module that imports aiogram is impure; so is one
    whose import runs a package __init__ that does."""
    pkg = _package(tmp_path, {
        "__init__.py": "",
        "pure/__init__.py": "",
        "pure/a.py": "from pkg.pure.b import B\n",
        "pure/b.py": "def f():\n    from pkg.shared import sender\n    return sender\nB = 1\n",
        "pure/d.py": "import json\nfrom pkg.pure import b\n",
        "pure/ok.py": "import json\nfrom pkg import pure\n",
        "pure/c.py": "from pkg.bot.texts import TEXT\n",
        "shared.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import aiogram\n",
        "bot/__init__.py": "from aiogram import Bot\n",
        "bot/texts.py": "TEXT = 'hi'\n",
    })
    found = impure_chains(import_graph([pkg]), ("pkg.pure",), ("aiogram",))
    assert found == {
        "pkg.pure.a": "pkg.pure.a -> pkg.pure.b -> pkg.shared -> aiogram",
        "pkg.pure.b": "pkg.pure.b -> pkg.shared -> aiogram",
        "pkg.pure.c": "pkg.pure.c -> pkg.bot -> aiogram",
        "pkg.pure.d": "pkg.pure.d -> pkg.pure.b -> pkg.shared -> aiogram",
    }
