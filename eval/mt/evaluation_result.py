"""What an MT run gives back: its summary, meta-evaluation, span figures, signature and the files it wrote."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class EvaluationResult:
    summary: dict[str, Any]
    meta: dict[str, float]
    spans: dict[str, float]
    signature: str
    paths: dict[str, Path]
    run_id: str | None = None
    results: dict = field(default_factory=dict)
    scores: tuple = ((), ())  # (judge, human) MQM of the covered rated cells
    debates: dict = field(default_factory=dict)  # per-round debate statistics
    ceiling: Any = None  # agreement with several raters on the judged cells (eval.mt.ceiling), when the data has them
    run_summary: Any = None  # the typed summary (tribunal.core.run_summary.RunSummary), as summary.json holds it
    page_error: str | None = None  # why report.html could not be written (e.g. a full disk), when it was not
