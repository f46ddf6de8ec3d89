"""Make ``tests.optimizers.toy_task`` importable and register the toy program once.

pytest's importlib mode does not put the repository on sys.path; the CLI's test-engine hook
(``use_engine(monkeypatch, "tests.optimizers.toy_task:engine")``) needs it there too.
"""

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


@pytest.fixture(autouse=True, scope="session")
def _toy_program():
    from tests.optimizers.toy_task import ToyJudge
    from tribunal.programs.registry import register_program

    register_program("test-toy-equiv", ToyJudge)


@pytest.fixture(autouse=True)
def _no_dspy_cache():
    """No disk or memory cache (its key ignores custom engines); the previous cache is restored after."""
    from tests.support.dspy_cache import dspy_cache_off

    with dspy_cache_off():
        yield


@pytest.fixture
def mlflow_uri(tmp_path, empty_sqlite_store):
    """A fresh store in this test's folder (a copy of the empty template); artifacts go beside it."""
    import shutil

    shutil.copyfile(empty_sqlite_store, tmp_path / "mlflow.db")
    return f"sqlite:///{tmp_path / 'mlflow.db'}"


@pytest.fixture(scope="session")
def ted_en_de() -> str:
    """The spec of the TED MQM en-de annotations; skipped where the data is absent (set TRIBUNAL_DATA)."""
    import os

    from tribunal.errors import UserError
    from tribunal.optimizers.training_data import load_training_data

    try:
        load_training_data("mqm-ted:en-de:0-1")
    except UserError as err:
        if os.environ.get("CI"):
            pytest.fail(str(err))
        pytest.skip(str(err))
    return "mqm-ted:en-de"
