"""Grounding a judge's error span in the text it annotates: character offsets, or an honest "not found".

Span F1 needs offsets, and models quote spans loosely: other whitespace, typographic quotes, another
case or Unicode form, a dropped accent or a slipped letter. :func:`ground` tries, in order:

1. **exact**: the first occurrence of the span as written;
2. **normalised**: both texts under NFKC, case folding, one form of quotes and dashes, and runs of
   whitespace collapsed to one space; offsets are mapped back to the original text. A span the model
   wrapped in quotes (``“GB/T”``, ``"GB/T"``, ``「GB/T」``) that is not found with them is looked for
   without them;
3. **fuzzy**: the best partial alignment of the normalised span in the normalised text (rapidfuzz's
   ``partial_ratio_alignment``, an Indel similarity in 0-100), accepted when the similarity is at
   least :data:`FUZZY_THRESHOLD` (90: about one slipped character in ten) and the span has at least
   :data:`FUZZY_MIN_LENGTH` characters (shorter spans align somewhere in almost any sentence); an
   alignment that cuts a word is widened to the whole word;
4. otherwise **ungrounded**: no offsets; the span is kept, counted and reported, never dropped.

:func:`locate` grounds every error of a judgment this way (the one place tribunal turns a quoted span into
offsets: ``errors.jsonl``, the run summary's span figures, the report page, the pyfunc model and the
optimizer metrics all read it); :func:`spans_of` turns the located errors into
:class:`~tribunal.core.spans.Span` for the span measures and :func:`ungrounded` lists the translation
spans that could not be found.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any, Iterable, Literal

from rapidfuzz import fuzz

from tribunal.core.spans import Span, side_of, span as make_span

Method = Literal["exact", "normalised", "fuzzy", "ungrounded"]
FUZZY_THRESHOLD = 90.0
FUZZY_MIN_LENGTH = 5
_QUOTES = str.maketrans({c: '"' for c in "“”„‟«»〝〞＂「」『』"} | {c: "'" for c in "‘’‚‛‹›`´＇"}
                        | {c: "-" for c in "‐‑‒–—―−"})


@dataclass(frozen=True)
class Grounding:
    """Where a span sits in the text (``start``/``end`` are None when ungrounded)."""

    start: int | None
    end: int | None
    method: Method
    similarity: float = 100.0


def _normalise(text: str) -> tuple[str, list[int]]:
    """The normalised text and, for each of its characters, the index it came from."""
    chars: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        for piece in unicodedata.normalize("NFKC", char).casefold().translate(_QUOTES):
            if piece.isspace():
                if not chars or chars[-1] == " ":
                    continue
                piece = " "
            chars.append(piece)
            origin.append(index)
    while chars and chars[-1] == " ":
        chars.pop()
        origin.pop()
    return "".join(chars), origin


def _unquoted(norm_span: str) -> str:
    """A normalised span without the quotes around it (``"gb/t"`` -> ``gb/t``), however many pairs."""
    while len(norm_span) >= 2 and norm_span[0] == norm_span[-1] and norm_span[0] in "\"'":
        norm_span = norm_span[1:-1].strip()
    return norm_span


def _mapped(origin: list[int], start: int, end: int) -> tuple[int, int]:
    return origin[start], origin[end - 1] + 1


def ground(span: str, text: str) -> Grounding:
    """Locate ``span`` in ``text`` (see the module docstring for the order of attempts)."""
    if not span or not span.strip() or not text:
        return Grounding(None, None, "ungrounded", 0.0)
    start = text.find(span)
    if start >= 0:
        return Grounding(start, start + len(span), "exact")
    norm_text, origin = _normalise(text)
    norm_span, _ = _normalise(span)
    if not norm_span:
        return Grounding(None, None, "ungrounded", 0.0)
    found = norm_text.find(norm_span)
    if found < 0:  # a span the model wrapped in quotes ("“GB/T”") is the text inside them
        norm_span = _unquoted(norm_span)
        found = norm_text.find(norm_span) if norm_span else -1
    if found >= 0:
        return Grounding(*_mapped(origin, found, found + len(norm_span)), "normalised")
    if not norm_span:
        return Grounding(None, None, "ungrounded", 0.0)
    if len(norm_span) < FUZZY_MIN_LENGTH:
        return Grounding(None, None, "ungrounded", 0.0)

    alignment = fuzz.partial_ratio_alignment(norm_span, norm_text)
    if alignment is None or alignment.score < FUZZY_THRESHOLD or alignment.dest_end <= alignment.dest_start:
        return Grounding(None, None, "ungrounded", alignment.score if alignment else 0.0)
    begin, finish = alignment.dest_start, alignment.dest_end
    while begin < finish and norm_text[begin] == " ":
        begin += 1
    while finish > begin and norm_text[finish - 1] == " ":
        finish -= 1
    # An alignment that cuts a word (a span with a dropped letter) is widened to the whole word.
    while begin > 0 and norm_text[begin - 1].isalnum() and norm_text[begin].isalnum():
        begin -= 1
    while finish < len(norm_text) and norm_text[finish].isalnum() and norm_text[finish - 1].isalnum():
        finish += 1
    return Grounding(*_mapped(origin, begin, finish), "fuzzy", round(alignment.score, 2))


def _fields(error: Any) -> dict:
    """A judge's error as a dict (a dict already, or a typed error such as ``MQMError``)."""
    if isinstance(error, dict):
        return error
    dump = getattr(error, "model_dump", None)
    if callable(dump):
        return dump()
    fields = ("span", "subcategory", "category", "severity", "is_source_error")
    return {k: getattr(error, k) for k in fields if hasattr(error, k)}


def locate(errors: Iterable[Any] | None, translation: str, source: str = "") -> list[dict]:
    """Errors with ``start`` / ``end`` of their span, grounded by :func:`ground` in the translation (in the
    source for a source error); ``grounding`` says how (``ungrounded``: no offsets, the error is kept)."""
    located = []
    for error in errors or ():
        fields = _fields(error)
        in_source = bool(fields.get("is_source_error"))
        found = ground(str(fields.get("span") or ""), source if in_source else translation)
        located.append({**fields, "start": found.start, "end": found.end, "grounding": found.method})
    return located


def spans_of(located: Iterable[dict]) -> list[Span]:
    """The grounded errors as spans of their side (severity lower-cased, the category as the report page reads
    it, the quoted text kept); an ungrounded error has no offsets and no span."""
    return [make_span(e["start"], e["end"], e.get("severity") or "", side_of(e.get("is_source_error")),
                      str(e.get("subcategory") or e.get("category") or e.get("dimension") or ""),
                      str(e.get("span") or ""))
            for e in located if e.get("start") is not None]


def ungrounded(located: Iterable[dict]) -> list[str]:
    """The quoted texts of the translation's errors that could not be found in it (empty quotes aside)."""
    return [str(e["span"]) for e in located
            if e.get("start") is None and not e.get("is_source_error") and e.get("span")]
