"""The shape a newcomer can find his way in (issue 15): no mixins, short files, a short top level.

Read from the source with the AST, like tests/test_import_graph.py: nothing is imported.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers.imports import PROJECT, ROOT, imports_in, modules

MAX_LINES = 600
# The emulator's HTML parser is one state machine; splitting it would hide the grammar.
LONG_FILE_ALLOWED = {"tg_durak/emulator/markup.py"}
MAX_GAME_LINES = 850        # engine/game.py: the rules and nothing else
MAX_TOP_LEVEL_MODULES = 8   # modules directly in tg_durak/; the rest lives in packages


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


class Classes:
    """The project's own classes, and what a base named in a class statement resolves to."""

    def __init__(self, package_dirs: list[Path]) -> None:
        self.files = modules(package_dirs)
        known = set(self.files)
        self.trees = {m: ast.parse(p.read_text(encoding="utf-8")) for m, p in self.files.items()}
        self.defined = {m: {n.name for n in ast.walk(t) if isinstance(n, ast.ClassDef)}
                        for m, t in self.trees.items()}
        # module -> local name -> ("module", dotted) or ("name", module, name)
        self.names: dict[str, dict[str, tuple[str, ...]]] = {m: {} for m in self.files}
        for module, path in self.files.items():
            names = self.names[module]
            for imported, alias, is_from in imports_in(path, module, known):
                if not is_from:  # `import a.b` binds a; `import a.b as c` binds c to a.b
                    local = alias.asname or imported.split(".")[0]
                    names[local] = ("module", imported if alias.asname else local)
                elif imported in known and imported.endswith(f".{alias.name}"):
                    names[alias.asname or alias.name] = ("module", imported)
                else:
                    names[alias.asname or alias.name] = ("name", imported, alias.name)

    def resolve(self, module: str, name: str, depth: int = 0) -> str | None:
        """`module`'s name `name` as "module.Class" if it is a project class (through
        re-exports), else None."""
        if module not in self.files or depth > 20:
            return None
        if name in self.defined[module]:
            return f"{module}.{name}"
        bound = self.names[module].get(name)
        if bound is None or bound[0] != "name":
            return None
        return self.resolve(bound[1], bound[2], depth + 1)

    def base(self, module: str, node: ast.expr) -> str | None:
        """A class statement's base (`Name`, `module.Name`, `Name[T]`) as a project class."""
        if isinstance(node, ast.Subscript):
            return self.base(module, node.value)
        if isinstance(node, ast.Name):
            return self.resolve(module, node.id)
        if isinstance(node, ast.Attribute):
            dotted = ast.unparse(node.value)
            head, _, rest = dotted.partition(".")
            bound = self.names[module].get(head)
            if bound is not None and bound[0] == "module":
                return self.resolve(".".join(filter(None, (bound[1], rest))), node.attr)
        return None

    def with_several_project_bases(self, package: str) -> dict[str, list[str]]:
        """Classes of `package` that inherit from two or more project classes: their bases."""
        out = {}
        for module, tree in self.trees.items():
            if not (module == package or module.startswith(package + ".")):
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    bases = {b for b in (self.base(module, e) for e in node.bases) if b}
                    if len(bases) >= 2:
                        out[f"{module}.{node.name}"] = sorted(bases)
        return out


def test_no_class_in_the_app_inherits_from_two_project_classes() -> None:
    """Collaborators get what they need through their constructors, not through mixins."""
    found = Classes(list(PROJECT)).with_several_project_bases("tg_durak")
    assert found == {}, found


def test_no_file_in_the_app_is_longer_than_600_lines() -> None:
    long = {str(p.relative_to(ROOT)): _lines(p) for p in (ROOT / "tg_durak").rglob("*.py")}
    assert {f: n for f, n in long.items() if n > MAX_LINES and f not in LONG_FILE_ALLOWED} == {}


def test_the_rules_module_stays_under_850_lines() -> None:
    assert _lines(ROOT / "engine" / "game.py") < MAX_GAME_LINES


def test_at_most_eight_modules_directly_in_the_app() -> None:
    top = sorted(p.name for p in (ROOT / "tg_durak").glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL_MODULES, top


def test_self_check_mixins_are_found_through_imports_and_re_exports(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "core").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "core/__init__.py": "from pkg.core.base import Core as Core\n",
        "core/base.py": "class Core:\n    pass\n",
        "mixins.py": "from typing import Generic, TypeVar\nT = TypeVar('T')\n"
                     "class Lobbies(Generic[T]):\n    pass\nclass Absences:\n    pass\n",
        "service.py": ("from pkg import mixins\nfrom pkg.core import Core\n"
                       "from pkg.mixins import Lobbies as L\n"
                       "class Service(Core, L[int]):\n    pass\n"
                       "class Other(mixins.Absences, Exception):\n    pass\n"
                       "class Both(mixins.Absences, mixins.Lobbies):\n    pass\n"),
    }
    for name, text in files.items():
        (pkg / name).write_text(text, encoding="utf-8")
    assert Classes([pkg]).with_several_project_bases("pkg") == {
        "pkg.service.Both": ["pkg.mixins.Absences", "pkg.mixins.Lobbies"],
        "pkg.service.Service": ["pkg.core.base.Core", "pkg.mixins.Lobbies"],
    }
