"""Training and dev data for optimizers, named by a SPEC string; WMT23 is refused (test data only).

SPECs (``A-B`` is the half-open item range ``[A, B)``; ``A-`` runs to the end; no range = all):

- ``mqm-ted:LP[:A-B]`` -- TED MQM annotations of language pair ``en-de`` or ``zh-en``, read from
  ``$TRIBUNAL_DATA/mqm-ted`` (``~/.tribunal/data/mqm-ted`` otherwise). ``mqm-ted:FILE.tsv[:A-B]``
  reads any TSV of the same format. One item = one rater's annotation of one system output.
- ``suite[:FILE.jsonl][:A-B]`` -- pairs of the perturbation suite (the shipped one by default),
  labelled "same" (wording-only, wording-chain, alias-chain) or "different" (the swaps, minimal or whole-step).
- ``pairs:FILE.jsonl[:A-B]`` -- a labelled pair file (``tribunal.eval.equiv.pairs``: each line
  ``{"id", "kind", "label": "same"|"different", "a", "b"}``); the label is the gold verdict.
- ``mlflow:EXPERIMENT[:A-B][?FILTER]`` -- traces of an MLflow experiment a person labelled (in the
  UI, or with ``mlflow.log_expectation`` / ``log_feedback``), read from the command's tracking
  store (:mod:`tribunal.optimizers.mlflow_data`); traces without a usable label are counted and
  skipped (``TrainingData.skipped``).

A range past the end of the data is an error, never silently clamped; ``--train`` and ``--dev``
must not share items (:func:`check_disjoint`).
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from tribunal.errors import UserError
from tribunal.eval.tracking.signature import text_hash
from tribunal.optimizers.example_inputs import EQUIV_INPUTS, MT_INPUTS, human_mqm_score
from tribunal.data.mqm_tsv import annotated_segments, read_mqm_tsv
from tribunal.optimizers.ted_inputs import attach_ted_inputs

MQM_TED_FILES = {"en-de": "mqm_ted_ende.tsv", "zh-en": "mqm_ted_zhen.tsv"}
_RANGE = re.compile(r"^(\d+)-(\d*)$")
_LANGS = {"en": "English", "de": "German", "zh": "Chinese"}


@dataclass(frozen=True)
class TrainingData:
    """Examples loaded from a SPEC, with the judge kind they train and a content hash."""

    spec: str
    kind: str  # "mt" or "equiv"
    examples: list[Any]
    hash: str
    skipped: Counter = field(default_factory=Counter)
    """Items of the source left out, by reason (traces without a usable human label)."""
    origin: str | None = None
    """Where the items were read from, when it is not a file (an MLflow store and experiment)."""

    @property
    def label(self) -> str:
        """``source/args/range@hash`` for signatures (``:`` separates a signature's keys from values)."""
        return f"{self.spec.split('?')[0].replace(':', '/')}@{self.hash}"


@dataclass
class Loaded:
    """What a SPEC source read: its examples and their kind (and, for traces, what it skipped)."""

    examples: list[Any]
    kind: str
    skipped: Counter = field(default_factory=Counter)
    origin: str | None = None


def refuse_test_data(spec: str, option: str) -> None:
    """WMT23 is the test set of the meta-evaluation: refuse any SPEC that names or points into it."""
    candidates = [spec]
    for part in spec.split(":"):
        if part and ("/" in part or part.endswith((".tsv", ".jsonl"))):
            candidates.append(str(Path(part).expanduser().resolve()))
    if any("wmt23" in text.lower() for text in candidates):
        raise UserError(f"{option} {spec}: WMT23 is test data only; tune on mqm-ted:LP or suite, never on WMT23")


def _split_range(parts: list[str]) -> tuple[list[str], slice]:
    if parts and _RANGE.match(parts[-1]):
        start, stop = _RANGE.match(parts[-1]).groups()
        if stop and int(stop) <= int(start):
            raise UserError(f"empty item range {parts[-1]} (expected A-B with B > A)")
        return parts[:-1], slice(int(start), int(stop) if stop else None)
    return parts, slice(None)


def _data_root() -> Path:
    if os.environ.get("TRIBUNAL_DATA"):
        return Path(os.environ["TRIBUNAL_DATA"]).expanduser()
    return Path.home() / ".tribunal" / "data"


def _ted_file(args: list[str]) -> tuple[Path, str]:
    """The TED MQM file an ``mqm-ted`` SPEC names, and its language pair."""
    if len(args) != 1:
        raise UserError("mqm-ted SPEC: expected mqm-ted:LP[:A-B] (LP: en-de or zh-en) or mqm-ted:FILE.tsv[:A-B]")
    target = args[0]
    if target in MQM_TED_FILES:
        path, lp = _data_root() / "mqm-ted" / MQM_TED_FILES[target], target
    else:
        path = Path(target).expanduser()
        match = re.search(r"(en|zh)(de|en)", path.stem)
        lp = f"{match.group(1)}-{match.group(2)}" if match else ""
    if not path.is_file():
        raise UserError(f"{path}: no such TED MQM file (set TRIBUNAL_DATA to the folder holding mqm-ted/)")
    return path, lp


def _mqm_ted(args: list[str], where: "SpecPlace") -> Loaded:
    import dspy  # heavy: dspy, pydantic


    path, lp = _ted_file(args)
    source_lang, _, target_lang = lp.partition("-")
    examples = []
    for segment in annotated_segments(read_mqm_tsv(path)):
        errors = [{"start": e.start, "end": e.end, "severity": e.severity, "category": e.category,
                   "is_source_error": e.is_source_error} for e in segment.errors]
        examples.append(dspy.Example(
            source=segment.source, translation=segment.target,
            source_lang=_LANGS.get(source_lang, source_lang), target_lang=_LANGS.get(target_lang, target_lang),
            gold_score=human_mqm_score(errors), gold_errors=errors,
            system=segment.system, seg_id=segment.seg_id, rater=segment.rater,
        ).with_inputs(*MT_INPUTS))
    return Loaded(examples, "mt")


def _equiv_examples(suite: Any) -> list[Any]:
    import dspy  # heavy: dspy, pydantic

    return [dspy.Example(
        hypothesis_a=pair.original.render(), hypothesis_b=pair.perturbed.render(),
        kind=pair.kind, verdict="same" if pair.expected_same else "different", pair_id=pair.id,
    ).with_inputs(*EQUIV_INPUTS) for pair in suite.pairs]


def _pairs(args: list[str], where: "SpecPlace") -> Loaded:
    from tribunal.eval.equiv.pairs import load_pairs  # heavy: pulls in sklearn, pandas

    if len(args) != 1:
        raise UserError("pairs SPEC: expected pairs:FILE.jsonl[:A-B]")
    path = Path(args[0]).expanduser()
    if not path.is_file():
        raise UserError(f"{path}: no such pairs file")
    return Loaded(_equiv_examples(load_pairs(path)), "equiv")  # a DataFormatError names the file and line


def _suite(args: list[str], where: "SpecPlace") -> Loaded:
    from tribunal.eval.equiv.suite import load_suite  # heavy: pulls in sklearn, pandas

    if len(args) > 1:
        raise UserError("suite SPEC: expected suite[:FILE.jsonl][:A-B]")
    try:
        suite = load_suite(Path(args[0]).expanduser() if args else None)
    except (OSError, ValueError) as err:
        raise UserError(f"suite SPEC: {err}") from None
    return Loaded(_equiv_examples(suite), "equiv")


@dataclass(frozen=True)
class SpecPlace:
    """What a SPEC source may need beside its arguments: the ``?FILTER`` part and the tracking store."""

    query: str | None = None
    tracking_uri: str | None = None


def _mlflow(args: list[str], where: SpecPlace) -> Loaded:
    from tribunal.eval.tracking.mlflow_run import DEFAULT_TRACKING_URI  # heavy: pulls in pydantic
    from tribunal.optimizers.mlflow_data import load_trace_slice  # heavy: pulls in mlflow

    if not args:
        raise UserError("mlflow SPEC: expected mlflow:EXPERIMENT[:A-B][?FILTER]")
    uri = where.tracking_uri or DEFAULT_TRACKING_URI
    found = load_trace_slice(":".join(args), where.query, uri)
    return Loaded(found.examples, found.kind, found.skipped, f"{uri}#experiment={':'.join(args)}")


SOURCES: dict[str, Callable[[list[str], SpecPlace], Loaded]] = {
    "mqm-ted": _mqm_ted, "suite": _suite, "pairs": _pairs, "mlflow": _mlflow}


def load_training_data(spec: str, option: str = "--train", inputs: Any = None,
                       tracking_uri: str | None = None) -> TrainingData:
    """Examples named by ``spec``; a clear one-line error for WMT23, unknown sources and empty slices.

    ``inputs`` (a ``SegmentInputs`` of the program) adds each example's reference and context
    (TED MQM only: :mod:`tribunal.optimizers.ted_inputs`); ``tracking_uri``: the store ``mlflow:``
    SPECs read (default: ``sqlite:///mlflow.db``).
    """
    refuse_test_data(spec, option)
    head, _, query = spec.partition("?") if spec.startswith("mlflow:") else (spec, "", "")
    source, *rest = head.split(":")
    if source not in SOURCES:
        raise UserError(f"{option} {spec}: unknown data source {source!r} (have {', '.join(SOURCES)})")
    args, items = _split_range(rest)
    loaded = SOURCES[source](args, SpecPlace(query.strip() or None, tracking_uri))
    examples, kind = loaded.examples, loaded.kind
    if not examples and loaded.skipped:
        reasons = ", ".join(f"{n} {reason}" for reason, n in loaded.skipped.most_common())
        raise UserError(f"{option} {spec}: no labelled items (skipped {sum(loaded.skipped.values())}: {reasons})")
    if inputs is not None and inputs.used:
        if source != "mqm-ted":
            raise UserError(f"{option} {spec}: --set reference / context need MT training data with references and "
                            "documents (mqm-ted:LP)")

        examples = attach_ted_inputs(_ted_file(args)[0], examples, inputs, f"{option} {spec}")
    start = items.start or 0
    if start >= len(examples):
        raise UserError(f"{option} {spec}: no items in that range (the data has {len(examples)} items)")
    if items.stop is not None and items.stop > len(examples):
        raise UserError(f"{option} {spec}: range ends at {items.stop} but the data has {len(examples)} items "
                        f"(use {start}-{len(examples)} or {start}-)")
    examples = examples[items]
    canonical = json.dumps([dict(e.items()) for e in examples], sort_keys=True, ensure_ascii=False, default=str)
    return TrainingData(spec=spec, kind=kind, examples=examples, hash=text_hash(canonical), skipped=loaded.skipped,
                        origin=loaded.origin)


def item_key(example: Any) -> str:
    """What makes two examples the same item: all their fields (two raters' annotations of one
    segment are two items; the same pair loaded twice is one)."""
    return json.dumps(dict(example.items()), sort_keys=True, ensure_ascii=False, default=str)


def check_disjoint(train: TrainingData, dev: TrainingData) -> None:
    """Refuse dev data that repeats training items: the dev score would reward memorised demos."""
    if train.hash == dev.hash:
        raise UserError(f"--train {train.spec} and --dev {dev.spec} are the same data; "
                        "hold out dev items (e.g. --train suite:0-80 --dev suite:80-)")
    seen = {item_key(e) for e in train.examples}
    shared = sum(item_key(e) in seen for e in dev.examples)
    if shared:
        raise UserError(f"--train {train.spec} and --dev {dev.spec} share {shared} of {len(dev.examples)} dev items; "
                        "use disjoint ranges")
