"""``summary.json``: a run's :class:`~tribunal.core.run_summary.RunSummary`, written atomically, read back typed."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from tribunal.core.run_summary import SUMMARY_FILE, RunSummary
from tribunal.eval.data.atomic import write_text_atomically
from tribunal.eval.data.errors import DataFormatError


def summary_path(folder: str | Path) -> Path:
    """Where a run writes its summary in its output folder."""
    return Path(folder) / SUMMARY_FILE


def write_run_summary(path: str | Path, summary: RunSummary) -> Path:
    """Write ``summary`` as strict, indented JSON (a crash leaves the old file or the new one)."""
    text = json.dumps(summary.model_dump(mode="json"), indent=2, ensure_ascii=False, allow_nan=False)
    return write_text_atomically(path, text + "\n")


def read_run_summary(path: str | Path) -> RunSummary:
    """The :class:`RunSummary` of a ``summary.json`` (or of the output folder holding one).

    A file that is not a run summary raises :class:`~tribunal.eval.data.errors.DataFormatError`
    naming the file.
    """
    path = Path(path)
    if path.is_dir():
        path = summary_path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as err:
        raise DataFormatError(path, None, f"not JSON ({err})") from None
    try:
        return RunSummary.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(map(str, first["loc"]))
        raise DataFormatError(path, None, f"not a run summary ({where}: {first['msg']})") from None
