"""A page's HTML: one self-contained file (its style and script inline, no request leaves it).

The head (who judged, cost, figures) is written here as escaped HTML, so it reads without the
script; the rows are the page data embedded as JSON in ``<script type="application/json">`` and
drawn by the page's small script, a page of rows at a time. The JSON has ``<``, ``>`` and ``&``
escaped as ``\\u003c`` ... so no text (a translation holding ``</script>``) can end the tag. The page
runs in MLflow's artifact viewer, an iframe sandboxed to ``allow-scripts``: the script uses no
storage, no dialogs, no forms and no network.
"""

from __future__ import annotations

import json
import math
import re
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

from tribunal.data.atomic import write_text_atomically
from tribunal.eval.meta.statistics import per_lp_tasks

DATA_ID = "tribunal-page-data"
COVERAGE_SHOWN = ("covered_cells", "covered_systems")
ERROR_FREE_SHOWN = ("mcc", "precision", "recall", "f1", "balanced_accuracy", "predicted_rate")
SPAN_SHOWN = ("mpp_precision", "mpp_recall", "mpp_f", "wmt25_precision", "wmt25_recall", "wmt25_f")


def _asset(name: str) -> str:
    return resources.files("tribunal.eval.report").joinpath("assets", name).read_text(encoding="utf-8")


def embedded_json(data: Any) -> str:
    """``data`` as JSON safe inside a script element (no ``<``, ``>`` or ``&`` left)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def figure(value: Any) -> str:
    """A figure as the head shows it (4 decimals; integers as they are; undefined as a dash)."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.4f}"
    return f"{int(value):,}" if isinstance(value, (int, float)) else str(value)


def _cells(heads: list[dict], key: str, get: Any) -> str:
    values = [get(h) for h in heads]
    return "".join(f'<td data-fig="{escape(key)}" data-value="{escape(json.dumps(v))}">{escape(figure(v))}</td>'
                   for v in values)


def _rows(heads: list[dict], entries: list[tuple[str, str, Any]]) -> str:
    return "".join(f"<tr><th>{escape(label)}</th>{_cells(heads, key, get)}</tr>" for label, key, get in entries)


def _reasons(counts: dict[str, int]) -> str:
    return ", ".join(f"{reason} {n}" for reason, n in sorted(counts.items())) or "—"


