"""What a run page shows, as data: the run's head from its summary, one row per cell from its journal.

Nothing here is a statistic computed again: the head's figures are the :class:`RunSummary`'s
(``summary.json``), each row's score, reason, degradations and transcript are the journal's
:class:`ItemResult`, the judge's spans are located as ``errors.jsonl`` locates them
(:func:`tribunal.eval.mt.grounding.locate`), the texts, human scores and raters' spans come from the
data folder. A row is a cell (system x segment): the human score and the raters' spans are a cell's;
cells with the same source and translation share one judged item (``key``).
"""

from __future__ import annotations

import json
import math
from typing import Any

from tribunal.core.item_result import ItemResult
from tribunal.core.run_summary import RunSummary
from tribunal.eval.mt.items import RunItems
from tribunal.eval.mt.grounding import locate
from tribunal.eval.mt.outputs import call_transcript
from tribunal.eval.report.spans_view import judge_spans, mark_hits, missed_severe, rater_spans
from tribunal.eval.tracking.signature import split_unescaped, unescape

PAGE_FORMAT = "tribunal.run-page/1"
CUT = 400  # characters of one prompt or answer field the transcript keeps


def signature_fields(signature: str) -> dict[str, str]:
    """``{field: value}`` of a run signature (``prog:mmad|lm:...``)."""
    fields = {}
    for part in split_unescaped(signature, "|"):
        key, _, raw = part.partition(":")
        try:
            fields[key] = unescape(raw)
        except ValueError:
            fields[key] = raw
    return fields


def head(summary: RunSummary, scale: str = "mqm") -> dict[str, Any]:
    """The run's head: who judged, how much it cost, the figures against the raters (all from the summary)."""
    sig = signature_fields(summary.signature)
    return {"signature": summary.signature, "judge": sig.get("prog", ""), "model": sig.get("lm", ""),
            "data": sig.get("data", ""), "run_id": summary.mlflow_run_id, "scale": scale, "label": "this run",
            "items": summary.items.model_dump(), "calls": summary.calls, "prompt_tokens": summary.prompt_tokens,
            "completion_tokens": summary.completion_tokens, "spend_usd": summary.spend_usd, "spend": summary.spend,
            "reasks": summary.reasks, "wall_seconds": summary.wall_seconds, "stopped_by": summary.stopped_by,
            "meta": dict(summary.meta), "spans": dict(summary.spans), "error_free": summary.details.get("error_free"),
            "roles": {role: usage.calls for role, usage in summary.roles.items()}}


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= CUT else text[:CUT] + "…"


def prompt_summaries(result: ItemResult, source: str, translation: str) -> list[dict[str, Any]]:
    """Each predictor call of the item: its role, its inputs (cut; the row's own texts named, not repeated), its answer."""
    shown = {source: "(the source)", translation: "(the translation)"}
    calls = []
    for call in result.trace.calls if result.trace is not None else ():  # typed: read, not dumped (900 items: ~1 s)
        given = call.inputs if isinstance(call.inputs, dict) else {}
        outputs = call.outputs if isinstance(call.outputs, dict) else {}
        inputs = {k: shown.get(v, _short(v)) if isinstance(v, str) else _short(v) for k, v in given.items()}
        calls.append({"stage": call.stage, "role": call.role, "subject": call.subject, "signature": call.signature,
                      "reask": (call.model_extra or {}).get("reask"), "prompt": inputs,
                      "answer": {k: _short(v) for k, v in outputs.items()}, "error": call.error})
    return calls


def judgment(result: ItemResult | None, source: str, translation: str) -> dict[str, Any]:
    """One judge's verdict on a cell: status, score, reason, degradations, spans and transcript."""
    if result is None:
        return {"status": "not run", "score": None, "reason": None, "degraded": [], "spans": [], "transcript": [],
                "calls": [], "debates": {}}
    scored = result.status == "scored"
    return {"status": result.status, "score": result.score, "reason": result.reason, "raw": result.raw,
            "degraded": [{"role": d.role, "reason": d.reason} for d in result.degraded],
            "spans": judge_spans(locate(result.errors, translation, source)),
            "transcript": [s.model_dump() for s in result.transcript] if scored else call_transcript(result.trace),
            "calls": prompt_summaries(result, source, translation), "debates": result.debates}


def _human(gold: dict[str, Any], system: str, segment: int) -> float | None:
    scores = gold.get(system)
    value = None if scores is None else float(scores[segment])
    return None if value is None or not math.isfinite(value) else value


def cell_raters(pair: Any, system: str, segment: int) -> dict[str, list[dict[str, Any]]]:
    """``{rating file: spans}`` of the raters who rated the cell (a rater without a rating of it is absent)."""
    raters = {}
    for name in pair.rating_names:
        rating = pair.ratings(name).get(system, [None] * pair.n_segments)[segment]
        if rating is not None:
            raters[name] = rater_spans(rating)
    return raters


def run_rows(items: RunItems, results: dict[str, ItemResult], pair: Any, scale: str = "mqm") -> list[dict[str, Any]]:
    """One row per cell of the run, in the run's order."""
    gold = pair.gold_seg
    rows = []
    for index, cell in enumerate(items.cells):
        item = items.items[cell.key]
        raters = cell_raters(pair, cell.system, cell.segment)
        judged = [judgment(results.get(cell.key), item.source, item.translation)]
        mark_hits([j["spans"] for j in judged], raters)
        rows.append({"i": index, "lp": pair.lp, "sys": cell.system, "seg": cell.segment, "key": cell.key,
                     "src": item.source, "tgt": item.translation, "human": _human(gold, cell.system, cell.segment),
                     "j": judged, "r": raters})
    for row in rows:
        add_orderings(row, scale)
    return rows


def add_orderings(row: dict[str, Any], scale: str) -> None:
    """What the page sorts and filters on: disagreement with the human score, missed major errors."""
    score, human = row["j"][0]["score"], row["human"]
    row["dis"] = abs(score - human) if scale == "mqm" and score is not None and human is not None else None
    row["missed"] = [missed_severe(row["r"], k) for k in range(len(row["j"]))]


def run_page_data(summary: RunSummary, items: RunItems, results: dict[str, ItemResult], pair: Any,
                  scale: str = "mqm") -> dict[str, Any]:
    """The whole page's data: ``format``, ``kind`` (``run``), ``heads`` (one), ``raters`` and ``rows``."""
    return {"format": PAGE_FORMAT, "kind": "run", "heads": [head(summary, scale)],
            "raters": list(pair.rating_names), "rows": run_rows(items, results, pair, scale)}
