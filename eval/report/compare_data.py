"""Two runs side by side, as page data: what each judge said about every cell both judged.

Built from the two runs' own pages (the data embedded in each ``report.html``, itself built from
each run's summary and journal): cells are matched by language pair, system and segment; the
raters' spans are the first run's (the same data folder); rows come with the cells where the two
judges differ most first: one scored and one not, then the largest score difference, then the most
spans one marked and the other did not.
"""

from __future__ import annotations

import copy
from typing import Any

from tribunal.eval.report.page_data import PAGE_FORMAT, add_orderings
from tribunal.eval.report.spans_view import mark_hits


def _marks(judgment: dict[str, Any]) -> set[tuple]:
    return {(s["side"], s["s"], s["e"], s["sev"]) for s in judgment["spans"] if s["s"] is not None}


def difference(first: dict[str, Any], second: dict[str, Any]) -> tuple[int, float, int]:
    """How much two judgments of a cell differ: (status differs, |score difference|, spans not shared)."""
    status = int(first["status"] != second["status"])
    both = first["score"] is not None and second["score"] is not None
    delta = abs(first["score"] - second["score"]) if both else 0.0
    return status, delta, len(_marks(first) ^ _marks(second))


def _cell(row: dict[str, Any]) -> tuple:
    return row["lp"], row["sys"], row["seg"]


def compare_rows(first: dict[str, Any], second: dict[str, Any], scale: str) -> list[dict[str, Any]]:
    """The cells both pages show, each with the two judgments, most different first."""
    theirs = {_cell(row): row for row in second["rows"]}
    rows = []
    for mine in first["rows"]:
        other = theirs.get(_cell(mine))
        if other is None:
            continue
        row = copy.deepcopy(mine)
        row["j"] = [row["j"][0], copy.deepcopy(other["j"][0])]
        for spans in row["r"].values():
            for span in spans:
                span.pop("hit", None)
        mark_hits([j["spans"] for j in row["j"]], row["r"])
        add_orderings(row, scale)
        status, delta, spans = difference(*row["j"])
        row["diff"] = {"status": status, "score": delta, "spans": spans}
        rows.append(row)
    rows.sort(key=lambda r: (-r["diff"]["status"], -r["diff"]["score"], -r["diff"]["spans"], r["i"]))
    for rank, row in enumerate(rows):
        row["rank"] = rank
    return rows


def compare_page_data(first: dict[str, Any], second: dict[str, Any], labels: tuple[str, str]) -> dict[str, Any]:
    """The comparison page's data: both heads (labelled, e.g. untuned / tuned), the raters, the matched rows."""
    heads = [dict(first["heads"][0], label=labels[0]), dict(second["heads"][0], label=labels[1])]
    scale = heads[0].get("scale", "mqm")
    return {"format": PAGE_FORMAT, "kind": "compare", "heads": heads, "raters": first["raters"],
            "rows": compare_rows(first, second, scale)}
