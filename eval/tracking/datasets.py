"""The data a run used, as MLflow datasets: run inputs, and evaluation datasets for ``mlflow.genai``.

- :func:`log_input` links a data slice to a run (the run page's "Datasets used"): its name, our
  data hash as the digest, the folder or file it was read from as the source, a schema and row
  count from a small table of the slice, and a context (``evaluation``, ``training``, ``audit``).
- :func:`evaluation_dataset` stores labelled rows (``inputs`` + ``expectations``) as an MLflow
  GenAI evaluation dataset (the experiment's Datasets page), readable by ``mlflow.genai.evaluate``
  and ``mlflow.genai.datasets.get_dataset``. A dataset is named with its hash, so the same rows are
  stored once however many runs use them.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any, Mapping, Sequence

import pandas as pd
import time

from tribunal.eval.tracking.run_names import slug  # noqa: F401  (re-exported for dataset names)
from tribunal.secrets import redact

DIGEST_TAG = "tribunal.digest"


def _source(location: str | Path) -> Any:
    from mlflow.data.dataset_source_registry import resolve_dataset_source  # heavy: mlflow, scipy
    from mlflow.exceptions import MlflowException  # heavy: mlflow, scipy

    try:
        return resolve_dataset_source(str(location))
    except MlflowException:  # not a path or URI MLflow knows: name the origin in a code source
        from mlflow.data.code_dataset_source import CodeDatasetSource  # heavy: mlflow, scipy

        return CodeDatasetSource({"origin": str(location)})


def log_input(run: Any, name: str, digest: str, source: str | Path, table: pd.DataFrame,
              context: str = "evaluation", tags: Mapping[str, str] | None = None) -> None:
    """Link the data slice ``name`` (hash ``digest``) to ``run``; a no-op without tracking."""
    if getattr(run, "run_id", None) is None:
        return
    from mlflow.data.pandas_dataset import PandasDataset  # heavy: mlflow, scipy
    from mlflow.entities import DatasetInput, InputTag  # heavy: mlflow, scipy

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MLflow's hint about integer columns in the inferred schema
        dataset = PandasDataset(table, source=_source(source), name=name, digest=digest)._to_mlflow_entity()
    input_tags = [InputTag("mlflow.data.context", context)] + [InputTag(k, str(v)) for k, v in (tags or {}).items()]
    _racing(lambda: run.client.log_inputs(run.run_id, [DatasetInput(dataset, tags=input_tags)]))


def _racing(write: Any, attempts: int = 4) -> Any:
    """``write()``, tried again when another process created the same dataset at the same moment.

    The store creates a dataset on first use (unique per experiment, name and digest); two runs
    logging the same slice at once make the second insert fail. A moment later the dataset
    exists, and the same write links it.
    """
    from mlflow.exceptions import MlflowException  # heavy: mlflow, scipy

    for attempt in range(attempts):
        try:
            return write()
        except MlflowException as err:
            if "UNIQUE constraint" not in str(err) and "IntegrityError" not in str(err) or attempt == attempts - 1:
                raise
            time.sleep(0.2 * (attempt + 1))


def use_store(run: Any) -> None:
    """Point MLflow's module-level API (GenAI datasets, prompts, assessments) at ``run``'s store and experiment."""
    import mlflow  # heavy: mlflow, scipy

    mlflow.set_tracking_uri(run.client.tracking_uri)
    mlflow.set_experiment(experiment_id=run.experiment_id)


def evaluation_dataset(run: Any, name: str, digest: str, records: Sequence[Mapping[str, Any]],
                       tags: Mapping[str, str] | None = None) -> str | None:
    """The evaluation dataset ``name@digest`` holding ``records`` (created once); its id, or None untracked.

    Each record is ``{"inputs": {...}, "expectations": {...}}`` (MLflow's GenAI dataset format).
    """
    if getattr(run, "run_id", None) is None or not records:
        return None
    from mlflow.exceptions import MlflowException  # heavy: mlflow, scipy
    from mlflow.genai.datasets import create_dataset  # heavy: mlflow, scipy

    use_store(run)
    full_name = f"{name}@{digest}"
    found = run.client.search_datasets(experiment_ids=[run.experiment_id], filter_string=f"name = '{full_name}'",
                                       max_results=1)
    if found:
        return found[0].dataset_id
    try:
        dataset = create_dataset(name=full_name, experiment_id=run.experiment_id,
                                 tags={DIGEST_TAG: digest, **{k: str(v) for k, v in (tags or {}).items()}})
    except MlflowException:  # another process created it at the same moment: use theirs
        found = run.client.search_datasets(experiment_ids=[run.experiment_id],
                                           filter_string=f"name = '{full_name}'", max_results=1)
        if not found:
            raise
        return found[0].dataset_id
    dataset.merge_records([redact(dict(r)) for r in records])
    return dataset.dataset_id


def wmt23_slice_table(items: Any, pair: Any) -> pd.DataFrame:
    """One row per judged cell of an MT run: system, segment, source, translation, human MQM."""
    gold = pair.gold_seg
    rows = []
    for cell in items.cells:
        item = items.items[cell.key]
        human = gold.get(cell.system, [float("nan")] * pair.n_segments)[cell.segment]
        rows.append({"system": cell.system, "segment": float(cell.segment), "source": item.source,
                     "translation": item.translation, "human_mqm": float(human)})
    return pd.DataFrame(rows, columns=["system", "segment", "source", "translation", "human_mqm"])


def pairs_table(pairs: Mapping[str, Any]) -> pd.DataFrame:
    """One row per language pair of a meta-evaluation: segments, systems, rated cells."""
    rows = []
    for lp, pair in sorted(pairs.items()):
        gold = pair.gold_seg
        rated = sum(int((~pd.isna(pd.Series(values))).sum()) for values in gold.values())
        rows.append({"lp": lp, "segments": float(pair.n_segments), "systems": float(len(pair.system_names)),
                     "rated_cells": float(rated)})
    return pd.DataFrame(rows, columns=["lp", "segments", "systems", "rated_cells"])


def mt_records(items: Any, pair: Any, languages: Mapping[str, str]) -> list[dict[str, Any]]:
    """The rated cells of an MT slice as evaluation records: inputs, translation, human MQM expectation."""
    table = wmt23_slice_table(items, pair)
    return [{"inputs": {"source": row.source, "translation": row.translation, **languages,
                        "system": row.system, "segment": int(row.segment)},
             "expectations": {"human_mqm": float(row.human_mqm)}}
            for row in table.itertuples() if pd.notna(row.human_mqm)]
