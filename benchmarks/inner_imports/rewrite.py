"""What ``--write`` does to a module: each reason written as a line comment, each movable light import
moved to the module's first block of imports."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

from inner_imports.analysis import Analysis, FunctionImport
from inner_imports.verdicts import hoistable, bindings


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
            elif item.verdict == "light" and hoistable(analysis, item, patched):
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
