"""The run directory of ``tribunal hyp run``: its manifest, one file per run
(``runs/<instance>/<run_id>.json``, written atomically) and its rollout nonce."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from pydantic import ValidationError

from tribunal.core.hyp_records import RunRecord
from tribunal.data.atomic import write_text_atomically
from tribunal.data.errors import DataFormatError

MANIFEST = "manifest.json"


def run_id_for(depth: int, rerun: int) -> str:
    """The id of the ``rerun``-th run at critique depth ``depth``."""
    return f"d{depth}-r{rerun}"


def run_path(out: Path, instance: str, run_id: str) -> Path:
    """Where run ``run_id`` of ``instance`` is stored in the run directory ``out``."""
    return out / "runs" / instance / f"{run_id}.json"


def read_record(path: Path) -> RunRecord:
    """One stored run; a :class:`DataFormatError` naming the file when it cannot be read."""
    try:
        return RunRecord.model_validate_json(path.read_text(encoding="utf-8"))
    except (ValidationError, UnicodeDecodeError) as err:
        detail = err.errors()[0]["msg"] if isinstance(err, ValidationError) else str(err)
        raise DataFormatError(path, None, f"not a stored run ({detail})") from None


def load_runs(run_dir: Path) -> list[RunRecord]:
    """Every stored run under ``run_dir/runs`` (and its instance folders), sorted by instance, depth, rerun."""
    files = sorted((run_dir / "runs").glob("*.json")) + sorted((run_dir / "runs").glob("*/*.json"))
    return sorted((read_record(f) for f in files), key=lambda r: (r.instance, r.depth, r.rerun))


def rollout_nonce(out: Path) -> str:
    """The run directory's rollout nonce: the stored one on resume, a fresh one otherwise."""
    manifest = out / MANIFEST
    if manifest.is_file():
        stored = json.loads(manifest.read_text(encoding="utf-8")).get("rollout_nonce")
        if stored:
            return stored
    return uuid.uuid4().hex


def store_record(out: Path, record: RunRecord) -> None:
    """Store one run (atomic: a run killed mid-write leaves no torn record for the resume to trip over)."""
    write_text_atomically(run_path(out, record.instance, record.run_id), record.model_dump_json(indent=2))
