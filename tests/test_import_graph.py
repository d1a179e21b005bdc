"""The engine's modules import one another one way only, and never the app.

Every import counts, at module level or inside a function (a late import is still a dependency);
only imports under `if TYPE_CHECKING:` (annotations) are left out.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _modules(package_dir: Path) -> dict[str, Path]:
    """Dotted name -> file of every module of the package at `package_dir`."""
    base = package_dir.parent
    out = {}
    for path in package_dir.rglob("*.py"):
        parts = path.relative_to(base).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imported(node: ast.AST, module: str, is_package: bool, known: set[str]) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:  # relative: from the module's package, `level` steps up
        parts = module.split(".") if is_package else module.split(".")[:-1]
        parts = parts[:len(parts) - node.level + 1]
        base = ".".join([*parts, node.module] if node.module else parts)
    else:
        base = node.module or ""
    # `from engine import cards` imports the module engine.cards; `from engine import Card`
    # imports the package engine itself.
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]


def imports_of(path: Path, module: str, known: set[str]) -> set[str]:
    """Every module `module` imports, anywhere in the file but under `if TYPE_CHECKING:`."""
    found: set[str] = set()
    is_package = path.name == "__init__.py"

    def walk(nodes: list[ast.AST]) -> None:
        for node in nodes:
            if isinstance(node, ast.If) and _is_type_checking(node):
                walk(node.orelse)
                continue
            found.update(_imported(node, module, is_package, known))
            walk(list(ast.iter_child_nodes(node)))

    walk([ast.parse(path.read_text(encoding="utf-8"))])
    return found


def import_graph(package_dir: Path) -> dict[str, set[str]]:
    """Module -> every module it imports (inside the package or not)."""
    modules = _modules(package_dir)
    return {name: imports_of(path, name, set(modules)) for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A circle of imports among the graph's own modules, as [a, b, ..., a], or None."""
    done: set[str] = set()
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        if module in path:
            return [*path[path.index(module):], module]
        if module in done:
            return None
        path.append(module)
        for target in sorted(graph[module] & graph.keys()):
            cycle = visit(target)
            if cycle:
                return cycle
        path.pop()
        done.add(module)
        return None

    for module in sorted(graph):
        cycle = visit(module)
        if cycle:
            return cycle
    return None


def test_engine_imports_form_no_circle() -> None:
    graph = import_graph(ROOT / "engine")
    assert "engine.game" in graph and "engine.views" in graph["engine.ai.players"]
    assert find_cycle(graph) is None, f"import circle: {' -> '.join(find_cycle(graph))}"


def test_engine_never_imports_the_app() -> None:
    graph = import_graph(ROOT / "engine")
    offenders = {m: sorted(t for t in targets if t.split(".")[0] == "tg_durak")
                 for m, targets in graph.items()}
    assert {m: t for m, t in offenders.items() if t} == {}


def test_views_depend_on_the_game_not_the_reverse() -> None:
    graph = import_graph(ROOT / "engine")
    assert "engine.game" in graph["engine.views"]
    assert "engine.views" not in graph["engine.game"]


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    for name, text in files.items():
        (pkg / name).write_text(text, encoding="utf-8")
    return pkg


def test_self_check_a_late_import_closes_a_circle(tmp_path: Path) -> None:
    """The check itself can fail: an import inside a function still counts."""
    pkg = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "from pkg.b import B\n",
        "b.py": "def f():\n    from pkg import a\n    return a\nB = 1\n",
    })
    assert find_cycle(import_graph(pkg)) == ["pkg.a", "pkg.b", "pkg.a"]


def test_self_check_type_checking_imports_do_not_count(tmp_path: Path) -> None:
    pkg = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "from pkg.b import B\n",
        "b.py": ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import A\n"
                 "else:\n    import json\nB = 1\n"),
    })
    graph = import_graph(pkg)
    assert find_cycle(graph) is None
    assert graph["pkg.b"] == {"typing", "json"}


def test_self_check_relative_imports_resolve(tmp_path: Path) -> None:
    pkg = _package(tmp_path, {"__init__.py": "from . import a\n", "a.py": "from .b import B\n",
                              "b.py": "from . import a\nB = 1\n"})
    graph = import_graph(pkg)
    assert graph == {"pkg": {"pkg.a"}, "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}}
    assert find_cycle(graph) == ["pkg.a", "pkg.b", "pkg.a"]
