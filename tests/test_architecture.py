"""The import rules of ARCHITECTURE.md, checked on the source with ``ast`` (nothing is imported).

The analysis is ``benchmarks/import_graph.py`` (the script that prints the figures), loaded here
by path: the rules and the figures can never disagree.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


graph = _load("import_graph")


@pytest.fixture(scope="module")
def imports():
    return graph.all_imports(REPO)


def test_every_module_belongs_to_a_layer():
    unplaced = [m for m in graph.module_files(REPO) if graph.layer_of(m)[0] < 0]
    assert unplaced == [], f"add these modules to LAYERS in benchmarks/import_graph.py: {unplaced}"


def test_no_module_imports_a_higher_layer(imports):
    upward = [f"{i.source} (line {i.line}) imports {i.target}: layer {graph.layer_of(i.source)[1]} "
              f"imports layer {graph.layer_of(i.target)[1]}" for i in graph.upward_imports(imports)]
    assert upward == []


def test_no_import_cycle_between_modules_at_module_level(imports):
    assert graph.cycles(graph.module_edges(imports, with_functions=False)) == []


def test_no_import_cycle_between_packages_even_through_imports_inside_functions(imports):
    assert graph.cycles(set(graph.package_edges(imports, with_functions=True))) == []


def test_no_import_cycle_even_through_imports_inside_functions(imports):
    assert graph.cycles(graph.module_edges(imports, with_functions=True)) == []


def test_every_import_inside_a_function_says_why():
    missing = []
    for path, line, comment in graph.all_function_imports(REPO):
        if not comment or comment.lower().startswith("cycle"):
            missing.append(f"{path}:{line}")
    assert missing == [], ("an import inside a function needs a reason on its line (# heavy: ..., "
                           "# optional extra: ...); run benchmarks/import_reasons.py: " + ", ".join(missing))


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    for relative, text in files.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return tmp_path


def test_the_rules_catch_a_program_importing_eval_even_inside_a_function(tmp_path):
    root = _tree(tmp_path, {
        "programs/__init__.py": "",
        "programs/judge.py": """
            def build():
                from tribunal.eval.mt.items import select_items  # heavy: reads data
                return select_items
            """,
        "eval/__init__.py": "",
        "eval/mt/__init__.py": "",
        "eval/mt/items.py": "def select_items():\n    return []\n",
    })
    upward = graph.upward_imports(graph.all_imports(root))
    assert [(i.source, i.target, i.in_function) for i in upward] == [
        ("tribunal.programs.judge", "tribunal.eval.mt.items", True)]


def test_the_rules_catch_a_cycle_and_an_import_without_a_reason(tmp_path):
    root = _tree(tmp_path, {
        "eval/__init__.py": "",
        "eval/a.py": "from tribunal.eval.b import y\nx = 1\n",
        "eval/b.py": "from tribunal.eval.a import x\ny = 2\n\n\ndef f():\n    import json\n    return json\n",
    })
    imports = graph.all_imports(root)
    assert graph.cycles(graph.module_edges(imports, with_functions=False)) == [["tribunal.eval.a", "tribunal.eval.b"]]
    assert [(path, line, comment) for path, line, comment in graph.all_function_imports(root)] == [
        ("eval/b.py", 6, "")]


def test_type_checking_imports_do_not_count(tmp_path):
    root = _tree(tmp_path, {
        "programs/__init__.py": "",
        "programs/judge.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                             "    from tribunal.eval.mt.items import JudgeItem\n",
        "eval/__init__.py": "",
        "eval/mt/__init__.py": "",
        "eval/mt/items.py": "JudgeItem = object\n",
    })
    assert graph.upward_imports(graph.all_imports(root)) == []
