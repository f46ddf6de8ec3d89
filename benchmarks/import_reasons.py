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
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from import_graph import ROOT, cycles  # noqa: E402
from inner_imports.analysis import Analysis, function_imports  # noqa: E402
from inner_imports.rewrite import apply  # noqa: E402
from inner_imports.verdicts import global_names, hoistable, judge, patched_names  # noqa: E402


def main() -> int:
    """List (or with --write, fix) the imports inside functions that carry no reason."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write reasons, move light imports to the top")
    args = parser.parse_args()
    analysis = Analysis()
    edges = {(m, t) for m in analysis.files for t in analysis.top_internal[m]}
    sccs = {m: i for i, component in enumerate(cycles(edges)) for m in component}
    items = [i for i in function_imports(analysis) if not i.comment]
    patched = patched_names(ROOT) | global_names(analysis)
    for item in items:  # one at a time: an import moved up is a module-level import for the next verdicts
        item.verdict = judge(analysis, item, sccs)
        if item.verdict == "light" and hoistable(analysis, item, patched):
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
