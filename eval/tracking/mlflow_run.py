"""MLflow tracking through one small interface: a run logger, or a no-op one with ``--no-track``.

Uses ``MlflowClient`` with explicit run ids (no global fluent state), so nested runs and worker
threads are safe. Everything logged passes through :mod:`secrets` redaction first, and every key
and run name through :mod:`names` (MLflow refuses a metric named after a reason with parentheses).
A store that cannot be used (an unknown URI scheme, a read-only database) is one
:class:`EnvironmentFailure` line naming the store. A run ended by Ctrl-C is KILLED, by an error FAILED.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import re
import time
from pathlib import Path
from typing import Any, Iterator, Mapping

from pydantic import BaseModel, ConfigDict

from tribunal.errors import EnvironmentFailure
from tribunal.eval.tracking.names import entity_key, run_name
from tribunal.secrets import redact, redact_text
from tribunal.errors import Interrupted
from tribunal.data.output_paths import writable_file
from tribunal.eval.tracking.run_names import describe_run

DEFAULT_TRACKING_URI = "sqlite:///mlflow.db"
_PARAM_LIMIT = 6000


class TrackingSettings(BaseModel):
    """Where runs go. ``uri=None`` means a SQLite store in the working directory."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    uri: str | None = None
    experiment: str = "tribunal"

    @property
    def resolved_uri(self) -> str:
        return self.uri or DEFAULT_TRACKING_URI

    def ui_command(self) -> str:
        """The command that shows these runs in the MLflow UI (a server's runs: its address).

        ``LITELLM_LOCAL_MODEL_COST_MAP=True``: MLflow's UI imports LiteLLM, which otherwise spends
        16-18 s fetching a price list before the UI starts (offline, it never arrives).
        """
        uri = self.resolved_uri
        if uri.startswith(("http://", "https://")):
            return f"open {uri} in a browser"
        return f"LITELLM_LOCAL_MODEL_COST_MAP=True mlflow ui --backend-store-uri {uri}"


class NullRun:
    """Stands in for a run when tracking is off; every call is a no-op."""

    run_id: str | None = None

    def log_params(self, params: Mapping[str, Any]) -> None: ...
    def set_tags(self, tags: Mapping[str, Any]) -> None: ...
    def log_metrics(self, metrics: Mapping[str, float | None], step: int | None = None) -> None: ...
    def log_table(self, table: Any, artifact_file: str) -> None: ...
    def log_text(self, text: str, artifact_file: str) -> None: ...
    def log_artifact(self, path: str | Path, artifact_path: str | None = None) -> None: ...
    def log_figure(self, figure: Any, artifact_file: str) -> None: ...

    @contextlib.contextmanager
    def child(self, name: str, params: Mapping[str, Any] | None = None,
              started: float | None = None) -> Iterator["NullRun"]:
        yield self


class Run(NullRun):
    """One MLflow run addressed by id."""

    def __init__(self, client: Any, run_id: str, experiment_id: str):
        self.client, self.run_id, self.experiment_id = client, run_id, experiment_id

    def log_params(self, params: Mapping[str, Any]) -> None:
        from mlflow.entities import Param  # heavy: mlflow, pandas

        unique = {entity_key(k): str(v)[:_PARAM_LIMIT] for k, v in redact(dict(params)).items() if v is not None}
        items = [Param(k, v) for k, v in unique.items()]
        for start in range(0, len(items), 100):
            self.client.log_batch(self.run_id, params=items[start:start + 100])

    def set_tags(self, tags: Mapping[str, Any]) -> None:
        from mlflow.entities import RunTag  # heavy: mlflow, pandas

        unique = {entity_key(k): str(v) for k, v in redact(dict(tags)).items()}
        self.client.log_batch(self.run_id, tags=[RunTag(k, v) for k, v in unique.items()])

    def log_metrics(self, metrics: Mapping[str, float | None], step: int | None = None) -> None:
        from mlflow.entities import Metric  # heavy: mlflow, pandas

        now = int(time.time() * 1000)
        unique = {entity_key(k): float(v) for k, v in metrics.items() if v is not None and not math.isnan(float(v))}
        items = [Metric(k, v, now, step or 0) for k, v in unique.items()]
        for start in range(0, len(items), 1000):
            self.client.log_batch(self.run_id, metrics=items[start:start + 1000])

    def log_table(self, table: Any, artifact_file: str) -> None:
        self.client.log_table(self.run_id, data=table, artifact_file=artifact_file)

    def log_text(self, text: str, artifact_file: str) -> None:
        self.client.log_text(self.run_id, redact_text(text), artifact_file)

    def log_artifact(self, path: str | Path, artifact_path: str | None = None) -> None:
        self.client.log_artifact(self.run_id, str(path), artifact_path)

    def log_figure(self, figure: Any, artifact_file: str) -> None:
        self.client.log_figure(self.run_id, figure, artifact_file)

    @contextlib.contextmanager
    def child(self, name: str, params: Mapping[str, Any] | None = None,
              started: float | None = None) -> Iterator["Run"]:
        """A nested run under this one (sweeps: one child per configuration); ``started``: see tracked_run."""
        with _open_run(self.client, self.experiment_id, name, params, parent=self.run_id, started=started) as run:
            yield run


