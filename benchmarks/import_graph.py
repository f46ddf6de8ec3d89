"""The import graph between tribunal's packages, read with ``ast`` (nothing is imported).

Run ``python benchmarks/import_graph.py`` from the repository root. It maps the source folders
to their installed names the way pyproject's ``[tool.setuptools.package-dir]`` does
(``eval/`` -> ``tribunal.eval`` ...), lists every import of a tribunal module, and prints:
module-level cycles (strongly connected components), package-level cycles, the imports that sit
inside functions (and how many carry a ``# why`` comment), lines of code per package and the
largest files. ``tests/test_architecture.py`` uses the same functions to enforce the layers.
"""

from __future__ import annotations

import ast
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Import:
    """One import of a tribunal module found in a source file."""

    source: str  # the importing module, dotted
    target: str  # the imported tribunal module, dotted
    line: int
    in_function: bool
    type_checking: bool  # under ``if TYPE_CHECKING:`` (never executed)
    comment: str  # the text after ``#`` on the import's line(s), "" when none


def package_dirs(root: Path = ROOT) -> dict[str, Path]:
    """The installed package name of each source folder (from pyproject's package-dir)."""
    config = tomllib.loads((root / "pyproject.toml").read_text())
    mapping = config["tool"]["setuptools"]["package-dir"]
    return {name: root / folder for name, folder in mapping.items()}


def module_files(root: Path = ROOT) -> dict[str, Path]:
    """Every tribunal module, dotted name -> file (``__init__`` files name their package)."""
    modules: dict[str, Path] = {}
    for name, folder in package_dirs(root).items():
        for path in sorted(folder.rglob("*.py")):
            rel = path.relative_to(folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            if any(not p.isidentifier() for p in parts):
                continue
            dotted = ".".join([name, *parts]) if parts else name
            modules.setdefault(dotted, path)
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _line_comment(lines: list[str], node: ast.stmt) -> str:
    end = node.end_lineno or node.lineno
    for number in range(end, node.lineno - 1, -1):
        text = lines[number - 1]
        if "#" in text:
            return text.split("#", 1)[1].strip()
    return ""


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _targets(name: str, node: ast.stmt, modules: dict[str, Path], module: str, is_pkg: bool) -> list[str]:
    if isinstance(node, ast.Import):
        found = []
        for alias in node.names:
            dotted = alias.name
            while dotted and dotted not in modules:
                dotted = dotted.rpartition(".")[0]
            if dotted:
                found.append(dotted)
        return found
    assert isinstance(node, ast.ImportFrom)
    base = _resolve(module, is_pkg, node)
    found = []
    for alias in node.names:
        candidate = f"{base}.{alias.name}"
        dotted = candidate if candidate in modules else base
        while dotted and dotted not in modules:
            dotted = dotted.rpartition(".")[0]
        if dotted and dotted not in found:
            found.append(dotted)
    return found


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> list[Import]:
    """The tribunal imports written in one file (module level and inside functions)."""
    text = path.read_text()
    lines = text.splitlines()
    tree = ast.parse(text, filename=str(path))
    is_pkg = path.name == "__init__.py"
    found: list[Import] = []

    def visit(node: ast.AST, in_function: bool, type_checking: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                for target in _targets(module, child, modules, module, is_pkg):
                    if target != module:
                        found.append(Import(module, target, child.lineno, in_function,
                                            type_checking, _line_comment(lines, child)))
                continue
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            guarded = type_checking or (isinstance(child, ast.If) and _is_type_checking(child.test))
            visit(child, inner, guarded)

    visit(tree, False, False)
    return found


def all_imports(root: Path = ROOT) -> list[Import]:
    """Every tribunal-internal import in the source folders."""
    modules = module_files(root)
    return [imp for name, path in modules.items() for imp in imports_of(name, path, modules)]


def all_function_imports(root: Path = ROOT) -> list[tuple[str, int, str]]:
    """Every import statement inside a function (any module, tribunal or not): (file, line, comment)."""
    rows = []
    for _, path in module_files(root).items():
        text = path.read_text()
        lines = text.splitlines()

        def visit(node: ast.AST, in_function: bool) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    if in_function:
                        rows.append((str(path.relative_to(root)), child.lineno, _line_comment(lines, child)))
                    continue
                visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))

        visit(ast.parse(text), False)
    return rows


