"""The ``tribunal`` command lines the test files write, read from their syntax trees.

A command line is a call or a list literal whose string words, in order, contain a command path
(``run_cli(capsys, "mt", "evaluate", "--lp", "zh-en")``, ``["data", "check", "--data", d]``). Its
options are the ``--names`` among the same words. Words come from string constants, list and tuple
literals, ``*NAME``, ``NAME + [...]`` and ``NAME`` bound to a literal in the function or module
(including a ``pytest.mark.parametrize`` argument and a ``for NAME in (...)`` loop). A call to a
test helper that builds or runs a command line (``evaluate("--routing", "x")``, defined in the same
file, a conftest above it, or a ``tests`` module it imports from), directly or inside the arguments of
the call, counts as that command line with the call's words added. An option written anywhere else in a file does not count.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

Command = tuple[str, ...]


def _words(node: ast.AST, names: dict[str, list[ast.AST]], depth: int = 0) -> Iterator[str]:
    """The string words ``node`` contributes to a command line, in order."""
    if depth > 6:
        return
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        for element in node.elts:
            yield from _words(element, names, depth + 1)
    elif isinstance(node, ast.Starred):
        yield from _words(node.value, names, depth + 1)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        yield from _words(node.left, names, depth + 1)
        yield from _words(node.right, names, depth + 1)
    elif isinstance(node, ast.Name):
        for bound in names.get(node.id, []):
            yield from _words(bound, names, depth + 1)
    elif isinstance(node, ast.JoinedStr) and node.values:  # f"--set={x}": its literal head
        head = node.values[0]
        if isinstance(head, ast.Constant) and isinstance(head.value, str):
            yield head.value


def _bind(names: dict[str, list[ast.AST]], target: ast.AST, value: ast.AST) -> None:
    if isinstance(target, ast.Name):
        names.setdefault(target.id, []).append(value)
    elif isinstance(target, (ast.Tuple, ast.List)):  # unpacking: each name may hold any element
        for element in target.elts:
            _bind(names, element, value)


def _bindings(scope: ast.AST) -> dict[str, list[ast.AST]]:
    """Names bound in ``scope`` to something that may hold words: assignments, loops, parametrize."""
    names: dict[str, list[ast.AST]] = {}
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                _bind(names, target, node.value)
        elif isinstance(node, (ast.For, ast.comprehension)):
            _bind(names, node.target, node.iter)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                if (isinstance(decorator, ast.Call) and getattr(decorator.func, "attr", "") == "parametrize"
                        and len(decorator.args) >= 2 and isinstance(decorator.args[0], ast.Constant)):
                    for name in str(decorator.args[0].value).split(","):
                        names.setdefault(name.strip(), []).append(decorator.args[1])
    return names


def _callee(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _contains(words: list[str], command: Command) -> bool:
    n = len(command)
    return any(tuple(words[i:i + n]) == command for i in range(len(words) - n + 1))


def _options(words: list[str]) -> set[str]:
    return {w.split("=", 1)[0] for w in words if w.startswith("--") and " " not in w}


@dataclass
class TestModule:
    path: Path
    tree: ast.Module
    imported: dict[str, str] = field(default_factory=dict)  # name -> tests module it comes from

    @classmethod
    def read(cls, path: Path) -> "TestModule":
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        imported = {alias.asname or alias.name: node.module for node in ast.walk(tree)
                    if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tests")
                    for alias in node.names}
        return cls(path, tree, imported)

    def functions(self) -> dict[str, ast.AST]:
        return {n.name: n for n in ast.walk(self.tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


class Invocations:
    """Every command line written in the test tree ``root`` (a folder holding ``tests/``' files)."""

    def __init__(self, root: Path, commands: list[Command], skip: Path | None = None):
        self.root, self.commands = root, commands
        self.modules = {p: TestModule.read(p) for p in sorted(root.rglob("*.py")) if p != skip}
        self._helpers: dict[tuple[Path, str], list[tuple[Command, set[str]]]] = {}

    def lines(self) -> Iterator[tuple[Command, set[str]]]:
        """``(command, options)`` for every command line of every test file."""
        for module in self.modules.values():
            yield from self._lines_in(module, module.tree)

    def _lines_in(self, module: TestModule, scope: ast.AST) -> Iterator[tuple[Command, set[str]]]:
        names = _bindings(module.tree) | _bindings(scope)
        for node in ast.walk(scope):
            if isinstance(node, (ast.List, ast.Tuple)):
                yield from self._direct(list(_words(node, names)))
            elif isinstance(node, ast.Call):
                words = [w for arg in [*node.args, *(k.value for k in node.keywords)] for w in _words(arg, names)]
                yield from self._direct(words)
                for inner in ast.walk(node):  # the call itself, or a helper call inside its arguments
                    if isinstance(inner, ast.Call):  # (``run_cli(capsys, *commands()[name], "--timeout", "0")``)
                        for command, options in self._helper(module, _callee(inner)):
                            yield command, options | _options(words)

    def _direct(self, words: list[str]) -> Iterator[tuple[Command, set[str]]]:
        for command in self.commands:
            if _contains(words, command):
                yield command, _options(words)

    def _helper(self, module: TestModule, name: str | None) -> list[tuple[Command, set[str]]]:
        """The command lines a helper called ``name`` (as seen from ``module``) writes."""
        if not name:
            return []
        for where in self._definitions(module, name):
            key = (where.path, name)
            if key not in self._helpers:
                self._helpers[key] = []  # a recursive helper adds nothing to itself
                self._helpers[key] = list(self._lines_in(where, where.functions()[name]))
            if self._helpers[key]:
                return self._helpers[key]
        return []

    def _definitions(self, module: TestModule, name: str) -> Iterator[TestModule]:
        if name in module.functions():
            yield module
        source = module.imported.get(name)
        if source:
            path = self.root.joinpath(*source.split(".")[1:]).with_suffix(".py")  # root is tests/
            if path in self.modules and name in self.modules[path].functions():
                yield self.modules[path]
        for folder in module.path.parents:  # fixtures from a conftest above
            conftest = folder / "conftest.py"
            if conftest in self.modules and name in self.modules[conftest].functions():
                yield self.modules[conftest]
            if folder == self.root:
                break
