"""The paper preset's fixed demos: 4 per stage-1 agent (3 for its dimension + 1 non-translation).

The published code (``code/few_shot_demos{,_de,_he}.py``) shows every stage-1 agent three fixed
demos of its dimension and one non-translation demo (the same for all four), hand-picked per
language pair. Their severities, in order (``PUBLISHED_MIX``):

=============  ==========================  ==========================
dimension      zh-en, en-de                he-en
=============  ==========================  ==========================
accuracy       major, clean, minor         minor, clean, minor
fluency        minor, clean, minor         minor, clean, minor
terminology    clean, minor, clean         clean, minor, clean
style          minor, clean, minor         minor, clean, minor
=============  ==========================  ==========================

Majors appear only in accuracy (zh-en, en-de). Here the demos are chosen from the TED MQM
annotations by a deterministic rule with that mix, so every run of a pair sees the same:

1. Pool: the TED file of the pair (``ted_file_for``: zh-en for into-English pairs, en-de otherwise);
   one item per (system, segment, rater) whose source and translation have at most 220 characters.
2. Order: per dimension, items sorted by ``sha256("<dimension>\\t<system>\\t<seg_id>\\t<rater>")``.
3. Classes: *major* (the dimension's errors all fit its schema, at least one major), *clean* (no
   error of any dimension), *minor* (the dimension's errors fit, all minor, at least one).
4. The dimension's demos follow the pair's mix (``mix_for``: the published one for zh-en, en-de and
   he-en, the zh-en / en-de one for any other pair), repeated when more are asked for: each the next
   item of its class in the order, skipping a source already shown; ``count - 1`` of them.
5. Last comes the non-translation demo, shared by the agents: a source with a *related but wrong*
   translation, as in the published zh-en demo. The source is that of the first clean item in the
   order for ``"non-translation"`` whose next segment in the same talk (the previous one at a talk's
   end), translated by the same system, has another source and a translation of at most 220
   characters; that neighbour's translation is the demo's translation, annotated as one major
   non-translation error spanning it.

The stage-1 ablation's coupled agent gets the same rule over all four dimensions (the key
``"coupled"``; an item qualifies only if all its errors fit the four dimensions' schemas), with the
pair's accuracy mix (the published code has no ablation to copy).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

import dspy

from tribunal.core.mqm_annotation import AnnotatedSegment, MQMRow
from tribunal.data.mqm_tsv import annotated_segments, parse_mqm_tsv, read_mqm_tsv
from tribunal.data.score_cache import ScoreCache
from tribunal.programs.mqm.fixed_demos_cache import Chosen, cached_choice
from tribunal.programs.mqm.demos import (MAX_CHARS, TED_FILES, _languages, dimension_demos, dimension_errors,
                                         ted_file_for)
from tribunal.programs.mqm.presets import DEFAULT_DEMOS
from tribunal.signatures.mqm.dimensions import ASSESSORS
from tribunal.signatures.mqm.errors import DIMENSIONS, GUIDED_ERRORS, NON_TRANSLATION, DimensionError, tag
from tribunal.signatures.mqm.item_fields import MT_ITEM_FIELDS

_MAJORS_IN_ACCURACY = {"accuracy": ("major", "clean", "minor"), "fluency": ("minor", "clean", "minor"),
                       "terminology": ("clean", "minor", "clean"), "style": ("minor", "clean", "minor")}
PUBLISHED_MIX: dict[str, dict[str, tuple[str, ...]]] = {
    "zh-en": _MAJORS_IN_ACCURACY,
    "en-de": _MAJORS_IN_ACCURACY,
    "he-en": {**_MAJORS_IN_ACCURACY, "accuracy": ("minor", "clean", "minor")},
}
"""The severity classes of the published demos, per pair and dimension, in the order shown."""


def mix_for(lp: str, agent: str) -> tuple[str, ...]:
    """The classes ``agent``'s demos follow for pair ``lp`` (``coupled``: the pair's accuracy mix)."""
    mix = PUBLISHED_MIX.get(lp, _MAJORS_IN_ACCURACY)
    return mix["accuracy" if agent == "coupled" else agent]


@dataclass(frozen=True)
class Pool:
    pair: str
    items: tuple[AnnotatedSegment, ...]
    talk: dict[tuple[str, int], str]
    texts: dict[tuple[str, int], tuple[str, str]]  # (system, seg_id) -> (source, translation), every length


@lru_cache(maxsize=4)
def load_pool(path: Path, pair: str) -> Pool:
    """The demo pool of a TED MQM file (read once per process)."""
    return pool_of(pair, list(read_mqm_tsv(path)))


def pool_of(pair: str, rows: list[MQMRow]) -> Pool:
    """The demo pool of a TED MQM file's rows: step 1 of the rule (module docstring)."""
    talk = {(row.system, row.seg_id): row.doc for row in rows}
    texts = {(row.system, row.seg_id): (row.source, row.target) for row in rows}
    items = tuple(s for s in annotated_segments(rows) if len(s.source) <= MAX_CHARS and len(s.target) <= MAX_CHARS)
    return Pool(pair, items, talk, texts)


