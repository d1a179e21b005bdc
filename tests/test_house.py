"""A house you can change safely (issue 36): one name for one thing, the tables changed by
`tables/` alone, and no object wired by another reaching into it after it was built.

Read from the source with the AST, like tests/test_layout.py: nothing is imported but the two
record classes whose fields the second test names.
"""

from __future__ import annotations

import ast
import dataclasses
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from tests.helpers.imports import PROJECT, ROOT, modules
from tg_durak.tables.live import LiveLobby, LiveTable

TABLES = ROOT / "tg_durak" / "tables"
# A class's name, or a name a module binds to something built as a class or a type (aiogram's
# CallbackData factories, a union of records): CamelCase, not a CONSTANT.
_NOT_TYPES = {"TypeVar", "ParamSpec", "getLogger"}


def _trees() -> Iterator[tuple[str, Path, ast.Module]]:
    for module, path in modules(PROJECT).items():
        yield module, path, ast.parse(path.read_text(encoding="utf-8"))


def _is_type_name(name: str) -> bool:
    return name[:1].isupper() and not name.isupper() and len(name) > 1


def _called(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        func = node.func
        return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    return ""


def type_names(tree: ast.Module) -> set[str]:
    """Every class a module defines (nested ones too) and every type name it binds at its top."""
    names = {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) and node.value is not None else [])
        value = getattr(node, "value", None)
        for target in targets:
            if (isinstance(target, ast.Name) and _is_type_name(target.id)
                    and value is not None and _called(value) not in _NOT_TYPES):
                names.add(target.id)
    return names


def test_no_two_classes_share_a_name() -> None:
    where: defaultdict[str, list[str]] = defaultdict(list)
    for module, _, tree in _trees():
        for name in type_names(tree):
            where[name].append(module)
    shared = {name: modules for name, modules in where.items() if len(modules) > 1}
    assert not shared, f"one name, several things: {shared}"


def test_the_check_sees_a_factory_made_class_and_a_union() -> None:
    tree = ast.parse("MoveCallback = factory(Move)\nFrame = Hello | Move\nLOG = getLogger()\n"
                     "T = TypeVar('T')\nclass Outer:\n    class Inner: ...\n")
    assert type_names(tree) == {"MoveCallback", "Frame", "Outer", "Inner"}


# ---- only tables/ changes a table ---------------------------------------------------------

_LIVE_FIELDS = ({f.name for f in dataclasses.fields(LiveTable)}
                | {f.name for f in dataclasses.fields(LiveLobby)})
_LOCKS = {"lock", "process_lock", "_locks"}


def _imports_tables(tree: ast.Module) -> bool:
    return any(isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
        "tg_durak.tables") for node in ast.walk(tree))


def _outside_tables() -> Iterator[tuple[Path, ast.Module]]:
    """The modules outside tables/ that may hold a table (they import from it)."""
    for _, path, tree in _trees():
        if TABLES not in path.parents and _imports_tables(tree):
            yield path, tree


def _changed_attributes(tree: ast.AST) -> Iterator[ast.Attribute]:
    """Attributes assigned, augmented or deleted, and those whose items are (`x.a[k] = v`)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets: list[ast.expr] = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = list(node.targets)
        else:
            continue
        while targets:
            target = targets.pop()
            if isinstance(target, ast.Tuple | ast.List):
                targets.extend(target.elts)
            elif isinstance(target, ast.Subscript):
                targets.append(target.value)
            elif isinstance(target, ast.Attribute):
                yield target


def live_table_changes(tree: ast.AST) -> list[str]:
    """Where a module outside tables/ takes a table's lock or writes a LiveTable's field."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in _LOCKS and not (
                isinstance(node.value, ast.Name) and node.value.id == "self"):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    for target in _changed_attributes(tree):
        if target.attr in _LIVE_FIELDS and not (
                isinstance(target.value, ast.Name) and target.value.id == "self"):
            found.append(f"{target.lineno}: {ast.unparse(target)}")
    return found


def test_only_tables_locks_or_changes_a_live_table() -> None:
    found = {str(path.relative_to(ROOT)): where for path, tree in _outside_tables()
             if (where := live_table_changes(tree))}
    assert not found, f"a table changed outside tables/: {found}"


def test_the_check_sees_a_lock_and_a_written_field() -> None:
    tree = ast.parse("async def f(core, live):\n    async with core.lock(1):\n"
                     "        live.in_app = set()\n        live.messages[1] = (2, 3)\n"
                     "def g(self):\n    self.row = 1\n")
    assert [line.split(":")[0] for line in live_table_changes(tree)] == ["2", "3", "4"]


# ---- nobody sets another object's attribute ----------------------------------------------

# Each package owns the records it defines (tables/ its LiveTable, the emulator its chats, the
# outbox its queue's slots): its modules may change them. Nothing else is set from outside, but:
ALLOWED = {
    # a function compiled with exec (the unrolled copy of a game) is given its docstring
    ("engine/state.py", "copy.__doc__"),
    # Python's own hooks for an exception nothing caught are set by assignment, by design
    ("tg_durak/ops/logs.py", "sys.excepthook"),
    ("tg_durak/ops/logs.py", "threading.excepthook"),
}


def _package_of(module: str) -> str:
    parts = module.split(".")
    return parts[0] if parts[0] == "engine" else ".".join(parts[:2])


def _declared(tree: ast.Module) -> set[str]:
    """The attributes the classes of a module declare (in the body or as self.x = ...)."""
    names = set()
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for node in ast.walk(cls):
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
            elif isinstance(node, ast.Assign):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        for target in _changed_attributes(cls):
            if isinstance(target.value, ast.Name) and target.value.id == "self":
                names.add(target.attr)
    return names


def _made_in(function: ast.AST) -> set[str]:
    """The names a function binds to an object it builds (a call)."""
    return {target.id for node in ast.walk(function)
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
            for target in node.targets if isinstance(target, ast.Name)}


def foreign_assignments(tree: ast.Module, own: set[str]) -> list[str]:
    """Attributes a module sets on objects that are neither `self`, built by the same function,
    nor records of its own package (whose attributes are `own`)."""
    found = []
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        made = _made_in(function) | {"self", "cls"}
        for node in ast.walk(function):
            if not isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for part in (target.elts if isinstance(target, ast.Tuple) else [target]):
                    if not isinstance(part, ast.Attribute):
                        continue
                    base = part.value
                    if isinstance(base, ast.Name) and base.id in made:
                        continue
                    if part.attr in own:
                        continue
                    found.append(f"{part.lineno}: {ast.unparse(part)}")
    return sorted(set(found))


def test_no_module_sets_an_attribute_of_an_object_it_did_not_make() -> None:
    trees = list(_trees())
    own: defaultdict[str, set[str]] = defaultdict(set)
    for module, _, tree in trees:
        own[_package_of(module)] |= _declared(tree)
    found = {}
    for module, path, tree in trees:
        name = str(path.relative_to(ROOT))
        where = [line for line in foreign_assignments(tree, own[_package_of(module)])
                 if (name, line.split(": ", 1)[1]) not in ALLOWED]
        if where:
            found[name] = where
    assert not found, f"attributes set from outside their object: {found}"


def test_the_check_sees_a_late_assignment() -> None:
    tree = ast.parse("def wire(app, screens):\n    screens.bot_username = 'x'\n"
                     "    made = Thing()\n    made.name = 'y'\n    self.z = 1\n")
    assert foreign_assignments(tree, own=set()) == ["2: screens.bot_username"]
    assert foreign_assignments(tree, own={"bot_username"}) == []
