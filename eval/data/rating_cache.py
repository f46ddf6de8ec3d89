"""A parsed rating file as the arrays a :class:`~tribunal.eval.data.score_cache.ScoreCache` entry holds.

:func:`encode_ratings` flattens ``{system: [Rating per segment]}`` into one row per line (its system and
its error count, -1 for an unrated ``None``) and one row per error (offsets, category and severity as
indices into their distinct names, the score with a flag for "no score", the source-error flag);
:func:`decode_ratings` rebuilds exactly what :func:`~tribunal.eval.data.ratings.parse_ratings`
returned (the round trip is tested against a fresh parse).
"""

from __future__ import annotations

import numpy as np

from tribunal.core.rating import ErrorSpan, Rating
from tribunal.eval.data.score_cache import Parsed


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


def decode_ratings(parsed: Parsed) -> dict[str, list[Rating]]:
    """``{system: [Rating per segment]}`` from :func:`encode_ratings`'s arrays."""
    systems, categories, severities = (parsed.strings[k] for k in ("systems", "categories", "severities"))
    a = parsed.arrays
    scores = [s if given else None for s, given in zip(a["score"].tolist(), a["has_score"].tolist())]
    spans = [ErrorSpan(start, end, categories[c], severities[v], score, bool(source))
             for start, end, c, v, score, source in zip(a["start"].tolist(), a["end"].tolist(), a["category"].tolist(),
                                                        a["severity"].tolist(), scores, a["source_error"].tolist())]
    ratings: dict[str, list[Rating]] = {system: [] for system in systems}
    at = 0
    for system, count in zip(a["row_system"].tolist(), a["row_errors"].tolist()):
        if count < 0:
            ratings[systems[system]].append(None)
        else:
            ratings[systems[system]].append(tuple(spans[at:at + count]))
            at += count
    return ratings


def rated_segments(parsed: Parsed) -> dict[str, np.ndarray]:
    """``{system: the segments it has a rating for}`` (not ``None``), from the arrays alone."""
    systems, a = parsed.strings["systems"], parsed.arrays
    rows = a["row_system"]
    segment = np.arange(len(rows)) - np.searchsorted(rows, rows)  # rows are grouped by system, in order
    rated = a["row_errors"] >= 0
    return {system: segment[rated & (rows == k)] for k, system in enumerate(systems)}
