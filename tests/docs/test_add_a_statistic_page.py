"""``docs/guides/add-a-statistic.md`` says what is true: its example runs and prints what it shows, its
files are the ones a statistic touches, its declaration is the one the toy-statistic test makes,
and the readers it lists name no statistic."""

from __future__ import annotations

import ast
import os
import re
import sys
from pathlib import Path

import pytest

from tests.docs.blocks import missing_output_lines, read_blocks, run_block

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "guides" / "add-a-statistic.md"
TOY_TEST = ROOT / "tests" / "eval" / "meta" / "test_add_a_statistic.py"


def listed_files(marker: str) -> list[str]:
    """The backticked paths of the bullet list after ``<!-- marker -->``."""
    lines = PAGE.read_text(encoding="utf-8").splitlines()
    start = lines.index(f"<!-- {marker} -->") + 1
    items = []
    for line in lines[start:]:
        if not line.startswith("- "):
            break
        items.append(re.match(r"- `([^`]+)`", line).group(1))
    return items


def test_the_page_is_in_the_nav():
    assert "guides/add-a-statistic.md" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


def test_the_file_to_touch_is_where_the_shipped_statistics_are_declared():
    from tribunal.eval.meta.statistics import STATISTICS

    touched = listed_files("files-touched")
    assert touched == ["eval/meta/correlation.py"]
    declared = {Path(sys.modules[s.function.__module__].__file__).resolve() for s in STATISTICS.values()}
    assert (ROOT / touched[0]).resolve() in declared
    for path in listed_files("files-only-when"):
        assert (ROOT / path).is_file(), path
    defining = {Path(p).stem for p in declared}  # every module that declares one is imported by statistics.py
    imports = (ROOT / "eval" / "meta" / "statistics.py").read_text(encoding="utf-8")
    assert all(re.search(rf"import .*\b{m}\b", imports) for m in defining - {"statistic"}), defining


def _declaration(source: str) -> tuple[str, str]:
    """The ``statistic(...)`` call (its arguments) and the ``spearman`` function body of a source text."""
    tree = ast.parse(source)
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "statistic")
    function = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "spearman")
    arguments = ast.dump(ast.Tuple([*call.args, *(k.value for k in call.keywords)], ast.Load()))
    names = [k.arg for k in call.keywords]
    return f"{arguments}{names}", ast.dump(ast.Module(function.body, []))


def test_the_page_declares_what_the_toy_statistic_test_registers():
    page = next(b for b in read_blocks(PAGE) if b.language == "python" and "@statistic(" in b.code)
    assert _declaration(page.code) == _declaration(TOY_TEST.read_text(encoding="utf-8"))


def _named_keys(path: Path, keys: set[str]) -> list[str]:
    """String constants of ``path`` (docstrings aside) that are a statistic's key or metric key."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in docstrings and (n.value in keys or n.value.removeprefix("meta.") in keys)]


def test_the_readers_name_no_statistic():
    from tribunal.eval.meta.statistics import STATISTICS

    readers = [p for item in PAGE.read_text(encoding="utf-8").split("<!-- readers -->")[1].strip().split("\n\n")[0].splitlines()
               for p in re.findall(r"`([\w/]+\.py)`", item)]
    assert len(readers) == 12, readers
    for path in readers:
        assert not _named_keys(ROOT / path, set(STATISTICS)), path


def test_the_example_prints_what_the_page_shows(tmp_path):
    if not os.environ.get("TRIBUNAL_DATA"):
        pytest.skip("TRIBUNAL_DATA is not set (the example runs on the shipped data)")
    blocks = read_blocks(PAGE)
    runs = [b for b in blocks if b.mark == "run"]
    shown = next(b for b in blocks if b.mark == "output")
    assert len(runs) == 2 and all(b.language == "python" for b in runs)
    script = runs[0].__class__(PAGE, runs[0].line, "run", "", "python", "\n\n".join(b.code for b in runs))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    result = run_block(script, tmp_path, env)
    assert result.returncode == 0, result.stderr
    assert not missing_output_lines(shown.code, result.stdout), result.stdout
