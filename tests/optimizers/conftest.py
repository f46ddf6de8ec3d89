"""Make ``tests.optimizers.toy_task`` importable and register the toy program once.

pytest's importlib mode does not put the repository on sys.path; the CLI's test-engine hook
(``TRIBUNAL_TEST_ENGINE=tests.optimizers.toy_task:engine``) needs it there too.
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
    import dspy

    saved = dspy.cache
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    yield
    with dspy._cache_lock:
        dspy.cache = saved


@pytest.fixture(scope="session")
def _empty_store(tmp_path_factory):
    """An MLflow SQLite store with its schema created once (creating it costs seconds)."""
    from mlflow.tracking import MlflowClient

    path = tmp_path_factory.mktemp("store-template") / "mlflow.db"
    MlflowClient(tracking_uri=f"sqlite:///{path}").search_experiments()
    return path


@pytest.fixture
def mlflow_uri(tmp_path, _empty_store):
    """A fresh store in this test's folder (a copy of the empty template); artifacts go beside it."""
    import shutil

    shutil.copyfile(_empty_store, tmp_path / "mlflow.db")
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
