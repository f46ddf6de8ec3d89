"""Files an MT run writes, all derived from the journal (so they can be rebuilt without an LM).

``metric-scores/LP/NAME-src.{seg,sys}.score`` (MTME: ``tribunal mt meta-eval`` reads them),
``errors.jsonl`` (one line per cell, spans with character offsets where found in the
translation) and ``transcripts.jsonl`` (one line per judged item; an unscored item's transcript is every
call it made, from its journaled trace, with the unusable answer that ended it). Nothing written holds a
credential: text passes through :func:`redact_text`. Every file is written atomically.

The ``.sys.score`` file claims a score for each system over the whole test set, so it is written
only when the run covers it: not cut by ``--limit`` and no cell unscored. Otherwise it is not
written (and an older one is removed), and :func:`system_level_gap` says why.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
from pydantic import JsonValue

from tribunal.data.atomic import write_text_atomically
from tribunal.data.score_files import write_seg_scores, write_sys_scores
from tribunal.eval.mt.items import Cell, RunItems
from tribunal.core.call_trace import CallTrace
from tribunal.core.degraded_role import DegradedRole
from tribunal.core.item_result import ItemResult
from tribunal.core.mt_item import JudgeItem
from tribunal.core.judgment_step import Step
from tribunal.secrets import redact_text
from tribunal.eval.mt.grounding import locate


CALL_FIELDS = ("stage", "role", "subject", "signature", "reask", "outputs", "error", "raw_answer")


def call_transcript(trace: CallTrace | None) -> list[dict[str, JsonValue]]:
    """An unscored item's transcript: every predictor call it made (re-asks included), in order, with its
    typed answer, or its one-line error and the unusable answer itself."""
    calls = trace.call_records() if trace is not None else []
    return [{k: call[k] for k in CALL_FIELDS if call.get(k) is not None} for call in calls]


def segment_scores(items: RunItems, results: dict[str, ItemResult], n_segments: int) -> dict[str, np.ndarray]:
    """``{system: per-segment score}``; NaN where a cell is not covered or its item is unscored."""
    scores = {s: np.full(n_segments, np.nan) for s in items.systems}
    for cell in items.cells:
        result = results.get(cell.key)
        if result is not None and result.status == "scored":
            scores[cell.system][cell.segment] = result.score
    return scores


def system_scores(seg: dict[str, np.ndarray]) -> dict[str, float]:
    """Mean over each system's scored cells (NaN for a system without one)."""
    return {s: float(np.nanmean(v)) if np.isfinite(v).any() else math.nan for s, v in seg.items()}


def system_level_gap(items: RunItems, results: dict[str, ItemResult]) -> str | None:
    """Why system scores of this run would not cover every system's test set; None when they would."""
    if items.truncated:
        return f"--limit stopped the run at {len(items.items)} items, {len(items.cells)} cells"
    scored = sum(1 for cell in items.cells if (r := results.get(cell.key)) is not None and r.status == "scored")
    if scored < len(items.cells):
        return f"{len(items.cells) - scored} of {len(items.cells)} cells are unscored"
    return None


def _dumped(records: list[DegradedRole] | list[Step]) -> list[dict[str, JsonValue]]:
    """Typed records as the JSON objects they were made from."""
    return [record.model_dump() for record in records]


DEGRADED_SUFFIX = ".degraded.json"  # beside NAME-REF.seg.score: {system: [segment, ...]} of degraded cells


def counted(results: dict[str, ItemResult], exclude_degraded: bool) -> dict[str, ItemResult]:
    """The results that enter scores and statistics: all, or all but the degraded ones (``--degraded exclude``)."""
    return {k: r for k, r in results.items() if not (exclude_degraded and r.degraded)}


def degraded_cells(items: RunItems, results: dict[str, ItemResult]) -> dict[str, list[int]]:
    """``{system: [segment, ...]}`` of the cells whose item is scored and degraded."""
    cells: dict[str, list[int]] = {}
    for cell in items.cells:
        result = results.get(cell.key)
        if result is not None and result.status == "scored" and result.degraded:
            cells.setdefault(cell.system, []).append(cell.segment)
    return cells


