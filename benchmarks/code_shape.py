"""The shape of tribunal's code, read with ``ast`` (issue 43's before/after figures).

    python benchmarks/code_shape.py [ROOT] [--json]

ROOT is a checkout of tribunal (default: this one), so an older tree can be measured the same way
(``git worktree add /tmp/before COMMIT``). Nothing is imported from ROOT: the judges' names and their
settings classes are read from ``tribunal/core/judges.py``'s source. Counted:

- modules and lines (Python files under the installed folders);
- functions over 60 lines (``end_lineno - lineno + 1`` of every ``def``, decorators excluded);
- context variables (``ContextVar(...)`` calls) and thread-locals (``threading.local()``);
- places in the generic layers (``eval/``, ``optimizers/``, ``tribunal/cli/``, ``tribunal/runner/``,
  ``tribunal/scorers.py``; the demo's ``tribunal/cli/demo*.py`` excepted) that name a judge: a string equal to a
  registered judge's name, a name/attribute equal to a judge's settings class, its program class or
  its config section, or an attribute named like a field of a judge's settings model (``.rounds``);
- span classes (classes whose name ends in ``Span``) and functions named ``locate`` or ``span_f1``;
- ``Any`` in the annotations of ``tribunal/core/`` (fields, parameters and returns).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
from collections import Counter
from pathlib import Path

FOLDERS = ("data", "eval", "optimizers", "programs", "signatures", "tribunal")
GENERIC = ("eval/", "optimizers/", "tribunal/cli/", "tribunal/runner/", "tribunal/scorers.py")
EXCEPTED = ("tribunal/cli/demo",)  # the demo's modules (demo.py, demo_loop.py, ...): it chooses the judge to show
LONG = 60
GENERIC_WORDS = {"judge", "seed"}  # settings fields named like generic words (M-MAD's final judge, a run seed): not counted


def python_files(root: Path) -> list[Path]:
    """Every ``.py`` file of the installed folders, in a stable order."""
    return sorted(p for folder in FOLDERS for p in (root / folder).rglob("*.py") if "__pycache__" not in p.parts)


def settings_fields(root: Path, source: str) -> set[str]:
    """The field names of every settings model the registry names (read from its module's source)."""
    fields: set[str] = set()
    for module, cls in re.findall(r'Settings\((?:f"\{_MQM\}|")([\w.]*):(\w+)"', source):
        path = root / "programs/mqm" / (module.lstrip(".") + ".py") if not module.startswith("tribunal") else \
            root / (module.removeprefix("tribunal.").replace(".", "/") + ".py")
        if not path.exists():
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and node.name == cls:
                fields |= {n.target.id for n in node.body if isinstance(n, ast.AnnAssign) and
                           isinstance(n.target, ast.Name) and n.target.id != "model_config"}
    return fields - GENERIC_WORDS


def judge_vocabulary(root: Path) -> tuple[set[str], set[str], set[str]]:
    """``(judge names, identifiers, settings fields)`` declared in the judge registry's source: names are
    the entries' ``name`` and display name; identifiers their builder and settings classes and config
    sections; fields those of their settings models."""
    source = (root / "tribunal/core/judges.py").read_text()
    names = set(re.findall(r'Judge\(\s*"([a-z0-9-]+)"', source))
    names |= set(re.findall(r'Judge\(\s*"[a-z0-9-]+",[^,]+,\s*"[a-z]+",\s*"([^"]+)"', source))  # display names
    identifiers = set(re.findall(r':([A-Z][A-Za-z0-9]+)"', source))
    identifiers |= set(re.findall(r'Settings\([^,]+,\s*"([a-z_]+)"', source))
    return names, identifiers, settings_fields(root, source)


def _is_generic(relative: str) -> bool:
    return relative.startswith(GENERIC) and not relative.startswith(EXCEPTED)


def _annotations(tree: ast.AST) -> list[ast.AST]:
    found: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign):
            found.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.extend(a.annotation for a in [*node.args.args, *node.args.kwonlyargs] if a.annotation)
            if node.returns is not None:
                found.append(node.returns)
    return found


def _mentions_any(annotation: ast.AST) -> int:
    text = ast.unparse(annotation)
    return len(re.findall(r"\bAny\b", text))


def measure(root: Path) -> dict:
    """The counts the module docstring lists, with the places behind each."""
    names, identifiers, fields = judge_vocabulary(root)
    counts: Counter = Counter()
    long_functions, judge_places, span_classes, span_functions = [], [], [], []
    for path in python_files(root):
        relative = path.relative_to(root).as_posix()
        text = path.read_text()
        tree = ast.parse(text, filename=relative)
        counts["modules"] += 1
        counts["lines"] += text.count("\n")
        generic = _is_generic(relative)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > LONG:
                    long_functions.append((f"{relative}:{node.lineno}", node.name, length))
                if node.name in ("locate", "span_f1"):
                    span_functions.append(f"{relative}:{node.lineno} {node.name}")
            elif isinstance(node, ast.ClassDef) and node.name.endswith("Span"):
                span_classes.append(f"{relative}:{node.lineno} {node.name}")
            elif isinstance(node, ast.Call):
                called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                if called == "ContextVar":
                    counts["context variables"] += 1
                elif called == "local" and isinstance(node.func, ast.Attribute) and \
                        getattr(node.func.value, "id", "") == "threading":
                    counts["thread-locals"] += 1
            if generic:
                word = None
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names:
                    word = node.value
                elif isinstance(node, ast.Name) and node.id in identifiers:
                    word = node.id
                elif isinstance(node, ast.Attribute) and node.attr in identifiers | fields:
                    word = node.attr
                if word is not None:
                    judge_places.append(f"{relative}:{node.lineno} {word}")
        if relative.startswith("tribunal/core/"):
            counts["Any in core annotations"] += sum(_mentions_any(a) for a in _annotations(tree))
    return {
        "modules": counts["modules"], "lines": counts["lines"],
        "functions over 60 lines": len(long_functions),
        "context variables": counts["context variables"], "thread-locals": counts["thread-locals"],
        "places in the generic layers naming a judge": len(set(judge_places)),
        "span classes": len(span_classes), "locate/span_f1 functions": len(span_functions),
        "Any in core annotations": counts["Any in core annotations"],
        "detail": {
            "longest functions": sorted(long_functions, key=lambda f: -f[2])[:20],
            "judge places": sorted(set(judge_places)), "span classes": span_classes,
            "span functions": span_functions,
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--json", action="store_true", help="everything, places included, as JSON")
    args = parser.parse_args()
    result = measure(args.root.resolve())
    if args.json:
        print(json.dumps(result, indent=1))
        return
    for key, value in result.items():
        if key != "detail":
            print(f"{key:45s} {value}")
    for where, name, length in result["detail"]["longest functions"][:8]:
        print(f"  {length:4d} lines  {name}  {where}")


if __name__ == "__main__":
    main()
