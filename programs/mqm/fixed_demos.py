"""The paper preset's fixed demos: 4 per stage-1 agent (3 for its dimension + 1 non-translation).

The published code shows every stage-1 agent three fixed demos of its dimension and one
non-translation demo (the same for all four), chosen by hand per language pair. Here they are
chosen from the TED MQM annotations by a deterministic rule, so every run of a pair sees the same:

1. Pool: the TED file of the pair (``ted_file_for``: zh-en for into-English pairs, en-de otherwise);
   one item per (system, segment, rater) whose source and translation have at most 220 characters.
2. Order: per dimension, items sorted by ``sha256("<dimension>\\t<system>\\t<seg_id>\\t<rater>")``.
3. Classes: *major* (the dimension's errors all fit its schema, at least one major), *clean* (no
   error of any dimension), *minor* (the dimension's errors fit, all minor, at least one).
4. The dimension's demos are taken in turn from major, clean, minor, major, ... (the next item of
   that class in the order, skipping a source already shown), ``count - 1`` of them.
5. Last comes the non-translation demo, shared by the agents: the source of the first clean item in
   the order for ``"non-translation"`` paired with the translation of the next clean item from another
   talk, annotated as one major non-translation error spanning that translation.

The stage-1 ablation's coupled agent gets the same rule over all four dimensions (the key
``"coupled"``; an item qualifies only if all its errors fit the four dimensions' schemas).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

import dspy

from tribunal.eval.data.mqm_tsv import AnnotatedSegment, annotated_segments, read_mqm_tsv
from tribunal.programs.mqm.demos import MAX_CHARS, TED_FILES, _languages, dimension_errors, ted_file_for
from tribunal.signatures.mqm.dimensions import ASSESSORS
from tribunal.signatures.mqm.errors import DIMENSIONS, GUIDED_ERRORS, NON_TRANSLATION, DimensionError, tag

MT_INPUTS = ("source_lang", "target_lang", "source", "translation")
CLASS_CYCLE = ("major", "clean", "minor")


@dataclass(frozen=True)
class Pool:
    pair: str
    items: tuple[AnnotatedSegment, ...]
    talk: dict[tuple[str, int], str]


@lru_cache(maxsize=4)
def load_pool(path: Path, pair: str) -> Pool:
    rows = list(read_mqm_tsv(path))
    talk = {(row.system, row.seg_id): row.doc for row in rows}
    items = tuple(s for s in annotated_segments(rows) if len(s.source) <= MAX_CHARS and len(s.target) <= MAX_CHARS)
    return Pool(pair, items, talk)


def _ranked(items: tuple[AnnotatedSegment, ...], key: str) -> list[AnnotatedSegment]:
    def digest(s: AnnotatedSegment) -> str:
        return hashlib.sha256(f"{key}\t{s.system}\t{s.seg_id}\t{s.rater}".encode()).hexdigest()

    return sorted(items, key=digest)


def _severity_class(errors: list | None) -> str | None:
    if not errors:
        return None
    return "major" if any(e.severity == "major" for e in errors) else "minor"


def _pick(ranked: list[AnnotatedSegment], convert: Callable[[AnnotatedSegment], list | None], wanted: int):
    """``wanted`` (item, errors) pairs, cycling through the classes major, clean, minor."""
    queues: dict[str, list] = {name: [] for name in CLASS_CYCLE}
    for item in ranked:
        if not item.errors:
            queues["clean"].append((item, []))
            continue
        errors = convert(item)
        group = _severity_class(errors)
        if group:
            queues[group].append((item, errors))
    chosen, seen = [], set()
    while len(chosen) < wanted and any(queues.values()):
        for name in CLASS_CYCLE:
            while queues[name] and queues[name][0][0].source in seen:
                queues[name].pop(0)
            if queues[name] and len(chosen) < wanted:
                item, errors = queues[name].pop(0)
                seen.add(item.source)
                chosen.append((item, errors))
    return chosen


def _non_translation_pair(pool: Pool) -> tuple[str, str]:
    clean = [s for s in _ranked(pool.items, NON_TRANSLATION) if not s.errors]
    first = clean[0]
    other = next(s for s in clean[1:] if pool.talk[(s.system, s.seg_id)] != pool.talk[(first.system, first.seg_id)])
    return first.source, other.target


def _example(pair: str, source: str, translation: str, errors: list, with_rationale: bool) -> dspy.Example:
    extra = {"rationale": ""} if with_rationale else {}
    return dspy.Example(source=source, translation=translation, errors=errors, **extra,
                        **_languages(pair)).with_inputs(*MT_INPUTS)


def _coupled_errors(item: AnnotatedSegment, guided: bool) -> list[DimensionError] | None:
    errors = []
    for dimension in DIMENSIONS:
        typed = dimension_errors(item.errors, dimension, GUIDED_ERRORS[dimension] if guided else None)
        if typed is None:
            return None
        errors += tag(typed, dimension)
    return errors if len(errors) == len(item.errors) else None  # an error outside the four dimensions


def _agent_rule(agent: str, guided: bool, translation: str) -> tuple[Callable, DimensionError | None]:
    """``(item -> its errors for this agent or None, the non-translation error or None)``."""
    if agent == "coupled":
        nt = DimensionError(dimension="accuracy", span=translation, subcategory=NON_TRANSLATION, severity="major")
        return (lambda item: _coupled_errors(item, guided)), nt
    model = GUIDED_ERRORS[agent] if guided else ASSESSORS[agent].output_fields["errors"].annotation.__args__[0]
    # The brief assessors other than accuracy cannot express non-translation: no such demo for them.
    expressible = guided or agent == "accuracy"
    nt = model(span=translation, subcategory=NON_TRANSLATION, severity="major") if expressible else None
    return (lambda item: dimension_errors(item.errors, agent, model)), nt


def fixed_demos(root: str | Path, lp: str, count: int, coupled: bool = False,
                guided: bool = True) -> dict[str, list[dspy.Example]]:
    """``{predictor name: demos}`` by the rule above: the four dimension agents, or ``coupled``.

    ``guided``: the errors use the guided schemas (non-translation for every dimension); otherwise the
    brief assessors' schemas, with an empty rationale.
    """
    name = ted_file_for(lp)
    pool = load_pool(Path(root) / name, "en-de" if name == TED_FILES["en-de"] else "zh-en")
    source, translation = _non_translation_pair(pool)
    demos: dict[str, list[dspy.Example]] = {}
    for agent in (("coupled",) if coupled else DIMENSIONS):
        convert, nt = _agent_rule(agent, guided, translation)
        chosen = _pick(_ranked(pool.items, agent), convert, count - 1)
        demos[agent] = [_example(pool.pair, item.source, item.target, errors, not guided) for item, errors in chosen]
        if nt is not None:
            demos[agent].append(_example(pool.pair, source, translation, [nt], not guided))
    return demos