def _table(title: str, heads: list[dict], body: str) -> str:
    columns = "".join(f"<th>{escape(h['label'])}</th>" for h in heads) if len(heads) > 1 else ""
    return (f'<table class="head"><thead><tr><th class="title">{escape(title)}</th>{columns}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def _error_free_rows(heads: list[dict]) -> str:
    """The error-free block's rows (gold, rules, cells, each measure with its interval); empty without one."""
    blocks = [h.get("error_free") or {} for h in heads]
    if not any(blocks):
        return ""
    text = "".join(f"<tr><th>{label}</th>" + "".join(f"<td>{escape(str(b.get(key) or '—'))}</td>" for b in blocks)
                   + "</tr>" for label, key in (("gold", "gold"), ("gold rule", "gold_rule"),
                                                ("judge's rule", "prediction_rule")))
    counts = [("cells", "error_free.cells", lambda h: (h.get("error_free") or {}).get("cells")),
              ("gold error-free rate", "error_free.gold_error_free_rate",
               lambda h: (h.get("error_free") or {}).get("gold_error_free_rate"))]
    measures = sorted({m for b in blocks for m in b.get("measures", {})}, key=ERROR_FREE_SHOWN.index)
    rows = "".join(f"<tr><th>{escape(m)}</th>" + "".join(_interval_cell(b, m) for b in blocks) + "</tr>"
                   for m in measures)
    return text + _rows(heads, counts) + rows


def _interval_cell(block: dict, measure: str) -> str:
    """A measure's cell: its value (``data-value``, as the other figures) and its interval."""
    figures = (block.get("measures") or {}).get(measure)
    value = figures["value"] if figures else None
    text = f"{figure(value)} [{figure(figures['interval'][0])}, {figure(figures['interval'][1])}]" if figures else "—"
    return f'<td data-fig="error_free.{escape(measure)}" data-value="{escape(json.dumps(value))}">{escape(text)}</td>'


def head_html(heads: list[dict]) -> str:
    """The run's (or the two runs') head: who judged, items, usage, meta-evaluation and span figures."""
    text = [("judge", "judge"), ("model", "model"), ("data", "data"), ("MLflow run", "run_id"), ("spend", "spend")]
    who = "".join(f"<tr><th>{label}</th>" + "".join(f'<td data-head="{key}">{escape(str(h.get(key) or "—"))}</td>'
                                                     for h in heads) + "</tr>" for label, key in text)
    counts = [(label, f"items.{k}", lambda h, k=k: h["items"][k])
              for label, k in (("items", "total"), ("scored", "scored"), ("unscored", "unscored"),
                               ("degraded", "degraded"), ("left by a cap", "left"))]
    reasons = "".join(f"<tr><th>{label}</th>" + "".join(f"<td>{escape(_reasons(h['items'][k]))}</td>" for h in heads)
                      + "</tr>" for label, k in (("unscored by reason", "unscored_reasons"),
                                                 ("degraded by role", "degraded_reasons")))
    usage = [("LM calls", "calls", lambda h: h["calls"]), ("re-asks", "reasks", lambda h: h["reasks"]),
             ("prompt tokens", "prompt_tokens", lambda h: h["prompt_tokens"]),
             ("completion tokens", "completion_tokens", lambda h: h["completion_tokens"]),
             ("spend (USD)", "spend_usd", lambda h: h["spend_usd"]),
             ("wall seconds", "wall_seconds", lambda h: h["wall_seconds"])]
    shown = [s.key for s in per_lp_tasks("run")] + list(COVERAGE_SHOWN)  # the run report's statistics, as declared
    meta = [(k, f"meta.{k}", lambda h, k=k: h["meta"].get(k)) for k in shown]
    per_rater = sorted({k for h in heads for k in h["spans"] if "." in k and k.endswith((".mpp_f", ".wmt25_f"))})
    span_keys = list(SPAN_SHOWN) + per_rater
    spans = [(k, f"spans.{k}", lambda h, k=k: h["spans"].get(k)) for k in span_keys]
    other = sorted({k for h in heads for k in h["spans"]} - set(span_keys))
    more = [(k, f"spans.{k}", lambda h, k=k: h["spans"].get(k)) for k in other]
    sig = "".join(f'<p class="sig"><b>{escape(h["label"] if len(heads) > 1 else "signature")}:</b> '
                  f'<code data-head="signature">{escape(h["signature"])}</code></p>' for h in heads)
    error_free = _error_free_rows(heads)
    tables = [_table("run", heads, who), _table("items", heads, _rows(heads, counts) + reasons),
              _table("calls and spend", heads, _rows(heads, usage)),
              _table("meta-evaluation vs the human scores", heads, _rows(heads, meta)),
              _table("spans vs the raters (MPP, WMT25)", heads, _rows(heads, spans))]
    if error_free:
        tables.append(_table("error-free detection (WMT26 subtask 3) [95% bootstrap]", heads, error_free))
    folded = (f'<details class="more"><summary>every span figure of the summary</summary>'
              f'{_table("spans", heads, _rows(heads, more))}</details>') if more else ""
    return sig + '<div class="tables">' + "".join(tables) + "</div>" + folded


def page_html(data: dict[str, Any], title: str) -> str:
    """The page: head, controls, the rows' data and the script that draws them."""
    parts = {"title": escape(title), "style": _asset("page.css"), "head": head_html(data["heads"]),
             "data_id": DATA_ID, "script": _asset("page.js"), "data": embedded_json(data)}
    # one pass over the template: a text put in (a signature holding "{{data}}") is never read as a slot
    return re.sub(r"\{\{(\w+)\}\}", lambda slot: parts[slot.group(1)], _asset("page.html"))


def write_page(path: Path, data: dict[str, Any], title: str) -> Path:
    """Write the page atomically; returns ``path``."""
    write_text_atomically(Path(path), page_html(data, title))
    return Path(path)


class NotARunPage(ValueError):
    """A file that holds no tribunal page data; ``str(err)`` names it."""


def read_page_data(path: Path) -> dict[str, Any]:
    """The data a page embeds (what :func:`write_page` wrote), to compare two runs or check a page."""
    text = Path(path).read_text(encoding="utf-8")
    start_tag = f'<script type="application/json" id="{DATA_ID}">'
    start = text.find(start_tag)
    end = text.find("</script>", start)
    if start < 0 or end < 0:
        raise NotARunPage(f"{path}: not a tribunal run page (no embedded data)")
    return json.loads(text[start + len(start_tag):end])