def write_outputs(out: Path, lp: str, name: str, items: RunItems, results: dict[str, ItemResult],
                  sources: list[str], outputs: dict[str, list[str]], reference: str | None = None,
                  exclude_degraded: bool = False) -> dict[str, Path]:
    """Write the score files, per-cell errors and per-item transcripts; return their paths.

    ``paths["sys"]`` is absent when :func:`system_level_gap` finds the run partial. The score files
    are ``NAME-src`` for a reference-free judge, ``NAME-<reference>`` (e.g. ``M-MAD-ref-refA``) for one
    shown a reference, as the mt-metrics-eval layout names metrics. With ``exclude_degraded`` the
    degraded cells are left out of the score files (as unscored cells are); otherwise, when there are
    any, ``NAME-REF.degraded.json`` beside them lists them, so ``mt meta-eval --degraded exclude`` can.
    errors.jsonl and transcripts.jsonl hold every item either way.
    """
    folder, stem = out / "metric-scores" / lp, f"{name}-{reference or 'src'}"
    paths = {"seg": folder / f"{stem}.seg.score", "errors": out / "errors.jsonl", "transcripts": out / "transcripts.jsonl"}
    paths |= _write_score_files(folder, stem, items, results, len(sources), exclude_degraded)
    errors = [_json_line(_cell_record(lp, cell, results.get(cell.key), outputs, sources)) for cell in items.cells]
    write_text_atomically(paths["errors"], redact_text("".join(errors)))
    transcripts = [_json_line(_transcript_record(key, item, result)) for key, item in items.items.items()
                   if (result := results.get(key)) is not None]
    write_text_atomically(paths["transcripts"], redact_text("".join(transcripts)))
    return paths


def _write_score_files(folder: Path, stem: str, items: RunItems, results: dict[str, ItemResult], n_segments: int,
                       exclude_degraded: bool) -> dict[str, Path]:
    """``STEM.seg.score``, ``STEM.sys.score`` when the run covers the test set, ``STEM.degraded.json`` when cells
    are degraded and counted (the paths of these two, when written); a file not written this time is removed,
    so none is left from an older run."""
    scored = counted(results, exclude_degraded)
    seg = segment_scores(items, scored, n_segments)
    write_seg_scores(folder / f"{stem}.seg.score", seg)
    paths: dict[str, Path] = {}
    sys_path = folder / f"{stem}.sys.score"
    if system_level_gap(items, scored) is None:
        write_sys_scores(sys_path, system_scores(seg))
        paths["sys"] = sys_path
    else:
        sys_path.unlink(missing_ok=True)  # an older complete run's file would not match these segments
    marks = folder / f"{stem}{DEGRADED_SUFFIX}"
    degraded = {} if exclude_degraded else degraded_cells(items, results)
    if degraded:
        write_text_atomically(marks, json.dumps(degraded, sort_keys=True) + "\n")
        paths["degraded"] = marks
    else:
        marks.unlink(missing_ok=True)
    return paths


def _json_line(record: dict) -> str:
    """One line of a JSON-lines file."""
    return json.dumps(record, ensure_ascii=False) + "\n"


def _cell_record(lp: str, cell: Cell, result: ItemResult | None, outputs: dict[str, list[str]],
                 sources: list[str]) -> dict:
    """A cell's line of errors.jsonl: its status, score and errors (located in the translation), its samples."""
    record = {"lp": lp, "system": cell.system, "segment": cell.segment, "key": cell.key,
              "status": result.status if result else "not run",
              "score": result.score if result else None, "reason": result.reason if result else None,
              "raw_answer": result.raw if result else None,
              **({"degraded": _dumped(result.degraded)} if result and result.degraded else {}),
              "errors": locate(result.errors, outputs[cell.system][cell.segment], sources[cell.segment])
              if result else []}
    if result and result.ensemble:  # a sampled ensemble: the K scores and their spread
        ensemble = result.ensemble.model_dump()
        record["samples"] = {k: ensemble[k] for k in ("scores", "std", "min", "max", "kept", "dropped",
                                                         "chosen", "rule")}
    return record


def _transcript_record(key: str, item: JudgeItem, result: ItemResult) -> dict:
    """A judged item's line of transcripts.jsonl: its inputs, status and transcript (an unscored one's calls)."""
    transcript = _dumped(result.transcript) if result.status == "scored" else call_transcript(result.trace)
    return {"key": key, "source": item.source, "translation": item.translation, **item.extras(),
            "status": result.status, "reason": result.reason, "debates": result.debates,
            **({"degraded": _dumped(result.degraded)} if result.degraded else {}),
            "transcript": transcript}
