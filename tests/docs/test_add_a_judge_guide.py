"""``docs/guides/add-a-judge.md`` lists the files one touches to add a judge with one setting: exactly the
pieces the item-7 test's added judge (``tests/support/strict_judge.py``) needed, its program and settings
model in one program file and one registry entry, and nothing in the generic layers."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import dspy

from tests.support import strict_judge
from tribunal.core.judge_settings import JudgeSettings
from tribunal.core.judges import Judge, load

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "guides" / "add-a-judge.md"
GENERIC = ("eval/", "optimizers/", "tribunal/cli/", "tribunal/runner/", "tribunal/scorers.py")


def listed_files() -> list[str]:
    """The paths of the page's list between its ``files-to-touch`` markers."""
    text = PAGE.read_text(encoding="utf-8")
    block = text.split("<!-- files-to-touch -->", 1)[1].split("<!-- /files-to-touch -->", 1)[0]
    return re.findall(r"^- `([^`]+)`", block, re.MULTILINE)


def test_the_page_lists_a_program_file_and_the_registry():
    files = listed_files()
    assert len(files) == 2 and files[1] == "tribunal/core/judges.py", files
    assert re.fullmatch(r"programs/mqm/\w+\.py", files[0]) and (ROOT / files[0]).parent.is_dir()
    assert (ROOT / files[1]).is_file()
    assert not any(f.startswith(GENERIC) for f in files)
    assert "guides/add-a-judge.md" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


def test_the_added_judge_of_the_tests_is_one_program_file_and_one_entry():
    """What the item-7 test wrote: a settings model and a program (the listed program file) and a registry
    entry (the listed ``tribunal/core/judges.py``), nothing else."""
    entry = strict_judge.STRICT
    assert isinstance(entry, Judge) and entry.settings is not None
    builder, model = load(entry.builder), load(entry.settings.model)
    assert issubclass(builder, dspy.Module) and issubclass(model, JudgeSettings)
    assert {inspect.getmodule(builder), inspect.getmodule(model)} == {strict_judge}
    tree = ast.parse(Path(strict_judge.__file__).read_text(encoding="utf-8"))
    classes = [node.name for node in tree.body if isinstance(node, ast.ClassDef)]
    assert classes == [model.__name__, builder.__name__]  # the program file's content
    entries = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Judge"]
    assert len(entries) == 1  # the registry entry


def test_no_generic_layer_names_the_added_judge():
    for folder in ("eval", "optimizers", "tribunal/cli", "tribunal/runner"):
        for path in (ROOT / folder).rglob("*.py"):
            assert "strict_judge" not in path.read_text(encoding="utf-8"), path
    assert "strict_judge" not in (ROOT / "tribunal" / "scorers.py").read_text(encoding="utf-8")
