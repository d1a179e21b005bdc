"""What the project's modules import and the names they bind, read from their source (no import).

Every import counts wherever it stands: at module level, inside a function (a late import is
still a dependency) and under `if TYPE_CHECKING:` (a type a module names is a module a reader
has to follow, and a circle through annotations is still a circle).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
PROJECT = (ROOT / "engine", ROOT / "tg_durak")


def modules(package_dirs: Iterable[Path]) -> dict[str, Path]:
    """Dotted name -> file of every module of the packages at `package_dirs`."""
    out = {}
    for package_dir in package_dirs:
        for path in sorted(package_dir.rglob("*.py")):
            parts = path.relative_to(package_dir.parent).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _source_of(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The module a `from ... import` reads from, with a relative one resolved."""
    if not node.level:
        return node.module or ""
    parts = module.split(".") if is_package else module.split(".")[:-1]
    parts = parts[:len(parts) - node.level + 1]  # `level` steps up from the module's package
    return ".".join([*parts, node.module] if node.module else parts)


def imports_in(path: Path, module: str, known: set[str]) -> Iterator[tuple[str, ast.alias, bool]]:
    """(module imported, its alias, whether by `from ... import`) for every import in the file.

    `from engine import cards` imports the module engine.cards; `from engine import Card` imports
    the package engine itself (and binds the name Card from it).
    """
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, alias, False
        elif isinstance(node, ast.ImportFrom):
            source = _source_of(node, module, is_package)
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                yield submodule if submodule in known else source, alias, True


def import_graph(package_dirs: Iterable[Path]) -> dict[str, set[str]]:
    """Module -> every module it imports (inside the packages or not)."""
    found = modules(package_dirs)
    known = set(found)
    return {name: {imported for imported, _, _ in imports_in(path, name, known)}
            for name, path in found.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every circle of imports among the graph's own modules: the strongly connected groups
    of two or more modules (or one importing itself), each sorted (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in sorted(graph[module] & graph.keys()):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = []
            while not group or group[-1] != module:
                group.append(stack.pop())
            if len(group) > 1 or module in graph[module]:
                out.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(out)


def within(name: str, packages: Iterable[str]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def loaded_by(imported: str, graph: dict[str, set[str]]) -> list[str]:
    """The graph's modules that importing `imported` runs: its packages' __init__ too."""
    parts = imported.split(".")
    return [m for m in (".".join(parts[:i]) for i in range(1, len(parts) + 1)) if m in graph]


def chain_to(graph: dict[str, set[str]], start: str, is_forbidden) -> list[str] | None:
    """The shortest chain of imports from `start` to a module `is_forbidden` accepts, following
    the project's modules (and the packages each import runs), or None."""
    parent: dict[str, str | None] = {start: None}
    queue = [start]
    for module in queue:
        for imported in sorted(graph[module]):
            if is_forbidden(imported):
                chain = [imported, module]
                while parent[chain[-1]] is not None:
                    chain.append(parent[chain[-1]])
                return chain[::-1]
            for reached in loaded_by(imported, graph):
                if reached not in parent:
                    parent[reached] = module
                    queue.append(reached)
    return None