# The layers, bottom first: a module may import its own layer and the layers below it, never one above.
# Each entry names the packages or modules of a layer; the longest matching prefix decides a module's
# layer (``tribunal.core.judges`` is not ``tribunal.core``). ARCHITECTURE.md explains the order.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", ("tribunal", "tribunal.core", "tribunal.errors", "tribunal.quiet", "tribunal.secrets")),
    ("data", ("tribunal.data",)),
    ("signatures", ("tribunal.signatures",)),
    ("programs", ("tribunal.programs",)),
    ("runner", ("tribunal.runner",)),
    ("eval", ("tribunal.eval",)),
    ("service", ("tribunal.service",)),  # the judging service: runs a judge over items with eval and the runner
    ("optimizers", ("tribunal.optimizers",)),
    ("app", ("tribunal.cli", "tribunal.scorers", "tribunal.local_build", "tribunal.__main__")),
)
_LAYER_OF = {package: (rank, name) for rank, (name, packages) in enumerate(LAYERS) for package in packages}


def package_of(module: str) -> str:
    """The layer entry a module belongs to (the longest matching prefix in :data:`LAYERS`).

    ``tribunal.eval.mt.job`` -> ``tribunal.eval``; ``tribunal.data.mtme`` -> ``tribunal.data``.
    A module directly under ``tribunal/`` that no entry names maps to ``tribunal`` itself (the base).
    """
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in _LAYER_OF and (end > 1 or len(parts) == 1 or prefix != "tribunal"):
            return prefix
    return "tribunal" if parts[0] == "tribunal" and len(parts) == 1 else "?"


def layer_of(module: str) -> tuple[int, str]:
    """(rank, name) of a module's layer; rank -1 and ``?`` when no entry of :data:`LAYERS` names it."""
    return _LAYER_OF.get(package_of(module), (-1, "?"))


def upward_imports(imports: list[Import]) -> list[Import]:
    """Imports of a module in a higher layer (type-checking imports excluded)."""
    return [i for i in imports if not i.type_checking and layer_of(i.target)[0] > layer_of(i.source)[0]]


def cycles(edges: set[tuple[str, str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan, iterative)."""
    graph: dict[str, list[str]] = {}
    for a, b in edges:
        graph.setdefault(a, []).append(b)
        graph.setdefault(b, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return sorted(components)


def module_edges(imports: list[Import], *, with_functions: bool) -> set[tuple[str, str]]:
    """Module -> module edges (type-checking imports never count)."""
    return {(i.source, i.target) for i in imports
            if not i.type_checking and (with_functions or not i.in_function)}


def package_edges(imports: list[Import], *, with_functions: bool) -> dict[tuple[str, str], int]:
    """Package -> package edges with the number of imports behind each."""
    counts: dict[tuple[str, str], int] = {}
    for i in imports:
        if i.type_checking or (i.in_function and not with_functions):
            continue
        pair = (package_of(i.source), package_of(i.target))
        if pair[0] != pair[1]:
            counts[pair] = counts.get(pair, 0) + 1
    return counts


def lines_per_package(root: Path = ROOT) -> dict[str, int]:
    """Lines of Python per top package."""
    totals: dict[str, int] = {}
    for name, path in module_files(root).items():
        package = package_of(name)
        totals[package] = totals.get(package, 0) + len(path.read_text().splitlines())
    return totals


def main() -> int:
    """Print the figures."""
    imports = all_imports()
    for label, with_functions in (("module level", False), ("including in-function", True)):
        found = cycles(module_edges(imports, with_functions=with_functions))
        print(f"module cycles ({label}): {len(found)}")
        for component in found:
            print("   ", len(component), "modules:", ", ".join(component))
    for label, with_functions in (("module level", False), ("including in-function", True)):
        edges = package_edges(imports, with_functions=with_functions)
        found = cycles(set(edges))
        print(f"package cycles ({label}): {len(found)}", *(" <-> ".join(c) for c in found))
        print("   edges:", ", ".join(f"{a.removeprefix('tribunal.')}->{b.removeprefix('tribunal.')}:{n}"
                                     for (a, b), n in sorted(edges.items())))
    upward = upward_imports(imports)
    print(f"imports of a higher layer: {len(upward)}")
    for i in upward:
        print(f"    {i.source} -> {i.target} (line {i.line}{', in a function' if i.in_function else ''})")
    rows = all_function_imports()
    with_reason = sum(1 for _, _, comment in rows if comment)
    print(f"imports inside functions: {len(rows)} (with a comment: {with_reason})")
    print(f"  files with one: {len({path for path, _, _ in rows})}")
    internal = sum(1 for i in imports if i.in_function)
    print(f"  of which import a tribunal module: {internal}")
    totals = lines_per_package()
    print("lines per package:", ", ".join(f"{k}={v}" for k, v in sorted(totals.items())),
          "total", sum(totals.values()))
    sizes = sorted(((len(p.read_text().splitlines()), p.relative_to(ROOT)) for p in module_files().values()),
                   reverse=True)[:10]
    print("largest files:", ", ".join(f"{path} {n}" for n, path in sizes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
