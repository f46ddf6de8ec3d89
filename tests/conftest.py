"""Shared fixtures: the real WMT23 data (from $TRIBUNAL_DATA) and a tiny synthetic MTME folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def pytest_configure(config):
    """Make ``TRIBUNAL_DATA`` absolute: tests run commands from other working directories.

    DSPy's response cache goes to a folder of this session's own: the machine's shared
    ``~/.dspy_cache`` would answer a test from another run's (or another test's) requests. So does
    tribunal's parsed-data cache of score files (``$TRIBUNAL_CACHE``).
    """
    import tempfile

    if os.environ.get("TRIBUNAL_DATA"):
        os.environ["TRIBUNAL_DATA"] = str(Path(os.environ["TRIBUNAL_DATA"]).resolve())
    os.environ["DSPY_CACHEDIR"] = tempfile.mkdtemp(prefix="tribunal-tests-dspy-cache-")
    os.environ["TRIBUNAL_CACHE"] = tempfile.mkdtemp(prefix="tribunal-tests-cache-")  # never the user's parsed-data cache
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture(autouse=True)
def _signal_handlers_restored():
    """Whatever a test (or a library it starts) does to the SIGINT/SIGTERM handlers ends with it.

    pyspark's SparkContext, for one, installs a SIGINT handler that calls the stopped context; a later
    test that sends a Ctrl-C would meet it instead of Python's.
    """
    import signal

    saved = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    yield
    for number, handler in saved.items():
        if signal.getsignal(number) is not handler and handler is not None:
            signal.signal(number, handler)


def shared_data() -> Path:
    return Path(os.environ.get("TRIBUNAL_DATA", REPO.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def empty_sqlite_store(tmp_path_factory) -> Path:
    """An MLflow SQLite store with its schema created once per session (creating one costs seconds);
    tests copy it to get a fresh store of their own."""
    from mlflow.tracking import MlflowClient

    path = tmp_path_factory.mktemp("store-template") / "mlflow.db"
    MlflowClient(tracking_uri=f"sqlite:///{path}").search_experiments()
    return path


@pytest.fixture
def mlflow_store(tmp_path, empty_sqlite_store):
    """``sqlite:///...`` of a fresh store in this test's folder (a copy of the empty template)."""
    import shutil

    store = tmp_path / "store"
    store.mkdir()
    shutil.copyfile(empty_sqlite_store, store / "mlflow.db")
    return f"sqlite:///{store / 'mlflow.db'}"


@pytest.fixture(scope="session")
def wmt23_root() -> Path:
    root = shared_data() / "wmt23"
    if not (root / "sources").is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"WMT23 data not found at {root}; set TRIBUNAL_DATA")
        pytest.skip(f"WMT23 data not found at {root}; set TRIBUNAL_DATA")
    return root


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def tiny_mtme(tmp_path: Path) -> Path:
    """3 segments, systems A, B, C (+ refA as the standard reference), one metric M-refA."""
    root = tmp_path / "tiny"
    write(root / "sources" / "en-de.txt", "s1\ns2\ns3\n")
    write(root / "references" / "en-de.refA.txt", "r1\nr2\nr3\n")
    for system in ("A", "B", "C", "refA"):
        write(root / "system-outputs" / "en-de" / f"{system}.txt", f"{system}1\n{system}2\n{system}3\n")
    write(root / "documents" / "en-de.docs", "news\td1\nnews\td1\nnews\td2\n")
    gold = {"A": [-1, -5, None], "B": [0, -2, -1], "C": [-3, -1, 0], "refA": [0, 0, 0]}
    write(root / "human-scores" / "en-de.mqm.seg.score",
          "".join(f"{s}\t{v}\n" for s, vals in gold.items() for v in vals))
    write(root / "human-scores" / "en-de.mqm.sys.score", "A\t-3.0\nB\t-1.0\nC\t-1.3333\nrefA\t0\n")
    metric = {"A": [0.2, 0.1, 0.5], "B": [0.9, 0.4, 0.6], "C": [0.1, 0.8, 0.7]}
    write(root / "metric-scores" / "en-de" / "M-refA.seg.score",
          "".join(f"{s}\t{v}\n" for s, vals in metric.items() for v in vals))
    write(root / "metric-scores" / "en-de" / "M-refA.sys.score", "A\t0.27\nB\t0.63\nC\t0.53\n")
    return root


@pytest.fixture
def scripted():
    """The scripted-LM helpers: ``scripted.scripted_lm(respond)``, ``scripted.field(user, name)``."""
    from tests.support import scripted_lm

    return scripted_lm
