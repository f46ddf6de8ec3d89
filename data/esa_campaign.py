"""Reader for an Appraise ESA/MQM campaign export (Kocmi et al. 2024, "Error Span Annotation").

Two files make a campaign:

- ``*.scores.csv``: one row per annotation, no header, 12 columns: login, system (``wmt23.SYS``),
  item id, item type (``TGT`` a real item, ``BAD`` an attention check), source and target language,
  score (0-100), ``DOCUMENT#SYSTEM`` id, a flag, the error spans as JSON (``start_i``, ``end_i``
  character offsets into the translation, ``severity``, ``error_type``; ``"missing"`` offsets mark
  an omission) and the start and end timestamps;
- ``batches_*.json``: the batches served to annotators; an item (``itemID``, ``documentID``) carries
  ``_item`` = ``"SYSTEM | LINE | DOCUMENT"``, LINE being the segment's 0-based line in
  mt-metrics-eval's layout of the test set.

An annotation row names its item by (item id, document id) within the batch its login served (one
batch per login: the batch holding the login's unambiguous items); this resolves the two items of
WMT23 en-de whose (item id, document id) occurs in two batches. Rows of tutorial documents and of
``#duplicate`` fillers are skipped, ``BAD`` rows are counted and left out. An item annotated twice
keeps, for the same login, its newer annotation (by end time), else the later row of the file.

Spans become :class:`~tribunal.core.spans.Span` (category: the ``error_type`` or ``""``;
severity lower-cased: ``minor``, ``major``, ``undecided``...); an omission (``"missing"`` offsets)
becomes a zero-length span at the end of the translation with category ``omission``. Offsets are
read as half-open ``[start_i, end_i)``.
"""

from __future__ import annotations

import csv
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tribunal.core.rating import Rating
from tribunal.core.spans import Span
from tribunal.data.errors import DataFormatError

N_COLUMNS = 12
SKIPPED_DOCUMENTS = ("tutorial", "#duplicate")


@dataclass(frozen=True)
class Annotation:
    """One cell's kept annotation: its ESA score and its error spans."""

    score: float
    spans: tuple[Span, ...]
    login: str
    end_time: float


@dataclass
class Campaign:
    """The kept annotations of a campaign, by cell ``(system, line)``, and what the files held."""

    cells: dict[tuple[str, int], Annotation]
    rows: Counter = field(default_factory=Counter)
    """Rows by kind: ``TGT``, ``BAD``, ``skipped`` (tutorial and duplicate fillers), ``replaced``."""

    def systems(self) -> list[str]:
        return sorted({system for system, _ in self.cells})

    def seg_scores(self, systems: list[str], n_segments: int) -> dict[str, np.ndarray]:
        """``{system: scores}`` aligned with the layout's lines (NaN where not annotated)."""
        out = {s: np.full(n_segments, np.nan) for s in systems}
        for (system, line), annotation in self.cells.items():
            if system in out:
                out[system][line] = annotation.score
        return out

    def ratings(self, systems: list[str], n_segments: int) -> dict[str, list[Rating]]:
        """``{system: [Rating per line]}``, the MQM ratings' type (None where not annotated)."""
        out: dict[str, list[Rating]] = {s: [None] * n_segments for s in systems}
        for (system, line), annotation in self.cells.items():
            if system in out:
                out[system][line] = annotation.spans
        return out

    def span_count(self) -> int:
        return sum(len(a.spans) for a in self.cells.values())


