"""The verdict on one import inside a function (its reason, ``light`` or ``cycle``), and whether a light
one can move to the top of its module."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from inner_imports.analysis import Analysis, FunctionImport
from inner_imports.libraries import HEAVY_SECONDS, OPTIONAL, external_names, loaded


def patched_names(root: Path) -> set[str]:
    """Attribute names tests patch (``monkeypatch.setattr(x, "name", ...)`` or ``"a.b.name"``)."""
    names = set()
    for path in (root / "tests").rglob("*.py"):
        for match in re.finditer(r"setattr\(\s*(?:[\w.]+\s*,\s*)?[\"']([\w.]+)[\"']", path.read_text()):
            names.add(match.group(1).rpartition(".")[2])
    return names


def global_names(analysis: Analysis) -> set[str]:
    """Names some function rebinds with ``global``: an import of one must stay where it reads it."""
    return {name for tree in analysis.trees.values() for node in ast.walk(tree) if isinstance(node, ast.Global)
            for name in node.names}


def _in_try(tree: ast.AST, node: ast.stmt) -> bool:
    """Is the import guarded by ``try: ... except ImportError`` (an optional import that must stay put)?"""
    for parent in ast.walk(tree):
        if isinstance(parent, ast.Try) and any(child is node for stmt in parent.body for child in ast.walk(stmt)):
            caught = " ".join(ast.unparse(h.type) for h in parent.handlers if h.type is not None)
            if any(h.type is None for h in parent.handlers) or re.search(r"ImportError|ModuleNotFound|Exception",
                                                                            caught):
                return True
    return False


def judge(analysis: Analysis, item: FunctionImport, sccs: dict[str, int]) -> str:
    """The reason for one import inside a function (``light`` or ``cycle`` when there is none)."""
    targets = analysis.targets(item.module, item.node)
    tops = {t.split(".")[0] for t in targets}
    if tops & OPTIONAL:
        return "optional extra: " + ", ".join(sorted(tops & OPTIONAL))
    internal = [t for t in targets if t in analysis.files]
    has = analysis.heavy(item.module)
    gain = loaded({t.split(".")[0] for t in targets if t not in analysis.files}) - has
    for target in internal:
        gain |= analysis.heavy(target) - has
    if gain:
        shown = sorted(gain, key=lambda n: -HEAVY_SECONDS[n])[:2]
        return "heavy: " + (", ".join(shown) if not internal else "pulls in " + ", ".join(shown))
    if item.module in analysis.help_modules():  # a module `tribunal --help` loads: nothing new at start-up
        new = set().union(*(analysis.closure(t) for t in internal)) - analysis.help_modules()
        new_external = set(external_names(item.node)) - analysis.help_external()
        if new or new_external:
            return "startup: kept out of `tribunal --help`"
    if any(item.module in analysis.closure(t, parents=False) for t in internal):
        return "cycle"
    if any(sccs.get(t) is not None and sccs.get(t) == sccs.get(item.module) for t in internal):
        return "cycle"
    return "light"


def bound_names(node: ast.stmt) -> list[str]:
    """Names an import statement binds."""
    return [(a.asname or a.name).split(".")[0] for a in node.names]


def bindings(node: ast.stmt) -> dict[str, tuple]:
    """What each name an import statement binds refers to: ``{name: (module, level, imported name)}``."""
    if isinstance(node, ast.Import):
        return {(a.asname or a.name).split(".")[0]: (a.name if a.asname else a.name.split(".")[0], 0, None)
                for a in node.names}
    return {a.asname or a.name: (node.module, node.level, a.name) for a in node.names}


def hoistable(analysis: Analysis, item: FunctionImport, patched: set[str]) -> bool:
    """Can this light import move to the top of its module: not guarded by a ``try``, in no class, not a name
    tests patch, and no clash with a name the module or the function binds otherwise?"""
    tree = analysis.trees[item.module]
    if _in_try(tree, item.node) or any(isinstance(n, ast.ClassDef) for n in ast.walk(item.function)):
        return False
    mine = bindings(item.node)
    if isinstance(item.node, ast.ImportFrom) and {a.name for a in item.node.names} & patched:
        return False
    top_bound: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            top_bound.update(bindings(node))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            top_bound[node.name] = "def"
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.For, ast.With)):
            for target in ast.walk(node):
                if isinstance(target, ast.Name) and isinstance(target.ctx, ast.Store):
                    top_bound[target.id] = "assign"
    for name, meaning in mine.items():
        if name in top_bound and top_bound[name] != meaning:
            return False
    for other in ast.walk(tree):  # the same name bound to something else by another function's import
        if isinstance(other, (ast.Import, ast.ImportFrom)) and other is not item.node:
            theirs = bindings(other)
            if any(name in theirs and theirs[name] != meaning for name, meaning in mine.items()):
                return False
    for node in ast.walk(item.function):  # a local of that name (an assignment, a parameter)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id in mine:
            return False
        if isinstance(node, ast.arg) and node.arg in mine:
            return False
    return True
