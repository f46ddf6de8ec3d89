"""A parsed rating file as the arrays a :class:`~tribunal.data.score_cache.ScoreCache` entry holds.

:func:`encode_ratings` flattens ``{system: [Rating per segment]}`` into one row per line (its system and
its error count, -1 for an unrated ``None``) and one row per error (offsets, category and severity as
indices into their distinct names, the score with a flag for "no score", the source-error flag);
:func:`decode_ratings` rebuilds exactly what :func:`~tribunal.data.ratings.parse_ratings`
returned (the round trip is tested against a fresh parse), a segment's errors built when first read.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tribunal.core.rating import Rating
from tribunal.core.spans import Span, side_of
from tribunal.data.score_cache import Parsed


def _codes(values: list[str]) -> tuple[list[str], np.ndarray]:
    names: dict[str, int] = {}
    codes = np.fromiter((names.setdefault(v, len(names)) for v in values), dtype=np.int64, count=len(values))
    return list(names), codes


def encode_ratings(ratings: dict[str, list[Rating]]) -> Parsed:
    """The arrays of a parsed rating file (see the module docstring)."""
    systems = list(ratings)
    rows = [(k, rating) for k, system in enumerate(systems) for rating in ratings[system]]
    errors = [e for _, rating in rows if rating for e in rating]
    categories, category = _codes([e.category for e in errors])
    severities, severity = _codes([e.severity for e in errors])
    return Parsed(
        strings={"systems": systems, "categories": categories, "severities": severities},
        arrays={
            "row_system": np.array([k for k, _ in rows], dtype=np.int64),
            "row_errors": np.array([-1 if r is None else len(r) for _, r in rows], dtype=np.int64),
            "start": np.array([e.start for e in errors], dtype=np.int64),
            "end": np.array([e.end for e in errors], dtype=np.int64),
            "category": category,
            "severity": severity,
            "score": np.array([np.nan if e.score is None else e.score for e in errors], dtype=np.float64),
            "has_score": np.array([e.score is not None for e in errors], dtype=np.int64),
            "source_error": np.array([e.is_source_error for e in errors], dtype=np.int64),
        },
    )


class _Spans:
    """The error rows of one cached rating file (columns as Python lists, converted once, on first use)."""

    def __init__(self, parsed: Parsed):
        self._parsed = parsed
        self._columns: tuple[list, ...] | None = None

    def spans(self, start: int, stop: int) -> list[Span]:
        """The errors of rows ``start`` to ``stop`` (exclusive)."""
        if self._columns is None:
            a = self._parsed.arrays
            self._columns = tuple(a[name].tolist() for name in
                                  ("start", "end", "category", "severity", "score", "has_score", "source_error"))
        categories, severities = self._parsed.strings["categories"], self._parsed.strings["severities"]
        begin, end, category, severity, score, has_score, source = (column[start:stop] for column in self._columns)
        return [Span(b, e, severities[v], side_of(x), categories[c], s if given else None)
                for b, e, c, v, s, given, x in zip(begin, end, category, severity, score, has_score, source)]


class RatingBlock(Sequence):
    """One system's ratings (``Rating`` per segment) from a cached file, each built when first read.

    A run reads the cells it judged, a few hundred of the file's tens of thousands of errors; building
    every :class:`~tribunal.core.spans.Span` up front cost a 200-item M-MAD run about 0.09 s. Equal to the list a
    fresh parse gives (``==`` either way round); a segment read twice gives the same objects.
    """

    def __init__(self, spans: _Spans, counts: np.ndarray, offsets: np.ndarray):
        self._spans, self._counts, self._offsets = spans, counts, offsets
        self._built: dict[int, Rating] = {}
        self._all: list[Rating] | None = None  # every segment, once the block is read in full

    def __len__(self) -> int:
        return len(self._counts)

    def _rating(self, k: int) -> Rating:
        count, offset = int(self._counts[k]), int(self._offsets[k])
        return None if count < 0 else tuple(self._spans.spans(offset, offset + count))

    def _every_rating(self) -> list[Rating]:
        """Every segment's rating, the block's errors built in one pass (reusing those already read)."""
        every: list[Rating] = [None] * len(self)
        rated = np.flatnonzero(self._counts >= 0).tolist()
        if not rated:
            return every
        counts, offsets = self._counts.tolist(), self._offsets.tolist()
        first = offsets[rated[0]]
        spans = self._spans.spans(first, offsets[rated[-1]] + max(counts[rated[-1]], 0))
        for k in rated:
            known = self._built.get(k)
            every[k] = known if known is not None else tuple(spans[offsets[k] - first:offsets[k] - first + counts[k]])
        return every

    def __getitem__(self, index):
        if self._all is not None:
            return self._all[index]
        if isinstance(index, slice):
            return [self[k] for k in range(*index.indices(len(self)))]
        k = range(len(self))[index]  # negative indices, and IndexError out of range
        if k not in self._built:
            self._built[k] = self._rating(k)
        return self._built[k]

    def __iter__(self):
        if self._all is None:  # a full read builds every segment in one pass
            self._all = self._every_rating()
        return iter(self._all)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]  # equal to a list, so unhashable like one

    def __repr__(self) -> str:
        return f"RatingBlock({list(self)!r})"


def decode_ratings(parsed: Parsed) -> dict[str, RatingBlock]:
    """``{system: ratings per segment}`` from :func:`encode_ratings`'s arrays, each built when read."""
    systems, a = parsed.strings["systems"], parsed.arrays
    spans = _Spans(parsed)
    counts = a["row_errors"]
    offsets = np.concatenate([[0], np.cumsum(np.maximum(counts, 0))[:-1]]).astype(np.int64) if len(counts) else counts
    rows = a["row_system"]
    bounds = np.searchsorted(rows, np.arange(len(systems) + 1))  # rows are grouped by system, in order
    return {system: RatingBlock(spans, counts[bounds[k]:bounds[k + 1]], offsets[bounds[k]:bounds[k + 1]])
            for k, system in enumerate(systems)}


def rated_segments(parsed: Parsed) -> dict[str, np.ndarray]:
    """``{system: the segments it has a rating for}`` (not ``None``), from the arrays alone."""
    systems, a = parsed.strings["systems"], parsed.arrays
    rows = a["row_system"]
    segment = np.arange(len(rows)) - np.searchsorted(rows, rows)  # rows are grouped by system, in order
    rated = a["row_errors"] >= 0
    return {system: segment[rated & (rows == k)] for k, system in enumerate(systems)}
