"""The signature of each task's run: its fields, in the order they are written (one class per task).

Rendering, escaping and parsing are :class:`~tribunal.eval.tracking.signature.Signature`'s; a field that is
None is left out. A value already joined by its caller (a judge's settings, ``roles``, ``set``) is one
string (as are the rules of the equivalence and hypothesis tasks); a ``tuple`` field is joined with ``,`` here.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tribunal.eval.tracking.signature import VERSION, Signature


class MTEvaluateSignature(Signature):
    """``mt evaluate``: what an item's judgment depends on (keys the run journal), then the data slice."""

    prog: str
    tuned: str | None = None
    judge: dict[str, str] = {}
    """The judge's own settings, as its settings model writes them (``JudgeSettings.signature_fields``): open,
    each item a field of its own (M-MAD: ``preset``, ``strategy``, ``rounds``, ``topic``, ``ablate``,
    ``tweaks``; an ablation-only judge: ``ablate``; any other: ``settings``, every setting with its default)."""
    lm: str
    endpoint: str
    temp: float | None = None
    max_tokens: int | None = None
    reasks: int
    """Re-asks change which items end scored: a journal of another ``--reasks`` is never reused."""
    roles: str = "none"
    demos: int
    ref: str | None = None
    ctx: int | None = None
    samples: int | None = None
    combine: str | None = None
    strict: Literal["yes"] | None = None
    lp: str
    data: str | None = None
    """The data slice (``FOLDER/LP@hash``): in the run's signature, not in the journal's."""
    degraded: Literal["exclude"] | None = None
    v: str = VERSION


class OptimizeSignature(Signature):
    """``optimize``: the program, optimizer, LMs, metric and data slices of one tuning run."""

    prog: str
    set: str | None = None
    opt: str
    budget: int | None = None
    lm: str
    endpoint: str
    reasks: int
    teacher: str | None = None
    prompt: str | None = None
    metric: str
    objective: str
    train: str
    dev: str
    seed: int
    v: str = VERSION


class EquivAuditSignature(Signature):
    """``equiv audit``: each rule's setting (thresholds pinned), repeats and the suite."""

    task: Literal["equiv-audit"] = "equiv-audit"
    rules: str
    """Each rule's setting, joined with ``,`` (a setting holds commas of its own: one string)."""
    repeats: int
    data: str
    v: str = VERSION


class EquivGenerateSignature(Signature):
    """``equiv generate``: the generator LM, its temperature and attempts, and the suite."""

    task: Literal["equiv-generate"] = "equiv-generate"
    lm: str
    temp: float
    attempts: int
    data: str
    v: str = VERSION


class HypRunSignature(Signature):
    """``hyp run``: the instances (each hashed), depths, reruns and LMs."""

    task: Literal["hyp-run"] = "hyp-run"
    instances: str
    depths: tuple[int, ...]
    reruns: int
    per_opening: int | None = None
    lm: str | None = None
    judge: str | None = None
    v: str = VERSION


class HypDivergenceSignature(Signature):
    """``hyp divergence``: the rules, the matching and test, and the run folder (hashed)."""

    task: Literal["hyp-divergence"] = "hyp-divergence"
    rules: str
    matching: str
    test: str
    runs: str
    v: str = VERSION


class MetaEvalSignature(Signature):
    """``mt meta-eval``: the protocol's primary table over the metrics and data."""

    task: str = Field(pattern=r"^.+-primary$")
    metrics: int
    data: str
    significance: int | None = None
    seed: int | None = None
    coverage: Literal["limited"] | None = None
    degraded: Literal["exclude"] | None = None
    v: str = VERSION


class CompareSignature(Signature):
    """``mt compare``: two metrics under the protocol's paired permutation test."""

    task: str = Field(pattern=r"^.+-compare$")
    a: str
    b: str
    test: Literal["paired-permutation"] = "paired-permutation"
    samples: int
    seed: int
    data: str
    v: str = VERSION


class AgreementSignature(Signature):
    """``mt agreement``: raters (and a judge) on the same items."""

    task: Literal["agreement"] = "agreement"
    raters: int
    judge: str | None = None
    items: int
    samples: int
    seed: int
    kappa: str
    data: str
    v: str = VERSION


class SpanSignature(Signature):
    """A span measure's settings (:class:`tribunal.eval.meta.spans.options.SpanOptions`); ``v`` is the span
    scoring's own version, not tribunal's."""

    m: str
    match: str
    assign: str
    avg: str
    sevpen: str
    sevw: str
    side: str
    v: str = "1"


TASK_SIGNATURES: tuple[type[Signature], ...] = (
    MTEvaluateSignature, OptimizeSignature, EquivAuditSignature, EquivGenerateSignature, HypRunSignature,
    HypDivergenceSignature, MetaEvalSignature, CompareSignature, AgreementSignature, SpanSignature)
"""Every task's signature class (the round-trip test walks them)."""
