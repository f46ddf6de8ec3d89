"""What a sampled-ensemble run reports: the spread of each item's K scores and the run's totals.

``samples.tsv`` (one row per judged item: the combined score, the rule, std / min / max, which
samples were kept, dropped and chosen for the spans, then the K scores) sits beside
``errors.jsonl``; the totals go to the summary and to MLflow as ``samples.*``. Both are derived from
the journal (:class:`~tribunal.core.item_result.ItemResult.ensemble`), so they can be rebuilt
without an LM.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from tribunal.data.atomic import write_text_atomically


def sampling_summary(sampling: Any, results: dict[str, Any]) -> dict[str, Any]:
    """Samples per item, the rule, samples dropped, and the mean and largest per-item spread."""
    records = [r.ensemble.model_dump() for r in results.values() if r.ensemble is not None]
    stds = [record["std"] for record in records]
    unscored = sum(r.status == "unscored" and (r.reason or "").startswith("too few usable samples")
                   for r in results.values())
    return {"k": sampling.samples, "rule": sampling.combine, "items": len(records),
            "dropped": sum(len(record["dropped"]) for record in records),
            "items_with_dropped": sum(bool(record["dropped"]) for record in records),
            "items_too_few": unscored,
            "mean_std": statistics.fmean(stds) if stds else None, "max_std": max(stds) if stds else None}


def _number(value: Any) -> str:
    return "" if value is None else repr(float(value))


def write_samples_table(path: Path, items: Any, results: dict[str, Any]) -> Path:
    """``samples.tsv``: one row per judged item of ``items`` with an ensemble record."""
    cells: dict[str, list[str]] = {}
    for cell in items.cells:
        cells.setdefault(cell.key, []).append(f"{cell.system}:{cell.segment}")
    rows = []
    width = 0
    for key in items.items:
        result = results.get(key)
        if result is None or result.ensemble is None:
            continue
        record = result.ensemble.model_dump()
        width = max(width, len(record["scores"]))
        rows.append([key, " ".join(cells.get(key, [])), _number(record["score"]), record["rule"],
                     _number(record["std"]), _number(record["min"]), _number(record["max"]),
                     ",".join(map(str, record["kept"])), ",".join(map(str, record["dropped"])), str(record["chosen"]),
                     *map(_number, record["scores"])])
    header = ["key", "cells", "score", "rule", "std", "min", "max", "kept", "dropped", "chosen",
              *[f"sample_{k}" for k in range(1, width + 1)]]
    write_text_atomically(path, "".join("\t".join(row) + "\n" for row in [header, *rows]))
    return path
