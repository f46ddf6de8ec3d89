"""Few-shot demo pools built from Google's TED MQM annotations (never from the WMT23 test data).

Per dimension, a pool holds short segments rated by one rater: one with no error at all and others
with errors of that dimension, converted to the dimension's typed errors. M-MAD's demos follow its
``demo_rule`` (:func:`~tribunal.programs.mqm.fixed_demos.mmad_demos`): ``fixed`` is the paper preset's rule
(:mod:`tribunal.programs.mqm.fixed_demos`), ``seeded`` a seeded random choice. Either way a run's
demos are reproducible; optimizers may replace them.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Iterable, Protocol, get_args

import dspy

from tribunal.core.mqm_annotation import AnnotatedSegment, MQMRow
from tribunal.data.mqm_tsv import annotated_segments, read_mqm_tsv
from tribunal.signatures.mqm.errors import DIMENSIONS, GembaError
from tribunal.signatures.mqm.esa_spans import ESAError
from tribunal.signatures.mqm.dimensions import ASSESSORS
from tribunal.signatures.mqm.item_fields import MT_ITEM_FIELDS

TED_FILES = {"en-de": "mqm_ted_ende.tsv", "zh-en": "mqm_ted_zhen.tsv"}
LANGUAGES = {"en": "English", "de": "German", "zh": "Chinese", "he": "Hebrew", "ja": "Japanese", "ru": "Russian",
             "cs": "Czech", "uk": "Ukrainian"}
MAX_CHARS = 220


class HumanAnnotation(Protocol):
    """What the converters read of one human error (an :class:`MQMRow` has all of it)."""

    category: str
    severity: str | None
    is_source_error: bool

    @property
    def span(self) -> str | None: ...


def ted_file_for(lp: str) -> str:
    """The TED MQM file closest to ``lp``: into-English pairs use zh-en, others en-de."""
    return TED_FILES.get(lp) or (TED_FILES["zh-en"] if lp.endswith("-en") else TED_FILES["en-de"])


def split_category(category: str) -> tuple[str, str]:
    """``"Accuracy/Mistranslation"`` -> ``("accuracy", "mistranslation")``."""
    dimension, _, sub = category.partition("/")
    return dimension.strip().lower(), sub.strip().lower()


def dimension_errors(rows: Iterable[HumanAnnotation], dimension: str, model: type | None = None) -> list | None:
    """The annotations of ``dimension`` as the dimension agent's typed errors, or None if one does not fit.

    ``rows`` are :class:`MQMRow` or anything with the same ``category``, ``severity``, ``span`` and
    ``is_source_error`` (e.g. the human labels of a training example, :mod:`tribunal.programs.mqm.labels`).
    ``model`` is the error type (default: the brief assessor's, ``signatures/mqm/dimensions.py``).
    """
    model = model or ASSESSORS[dimension].output_fields["errors"].annotation.__args__[0]
    allowed = set(get_args(model.model_fields["subcategory"].annotation))
    typed = []
    for row in rows:
        dim, sub = split_category(row.category)
        if dim != dimension:
            continue
        if sub not in allowed or row.span is None or row.severity not in ("minor", "major"):
            return None
        typed.append(model(span=row.span, subcategory=sub, severity=row.severity, is_source_error=row.is_source_error))
    return typed


def _languages(lp: str) -> dict[str, str]:
    src, _, tgt = lp.partition("-")
    return {"source_lang": LANGUAGES.get(src, src), "target_lang": LANGUAGES.get(tgt, tgt)}


def _example(segment: AnnotatedSegment, lp: str, errors: list) -> dspy.Example:
    return dspy.Example(source=segment.source, translation=segment.target, rationale="", errors=errors,
                        **_languages(lp)).with_inputs(*MT_ITEM_FIELDS)


def load_segments(root: str | Path, lp: str) -> tuple[str, list[AnnotatedSegment]]:
    """``(the TED pair used, its short annotated segments)``."""
    name = ted_file_for(lp)
    pool_lp = "en-de" if name == TED_FILES["en-de"] else "zh-en"
    segments = annotated_segments(read_mqm_tsv(Path(root) / name))
    return pool_lp, [s for s in segments if len(s.source) <= MAX_CHARS and len(s.target) <= MAX_CHARS]


def dimension_demos(root: str | Path, lp: str, per_dimension: int, seed: int = 0) -> dict[str, list[dspy.Example]]:
    """``{dimension: demos}``: one clean segment and ``per_dimension - 1`` with errors of the dimension."""
    pool_lp, segments = load_segments(root, lp)
    clean = [s for s in segments if not s.errors]
    demos: dict[str, list[dspy.Example]] = {}
    for index, dimension in enumerate(DIMENSIONS):
        rng = random.Random(seed * 1000 + index)
        with_errors = [(s, e) for s in segments if s.errors for e in [dimension_errors(s.errors, dimension)] if e]
        chosen = [_example(s, pool_lp, e) for s, e in rng.sample(with_errors, min(per_dimension - 1, len(with_errors)))]
        if per_dimension > 0 and clean:
            chosen.insert(0, _example(rng.choice(clean), pool_lp, []))
        demos[dimension] = chosen[:per_dimension]
    return demos


def gemba_demos(root: str | Path, lp: str, count: int = 3, seed: int = 0) -> list[dspy.Example]:
    """GEMBA-MQM's fixed demos: ``count`` segments (one clean), errors in GEMBA's scheme."""
    pool_lp, segments = load_segments(root, lp)
    rng = random.Random(seed)
    clean = [s for s in segments if not s.errors]
    usable = [s for s in segments if s.errors and all(r.span is not None for r in s.errors)]
    picked = ([rng.choice(clean)] if clean else []) + rng.sample(usable, min(count - 1, len(usable)))
    return [dspy.Example(source=segment.source, translation=segment.target, errors=gemba_errors(segment.errors),
                         **_languages(pool_lp)).with_inputs(*MT_ITEM_FIELDS)
            for segment in picked[:count]]


def gemba_errors(rows: Iterable[HumanAnnotation]) -> list[GembaError]:
    """Annotations (with spans) in GEMBA's scheme: the MQM dimension as category, unknown ones "other"."""
    errors = []
    for row in rows:
        dim, sub = split_category(row.category)
        category = dim if dim in DIMENSIONS else "other"
        errors.append(GembaError(span=row.span, category=category, subcategory=sub,
                                 severity=row.severity if row.severity in ("minor", "major", "critical") else "minor",
                                 is_source_error=row.is_source_error))
    return errors


def as_esa(error: GembaError) -> ESAError:
    """A GEMBA error in ESA's scheme: the same span and category, critical counted as major."""
    return ESAError(**error.model_dump() | {"severity": "minor" if error.severity == "minor" else "major"})


def esa_errors(rows: Iterable[HumanAnnotation]) -> list[ESAError]:
    """Annotations (with spans) in ESA's scheme (:func:`gemba_errors`, then :func:`as_esa`)."""
    return [as_esa(error) for error in gemba_errors(rows)]


def esa_demos(root: str | Path, lp: str, count: int = 3, seed: int = 0) -> list[dspy.Example]:
    """GEMBA-ESA's fixed demos: GEMBA-MQM's segments, with errors in ESA's two severities."""
    return [demo.copy(errors=[as_esa(e) for e in demo.errors]) for demo in gemba_demos(root, lp, count, seed)]