@contextlib.contextmanager
def _open_run(client: Any, experiment_id: str, name: str, params: Mapping[str, Any] | None,
              parent: str | None = None, tags: Mapping[str, Any] | None = None,
              started: float | None = None) -> Iterator[Run]:
    run_tags = {entity_key(k): v for k, v in redact(dict(tags or {})).items()}
    if parent:
        run_tags["mlflow.parentRunId"] = parent
    created = client.create_run(experiment_id, run_name=run_name(name), tags=run_tags,
                                start_time=int(started * 1000) if started else None)
    run = Run(client, created.info.run_id, experiment_id)
    if params:
        run.log_params(params)
    try:
        yield run
    except BaseException as err:
        stopped = isinstance(err, (KeyboardInterrupt, Interrupted))
        client.set_terminated(run.run_id, "KILLED" if stopped else "FAILED")
        raise
    client.set_terminated(run.run_id, "FINISHED")


def store_problem(err: BaseException) -> str:
    """One line for what went wrong with a tracking store (MLflow and SQLAlchemy errors run long)."""
    text = getattr(err, "message", None) or str(err)
    if "unsupported URI" in text:
        return "unsupported URI scheme (use sqlite:///FILE.db, http(s)://SERVER or a database URL)"
    for line in text.splitlines():
        # SQLAlchemy's own line, e.g. "(sqlite3.OperationalError) attempt to write a readonly database"
        found = re.match(r"\s*\([\w.]+\) (.+)", line)
        if found:
            return found.group(1).strip()
    first = next((line.strip() for line in text.splitlines() if line.strip()), type(err).__name__)
    return first.split(" See https://")[0]


def _is_store_error(err: BaseException) -> bool:
    names = {f"{kind.__module__}.{kind.__qualname__}" for kind in type(err).__mro__}
    return bool(names & {"mlflow.exceptions.MlflowException", "sqlalchemy.exc.SQLAlchemyError"})


@contextlib.contextmanager
def store_errors(uri: str) -> Iterator[None]:
    """Turn an MLflow or SQLAlchemy failure in the block into one line naming the store."""
    try:
        yield
    except Exception as err:
        if not _is_store_error(err):
            raise
        raise EnvironmentFailure(f"MLflow tracking store {uri}: {store_problem(err)} "
                                 "(--tracking-uri names another store; --no-track skips tracking)") from None


def check_store(settings: TrackingSettings) -> None:
    """Fail early, before any LM work, on a store that cannot take a run.

    A SQLite store is checked by writing beside its database (opening it would create it); any
    other URI by building its client, which rejects an unknown scheme.
    """
    if not settings.enabled:
        return
    uri = settings.resolved_uri
    if uri.startswith("sqlite:///"):
        database = Path(uri[len("sqlite:///"):])
        writable_file(database, "--tracking-uri")
        if database.is_file() and not os.access(database, os.W_OK):
            raise EnvironmentFailure(f"--tracking-uri {uri}: the database is read-only")
        return
    mlflow_client(settings)


def mlflow_client(settings: TrackingSettings) -> Any:
    """An MlflowClient for the settings' store (imported lazily: mlflow is slow to import)."""
    for noisy in ("alembic", "mlflow.store.db.utils", "mlflow.tracking", "mlflow.store"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    # It logs a database error with its traceback before raising it; the raised error is reported, once.
    logging.getLogger("mlflow.store.db.utils").setLevel(logging.CRITICAL)
    from mlflow.tracking import MlflowClient  # heavy: mlflow, pandas

    with store_errors(settings.resolved_uri):
        return MlflowClient(tracking_uri=settings.resolved_uri)


def artifact_root(uri: str) -> str | None:
    """For a SQLite store, artifacts go beside the database (``mlartifacts/``), not into the cwd."""
    if not uri.startswith("sqlite:///"):
        return None
    database = Path(uri[len("sqlite:///"):]).resolve()
    return (database.parent / "mlartifacts").as_uri()


def experiment_id(client: Any, name: str) -> str:
    """The id of experiment ``name``, created on first use."""
    found = client.get_experiment_by_name(name)
    if found:
        return found.experiment_id
    from mlflow.exceptions import MlflowException  # heavy: mlflow, pandas

    root = artifact_root(client.tracking_uri)
    try:
        return client.create_experiment(name, artifact_location=f"{root}/{name}" if root else None)
    except MlflowException:  # another process created it a moment ago (a shared server)
        found = client.get_experiment_by_name(name)
        if found is None:
            raise
        return found.experiment_id


@contextlib.contextmanager
def tracked_run(
    settings: TrackingSettings,
    name: str,
    params: Mapping[str, Any] | None = None,
    tags: Mapping[str, Any] | None = None,
    signature: str | None = None,
    started: float | None = None,
) -> Iterator[NullRun]:
    """Open a top-level run (or a no-op one when tracking is disabled).

    ``started`` (epoch seconds): when the work began, for jobs that can only name their run after
    some of it (the run's duration then covers the whole job).
    """
    if not settings.enabled:
        yield NullRun()
        return
    client = mlflow_client(settings)
    run_tags = dict(tags or {})
    if signature:
        run_tags["tribunal.signature"] = signature
    with store_errors(settings.resolved_uri):
        with _open_run(client, experiment_id(client, settings.experiment), name, params, tags=run_tags,
                       started=started) as run:
            yield run
            if signature:  # the run page's description: key metrics first, then the signature

                describe_run(client, run.run_id)