def _ranked(items: tuple[AnnotatedSegment, ...], key: str) -> list[AnnotatedSegment]:
    def digest(s: AnnotatedSegment) -> str:
        return hashlib.sha256(f"{key}\t{s.system}\t{s.seg_id}\t{s.rater}".encode()).hexdigest()

    return sorted(items, key=digest)


def _severity_class(errors: list | None) -> str | None:
    if not errors:
        return None
    return "major" if any(e.severity == "major" for e in errors) else "minor"


def _pick(ranked: list[AnnotatedSegment], convert: Callable[[AnnotatedSegment], list | None], wanted: int,
          mix: tuple[str, ...]):
    """``wanted`` (item, errors) pairs whose classes follow ``mix``, repeated (a class with none left is skipped)."""
    queues: dict[str, list] = {name: [] for name in ("major", "clean", "minor")}
    for item in ranked:
        if not item.errors:
            queues["clean"].append((item, []))
            continue
        errors = convert(item)
        group = _severity_class(errors)
        if group:
            queues[group].append((item, errors))
    chosen, seen = [], set()
    while len(chosen) < wanted and any(queues[name] for name in mix):
        for name in mix:
            while queues[name] and queues[name][0][0].source in seen:
                queues[name].pop(0)
            if queues[name] and len(chosen) < wanted:
                item, errors = queues[name].pop(0)
                seen.add(item.source)
                chosen.append((item, errors))
    return chosen


def _neighbour(pool: Pool, item: AnnotatedSegment) -> str | None:
    """The translation of the item's next segment in its talk (else the previous), by the same system,
    when it translates another source and is at most ``MAX_CHARS`` long."""
    talk = pool.talk[(item.system, item.seg_id)]
    for seg_id in (item.seg_id + 1, item.seg_id - 1):
        key = (item.system, seg_id)
        if pool.talk.get(key) != talk:
            continue
        source, translation = pool.texts[key]
        if source != item.source and translation != item.target and len(translation) <= MAX_CHARS:
            return translation
    return None


def _non_translation_pair(pool: Pool) -> tuple[str, str]:
    """A source and a related but wrong translation: the rule's step 5 (module docstring)."""
    for item in _ranked(pool.items, NON_TRANSLATION):
        if not item.errors and (translation := _neighbour(pool, item)) is not None:
            return item.source, translation
    raise ValueError(f"TED MQM {pool.pair}: no clean segment with a usable neighbouring segment for the "
                     "non-translation demo")


def _example(pair: str, source: str, translation: str, errors: list, with_rationale: bool) -> dspy.Example:
    extra = {"rationale": ""} if with_rationale else {}
    return dspy.Example(source=source, translation=translation, errors=errors, **extra,
                        **_languages(pair)).with_inputs(*MT_ITEM_FIELDS)


def _coupled_errors(item: AnnotatedSegment, guided: bool) -> list[DimensionError] | None:
    errors = []
    for dimension in DIMENSIONS:
        typed = dimension_errors(item.errors, dimension, GUIDED_ERRORS[dimension] if guided else None)
        if typed is None:
            return None
        errors += tag(typed, dimension)
    return errors if len(errors) == len(item.errors) else None  # an error outside the four dimensions


def error_model(agent: str, guided: bool) -> type:
    """The error type of ``agent``'s demos: the guided schema, the brief assessor's, or ``DimensionError``."""
    if agent == "coupled":
        return DimensionError
    return GUIDED_ERRORS[agent] if guided else ASSESSORS[agent].output_fields["errors"].annotation.__args__[0]


def _agent_rule(agent: str, guided: bool, translation: str) -> tuple[Callable, DimensionError | None]:
    """``(item -> its errors for this agent or None, the non-translation error or None)``."""
    model = error_model(agent, guided)
    if agent == "coupled":
        nt = model(dimension="accuracy", span=translation, subcategory=NON_TRANSLATION, severity="major")
        return (lambda item: _coupled_errors(item, guided)), nt
    # The brief assessors other than accuracy cannot express non-translation: no such demo for them.
    expressible = guided or agent == "accuracy"
    nt = model(span=translation, subcategory=NON_TRANSLATION, severity="major") if expressible else None
    return (lambda item: dimension_errors(item.errors, agent, model)), nt


