"""Tribunal's modules read with ``ast``: what each imports at its top, what importing it loads, what
``tribunal --help`` loads, and every import statement inside a function."""

from __future__ import annotations

import ast
import functools
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from import_graph import ROOT, module_files
from inner_imports.libraries import external_names, loaded


@dataclass
class FunctionImport:
    """One import statement inside a function."""

    module: str
    path: Path
    node: ast.stmt
    function: ast.AST
    comment: str
    verdict: str = ""


_HELP_PROBE = """
import runpy, sys
sys.argv = ["tribunal", "--help"]
try:
    runpy.run_module("tribunal", run_name="__main__")
except SystemExit:
    pass
sys.stderr.write(" ".join(sorted(sys.modules)))
"""


@functools.lru_cache(maxsize=1)
def _runtime_help() -> frozenset[str] | None:
    """The modules ``tribunal --help`` imports, run in this Python; None when it cannot run tribunal."""
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run([sys.executable, "-c", _HELP_PROBE], capture_output=True, text=True, env=env, cwd=ROOT)
    return frozenset(done.stderr.split()) if done.returncode == 0 else None


def _parents(module: str) -> list[str]:
    """The parent packages of a dotted module name, outermost first."""
    parts = module.split(".")
    return [".".join(parts[:end]) for end in range(1, len(parts))]


class Analysis:
    """Module-level imports of every tribunal module, and what importing each one loads."""

    def __init__(self, root: Path = ROOT):
        self.files = module_files(root)
        self.trees = {m: ast.parse(p.read_text()) for m, p in self.files.items()}
        self.top_internal: dict[str, set[str]] = {}
        self.top_external: dict[str, set[str]] = {}
        for module, tree in self.trees.items():
            internal, external = set(), set()
            for node in self._module_level(tree):
                for target in self.targets(module, node):
                    (internal if target in self.files else external).add(target)
            self.top_internal[module] = internal - {module}
            self.top_external[module] = {t.split(".")[0] for t in external}
        if "tribunal.cli" in self.trees:  # the command line imports its sub-commands by name (importlib)
            self.top_internal["tribunal.cli"] |= {
                node.value for node in ast.walk(self.trees["tribunal.cli"])
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in self.files}
        self._closure: dict[tuple[str, bool], set[str]] = {}

    @staticmethod
    def _module_level(tree: ast.Module) -> list[ast.stmt]:
        found = []

        def visit(node: ast.AST) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    continue
                if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                    continue
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    found.append(child)
                visit(child)

        visit(tree)
        return found

    def targets(self, module: str, node: ast.stmt) -> list[str]:
        """Dotted names an import statement loads: tribunal modules resolved, others as written."""
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            base = node.module or ""
            if node.level:
                parts = module.split(".")
                keep = parts if self.files.get(module, Path()).name == "__init__.py" else parts[:-1]
                base = ".".join(keep[: len(keep) - node.level + 1] + ([node.module] if node.module else []))
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in self.files else base for a in node.names]
        resolved = []
        for name in names:
            dotted = name
            while dotted and dotted not in self.files and dotted.startswith("tribunal"):
                dotted = dotted.rpartition(".")[0]
            resolved.append(dotted or name)
        return resolved

    def closure(self, module: str, parents: bool = True) -> set[str]:
        """Tribunal modules loaded by importing ``module``: itself, what it imports at its top, and so on.

        ``parents``: with the parent packages Python runs first (what the import costs); without them,
        the modules whose import statements would run again into ``module`` (what makes a cycle).
        """
        if (module, parents) in self._closure:
            return self._closure[module, parents]
        seen, todo = set(), [module]
        while todo:
            current = todo.pop()
            if current in seen or current not in self.files:
                continue
            seen.add(current)
            todo.extend(self.top_internal[current])
            if parents:
                todo.extend(_parents(current))
        self._closure[module, parents] = seen
        return seen

    def help_modules(self) -> set[str]:
        """The tribunal modules ``tribunal --help`` loads: measured when this Python can run tribunal,
        else read from the command line's imports (its sub-commands are named in ``tribunal.cli``)."""
        runtime = _runtime_help()
        if runtime is not None:
            return {m for m in runtime if m in self.files}
        roots = {"tribunal.__main__", "tribunal.cli"}
        roots |= {node.value for node in ast.walk(self.trees["tribunal.cli"])
                  if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in self.files}
        return set().union(*(self.closure(root) for root in roots))

    def help_external(self) -> set[str]:
        """The library modules loaded by then (dotted: ``importlib.metadata``)."""
        runtime = _runtime_help()
        if runtime is not None:
            return {m for m in runtime if not m.startswith("tribunal")}
        names: set[str] = set()
        for module in self.help_modules():
            for node in self._module_level(self.trees[module]):
                names.update(external_names(node))
        return names

    def heavy(self, module: str) -> set[str]:
        """Heavy libraries loaded by importing ``module``."""
        return loaded(set().union(*(self.top_external[m] for m in self.closure(module))))


def function_imports(analysis: Analysis) -> list[FunctionImport]:
    """Every import statement inside a function, with its line comment."""
    found = []
    for module, tree in analysis.trees.items():
        lines = analysis.files[module].read_text().splitlines()

        def visit(node: ast.AST, function: ast.AST | None) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    if function is not None:
                        text = lines[(child.end_lineno or child.lineno) - 1]
                        comment = text.split("#", 1)[1].strip() if "#" in text else ""
                        found.append(FunctionImport(module, analysis.files[module], child, function, comment))
                    continue
                inner = child if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
                visit(child, inner)

        visit(tree, None)
    return found