def _batch_items(path: Path) -> tuple[dict[tuple[int, str, str], tuple[str, int, str]], dict[tuple[str, str], set[int]]]:
    """``{(batch, item id, document): (system, line, target text)}`` and the batches of each (item id, document)."""
    try:
        batches = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise DataFormatError(path, None, f"not a readable JSON batch file: {err}") from None
    items, where = {}, {}
    for number, batch in enumerate(batches):
        for item in batch.get("items", ()):
            document, item_id = str(item["documentID"]), str(item["itemID"])
            if any(mark in document for mark in SKIPPED_DOCUMENTS):
                continue
            parts = [p.strip() for p in str(item.get("_item", "")).split("|")]
            if len(parts) != 3 or not parts[1].isdigit():
                raise DataFormatError(path, None, f"item {item_id} of {document}: _item {item.get('_item')!r} "
                                                  "is not 'SYSTEM | LINE | DOCUMENT'")
            items[(number, item_id, document)] = (parts[0], int(parts[1]), str(item.get("targetText", "")))
            where.setdefault((item_id, document), set()).add(number)
    return items, where


def _span(path: Path, line: int, raw: object, target: str) -> Span:
    if not isinstance(raw, dict) or "severity" not in raw or "start_i" not in raw or "end_i" not in raw:
        raise DataFormatError(path, line, "an error span needs start_i, end_i and severity")
    severity, category = str(raw["severity"]).strip().lower(), str(raw.get("error_type") or "")
    if raw["start_i"] == "missing" or raw["end_i"] == "missing":
        return Span(len(target), len(target), severity, category=category or "omission")
    start, end = raw["start_i"], raw["end_i"]
    if not (isinstance(start, int) and isinstance(end, int)) or not 0 <= start <= end:
        raise DataFormatError(path, line, f"bad span offsets start_i={start!r} end_i={end!r}")
    return Span(start, end, severity, category=category)


def _login_batches(rows: list[list[str]], where: dict[tuple[str, str], set[int]]) -> dict[str, int]:
    """Each login's batch: the one holding the login's items that occur in one batch only."""
    seen: dict[str, Counter] = {}
    for row in rows:
        found = where.get((row[2], row[7]))
        if found and len(found) == 1:
            seen.setdefault(row[0], Counter())[next(iter(found))] += 1
    return {login: counts.most_common(1)[0][0] for login, counts in seen.items()}


def read_campaign(scores_csv: str | Path, batches_json: str | Path) -> Campaign:
    """The campaign of one Appraise score export and its batch file (see the module docstring)."""
    scores_csv, batches_json = Path(scores_csv), Path(batches_json)
    if not scores_csv.is_file():
        raise DataFormatError(scores_csv, None, "file not found")
    items, where = _batch_items(batches_json)
    with scores_csv.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    batch_of = _login_batches(rows, where)
    campaign = Campaign({})
    for number, row in enumerate(rows, 1):
        if len(row) != N_COLUMNS:
            raise DataFormatError(scores_csv, number, f"expected {N_COLUMNS} comma-separated columns, found {len(row)}")
        _add_row(campaign, scores_csv, number, row, items, where, batch_of)
    return campaign


def _add_row(campaign: Campaign, path: Path, number: int, row: list[str], items: dict, where: dict,
             batch_of: dict[str, int]) -> None:
    login, item_id, kind, document = row[0], row[2], row[3], row[7]
    if any(mark in document for mark in SKIPPED_DOCUMENTS):
        campaign.rows["skipped"] += 1
        return
    if kind != "TGT":
        campaign.rows[kind] += 1
        return
    batches = where.get((item_id, document), set())
    batch = batch_of.get(login) if len(batches) > 1 else next(iter(batches), None)
    if (batch, item_id, document) not in items:
        raise DataFormatError(path, number, f"item {item_id} of {document} is in no batch of the batch file")
    system, line, target = items[(batch, item_id, document)]
    try:
        score, end_time, raw_spans = float(row[6]), float(row[11]), json.loads(row[9])
    except ValueError as err:
        raise DataFormatError(path, number, f"unreadable score, time or spans: {err}") from None
    campaign.rows["TGT"] += 1
    annotation = Annotation(score, tuple(_span(path, number, s, target) for s in raw_spans), login, end_time)
    known = campaign.cells.get((system, line))
    if known is not None:
        campaign.rows["replaced"] += 1
        if known.login == login and known.end_time > end_time:
            return
    campaign.cells[(system, line)] = annotation
