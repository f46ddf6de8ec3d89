"""``summary.json``: a run's :class:`~tribunal.core.run_summary.RunSummary`, written atomically.

It is read back, typed, by :func:`tribunal.read_run_summary` (:func:`tribunal.core.run_summary.read_run_summary`).
"""

from __future__ import annotations

import json
from pathlib import Path

from tribunal.core.run_summary import SUMMARY_FILE, RunSummary
from tribunal.data.atomic import write_text_atomically


def summary_path(folder: str | Path) -> Path:
    """Where a run writes its summary in its output folder."""
    return Path(folder) / SUMMARY_FILE


def write_run_summary(path: str | Path, summary: RunSummary) -> Path:
    """Write ``summary`` as strict, indented JSON (a crash leaves the old file or the new one)."""
    text = json.dumps(summary.model_dump(mode="json"), indent=2, ensure_ascii=False, allow_nan=False)
    return write_text_atomically(path, text + "\n")