def choose_demos(pool: Pool, lp: str, count: int, coupled: bool = False, guided: bool = True) -> Chosen:
    """Steps 2-5 of the rule over ``pool`` for pair ``lp``: each agent's ``count`` demos."""
    source, translation = _non_translation_pair(pool)
    chosen: Chosen = {}
    for agent in (("coupled",) if coupled else DIMENSIONS):
        convert, nt = _agent_rule(agent, guided, translation)
        picked = _pick(_ranked(pool.items, agent), convert, count - 1, mix_for(lp, agent))
        chosen[agent] = [(item.source, item.target, errors) for item, errors in picked]
        if nt is not None:
            chosen[agent].append((source, translation, [nt]))
    return chosen


RULE_VERSION = 1
"""Bumped when the rule above chooses differently: a cached choice of another version is not used."""


def _setting(lp: str, count: int, coupled: bool, guided: bool) -> list[Any]:
    """Everything besides the TED file that a choice depends on (its cache key)."""
    agents = ("coupled",) if coupled else DIMENSIONS
    fields = {agent: [f"{name}:{info.annotation}" for name, info in error_model(agent, guided).model_fields.items()]
              for agent in agents}
    return [RULE_VERSION, {agent: mix_for(lp, agent) for agent in agents}, count, coupled, guided, fields]


def pool_pair(lp: str) -> tuple[str, str]:
    """``(TED file name, its pair)`` of the pool a run of ``lp`` draws its demos from."""
    name = ted_file_for(lp)
    return name, "en-de" if name == TED_FILES["en-de"] else "zh-en"


def fixed_demos(root: str | Path, lp: str, count: int, coupled: bool = False, guided: bool = True,
                cache: ScoreCache | None = None) -> dict[str, list[dspy.Example]]:
    """``{predictor name: demos}`` by the rule above: the four dimension agents, or ``coupled``.

    ``lp`` is the pair judged: it picks the TED pool and the severity mix. ``guided``: the errors use
    the guided schemas (non-translation for every dimension); otherwise the brief assessors' schemas,
    with an empty rationale. ``cache``: the choice is kept across runs, keyed by the TED file
    (:mod:`tribunal.programs.mqm.fixed_demos_cache`), so a run does not parse and rank it again.
    """
    name, pair = pool_pair(lp)
    path = Path(root) / name
    if cache is None:
        chosen = choose_demos(load_pool(path, pair), lp, count, coupled, guided)
    else:
        chosen = cached_choice(cache, path, _setting(lp, count, coupled, guided),
                               lambda content: choose_demos(pool_of(pair, list(parse_mqm_tsv(path, content))), lp,
                                                            count, coupled, guided),
                               lambda agent: error_model(agent, guided))
    return {agent: [_example(pair, source, translation, errors, not guided) for source, translation, errors in demos]
            for agent, demos in chosen.items()}


def mmad_demos(config: Any, root: str | Path, lp: str, count: int) -> dict[str, list[dspy.Example]]:
    """``{predictor name: demos}`` for an M-MAD program built from ``config`` (an ``MMADConfig``).

    ``fixed`` (paper preset): ``count`` demos per stage-1 agent, the coupled agent of the stage-1
    ablation included; ``seeded`` (lean preset): ``count`` per dimension agent, none without stage 1.
    """
    if count <= 0:
        return {}
    coupled = "stage1" in config.ablate
    if config.demo_rule == "fixed":
        return fixed_demos(root, lp, count, coupled=coupled, guided=config.assessors == "guideline",
                           cache=ScoreCache.default())
    return {} if coupled else dimension_demos(root, lp, count)


class MMADDemoPlan:
    """M-MAD's default demos (its registry entry's plan): ``--demos`` per stage-1 agent, else the preset's."""

    def count(self, settings: Any, requested: int | None = None) -> int:
        """Demos per agent: ``requested`` (``--demos``), else the preset's default (4 paper, 2 lean)."""
        return DEFAULT_DEMOS[settings.demo_rule] if requested is None else requested

    def build(self, settings: Any, root: Any, lp: str, count: int) -> dict[str, list[dspy.Example]]:
        """``{predictor: demos}`` (:func:`mmad_demos`); ``root()`` is asked for only when a demo is needed."""
        return mmad_demos(settings, root(), lp, count) if count else {}


MMAD_DEMOS = MMADDemoPlan()
