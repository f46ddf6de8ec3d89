"""Log a tuned program as an MLflow model and register it as a version of ``tribunal-<program>``.

The model is MLflow's models-from-code: the file :mod:`tribunal.optimizers.judge_model_code` plus
the sealed export as the artifact ``program`` (see :mod:`tribunal.optimizers.judge_model`). It is a
logged model of the optimize run (the run's Models tab; ``models:/<model id>``) and a new version of
the registered model, whose tags keep the export's seal (``sha256``, by which ``mt evaluate`` names
a tuned run ``... v3``), its format and dev score. Its requirements are pinned to the versions that
logged it; tribunal itself must be installed where it is loaded (``mlflow models serve
--env-manager local`` in tribunal's environment).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any, Mapping
import logging
import warnings

from tribunal.secrets import redact

LOGGED_MODEL_NAME = "tuned-judge"


@dataclass(frozen=True)
class LoggedJudge:
    model_id: str
    registered_name: str
    version: str

    @property
    def uri(self) -> str:
        """``models:/tribunal-gemba-mqm/3``."""
        return f"models:/{self.registered_name}/{self.version}"


def requirements() -> list[str]:
    """The packages the model needs, pinned to this environment's versions."""
    pinned = []
    for package in ("tribunal", "mlflow", "dspy", "pydantic"):
        try:
            pinned.append(f"{package}=={importlib_metadata.version(package)}")
        except importlib_metadata.PackageNotFoundError:
            pinned.append(package)
    return pinned


def code_file() -> Path:
    """The models-from-code file shipped in the package."""
    from tribunal.optimizers import judge_model  # heavy: pulls in mlflow, pandas

    return Path(judge_model.__file__).with_name("judge_model_code.py")


def log_judge_model(run: Any, export_path: str | Path, document: Mapping[str, Any], kind: str,
                    tags: Mapping[str, Any]) -> LoggedJudge | None:
    """Log ``export_path`` (a sealed export) as the run's model and register it; None without tracking."""
    if getattr(run, "run_id", None) is None:
        return None

    import mlflow  # heavy: mlflow, pandas
    from mlflow.models import Model  # heavy: mlflow, pandas

    from tribunal.eval.tracking.datasets import use_store  # heavy: pulls in pandas, pyarrow
    from tribunal.optimizers.judge_model import PROGRAM_ARTIFACT, judge_signature  # heavy: pulls in mlflow, pandas

    use_store(run)  # MLflow's model logging writes through its module-level store
    name = f"tribunal-{document['program']['name']}"
    for noisy in ("mlflow.models.model", "mlflow.pyfunc", "mlflow.tracking._model_registry"):
        logging.getLogger(noisy).setLevel(logging.ERROR)
    version_tags = {str(k): str(v) for k, v in redact(dict(tags)).items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MLflow's advice to add an input example (validating one would call the LM)
        info = Model.log(artifact_path=None, name=LOGGED_MODEL_NAME, flavor=mlflow.pyfunc, run_id=run.run_id,
                         python_model=str(code_file()), artifacts={PROGRAM_ARTIFACT: str(export_path)},
                         signature=judge_signature(kind), pip_requirements=requirements(),
                         metadata={"tribunal.program": document["program"]["name"], "tribunal.kind": kind,
                                   "tribunal.sha256": document["sha256"]},
                         tags={"tribunal.sha256": document["sha256"]})
    from mlflow.exceptions import MlflowException  # heavy: mlflow, pandas

    try:
        run.client.create_registered_model(name)
    except MlflowException:  # it exists (or another worker created it a moment ago)
        pass
    version = run.client.create_model_version(name, source=f"models:/{info.model_id}", run_id=run.run_id,
                                              tags=version_tags, model_id=info.model_id)
    return LoggedJudge(info.model_id, name, str(version.version))
