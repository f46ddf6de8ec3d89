"""The spans of one cell as the run page shows them: the judge's, located in the text, and the raters'.

Offsets are half-open code-point offsets into the text of their side (``target``: the translation,
``source``: the source), as :func:`tribunal.eval.mt.grounding.locate` finds them and the rating files
hold them. A judge span that could not be located (``grounding: ungrounded``) has ``s``/``e`` None:
the page lists it as not found, never highlights it. ``hit`` says whether a span overlaps a span of
the other party on the same side (a judge span any rater's span; a rater span the judge's), so
matches and misses are data, not something the page's script works out.
"""

from __future__ import annotations

from typing import Any

from tribunal.core.spans import Span

SEVERE = ("major", "critical")


def _overlaps(a: dict[str, Any], b: dict[str, Any]) -> bool:
    if a["s"] is None or b["s"] is None or a["side"] != b["side"]:
        return False
    return max(a["s"], b["s"]) < min(a["e"], b["e"])


def judge_spans(located: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The judge's located errors as page spans (``text``: what the judge quoted)."""
    spans = []
    for error in located:
        spans.append({"s": error.get("start"), "e": error.get("end"),
                      "sev": str(error.get("severity") or "").lower(),
                      "cat": str(error.get("subcategory") or error.get("category") or error.get("dimension") or ""),
                      "side": "source" if error.get("is_source_error") else "target",
                      "text": str(error.get("span") or ""), "g": error.get("grounding")})
    return spans


def rater_spans(rating: tuple[Span, ...]) -> list[dict[str, Any]]:
    """One rater's errors of a cell as page spans."""
    return [{"s": e.start, "e": e.end, "sev": str(e.severity or "").lower(), "cat": e.category,
             "side": e.side} for e in rating]


def mark_hits(judged: list[list[dict[str, Any]]], raters: dict[str, list[dict[str, Any]]]) -> None:
    """Set ``hit`` on every span: a judge span's (bool) against all raters, a rater span's per judgment (list)."""
    every_rater = [r for spans in raters.values() for r in spans]
    for spans in judged:
        for j in spans:
            j["hit"] = any(_overlaps(j, r) for r in every_rater)
    for spans in raters.values():
        for r in spans:
            r["hit"] = [any(_overlaps(j, r) for j in judgment) for judgment in judged]


def missed_severe(raters: dict[str, list[dict[str, Any]]], judgment: int = 0) -> int:
    """Distinct major or critical rater spans (any rater) no span of judgment ``judgment`` overlaps."""
    missed = {(r["side"], r["s"], r["e"]) for spans in raters.values() for r in spans
              if r["sev"] in SEVERE and not r["hit"][judgment]}
    return len(missed)
