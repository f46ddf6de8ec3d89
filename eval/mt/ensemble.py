"""Sampled ensembles (``mt evaluate --samples K --combine RULE``): K independent judgments per item.

Sample k (1..K) runs the whole judge on the item under DSPy ``rollout_id`` k
(:mod:`tribunal.programs.mqm.sampling`), so no sample is another's cached answer: K samples are K
provider calls per LM call of the judge, and calls, tokens and spend scale by K. The samples run
side by side under the runner's call slots (:func:`~tribunal.core.scheduling.fan_out`); in
batch mode they are parked together, so an item's K requests travel in the same batch.

**Combining.** The usable samples' scores are combined by the rule (:mod:`tribunal.eval.mt.combine`:
``mean``, ``median``, tribunal's ``trimmed``, or GEMBA-MQM V2's published ``gemba-v2``). The item's error spans (and M-MAD's debates)
are those of the sample whose score is nearest the combined one, among the samples the rule kept
(the first such sample on a tie): a real annotation of one judgment, never a mixture.

**Unusable samples.** A sample whose answer is unusable or whose calls failed is dropped; the item
is scored from the others when at least ceil(K/2) samples are usable (the summary and the item's
``ensemble`` record say how many were dropped). With fewer, the item is unscored
(:class:`~tribunal.eval.mt.failures.TooFewSamples`): retryable when a dropped sample got no answer (a rerun judges the item
again, and its usable samples come back from the response cache at no cost), permanent otherwise.

Every sample is kept in the item's transcript (``{"stage": "sample", "sample": k, ...}``), and the
spread (the K scores, std, min, max, what was kept and dropped) in its ``ensemble`` record.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from tribunal.eval.mt.combine import combine, nearest, spread
from tribunal.eval.mt.failures import Failure, TooFewSamples, classify_failure
from tribunal.core.async_scheduling import afan_out
from tribunal.core.judgment_step import debate_summaries
from tribunal.core.mt_judgment import MTJudgment, judged
from tribunal.core.scheduling import fan_out
from tribunal.programs.mqm.sampling import rollout

MAX_SAMPLES = 64


class SamplingSettings(BaseModel):
    """How many judgments per item, and how they are combined."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    samples: int = Field(1, ge=1, le=MAX_SAMPLES, description="independent judgments per item (K)")
    combine: Literal["mean", "median", "trimmed", "gemba-v2"] = Field(
        "mean", description="how the K scores become one: mean | median | trimmed (tribunal's rule after "
                            "GEMBA-MQM V2: drop scores beyond 2 sigma, then a reciprocal-rank weighted average) | "
                            "gemba-v2 (the published GEMBA-MQM V2 aggregation as far as its abstract states it)")

    @property
    def used(self) -> bool:
        return self.samples > 1

    @property
    def needed(self) -> int:
        """Usable samples an item needs to be scored: ceil(K/2)."""
        return math.ceil(self.samples / 2)

    def name_parts(self) -> list[str]:
        """What the metric name says: ``["k5", "trimmed"]`` (nothing for one sample)."""
        return [f"k{self.samples}", self.combine] if self.used else []


@dataclass
class Sample:
    number: int
    judgment: MTJudgment | None = None
    """The sample's judgment (:meth:`MTJudgment.of` its prediction: a malformed one drops the sample)."""
    error: BaseException | None = None


def _sample(program: Any, inputs: dict[str, Any], number: int) -> Sample:
    with rollout(number):
        try:
            return Sample(number, judgment=MTJudgment.of(program(**inputs)))
        except Exception as exc:  # a failed or unusable sample is dropped; a bug propagates
            return _dropped(number, exc)


async def _asample(program: Any, inputs: dict[str, Any], number: int) -> Sample:
    with rollout(number):
        try:
            return Sample(number, judgment=MTJudgment.of(await program.acall(**inputs)))
        except Exception as exc:  # a failed or unusable sample is dropped; a bug propagates
            return _dropped(number, exc)


def _dropped(number: int, exc: Exception) -> Sample:
    if classify_failure(exc) is None:
        raise exc
    return Sample(number, error=exc)


def predict(program: Any, inputs: dict[str, Any], sampling: SamplingSettings | None = None) -> Any:
    """The item's prediction: one judgment, or ``sampling.samples`` combined (see the module docstring)."""
    if sampling is None or not sampling.used:
        return program(**inputs)

    samples = fan_out([functools.partial(_sample, program, inputs, k) for k in range(1, sampling.samples + 1)])
    return combined(samples, sampling)


async def apredict(program: Any, inputs: dict[str, Any], sampling: SamplingSettings | None = None) -> Any:
    """:func:`predict` for the async runner: ``program.acall``, the samples gathered."""
    if sampling is None or not sampling.used:
        return await program.acall(**inputs)
    samples = await afan_out([functools.partial(_asample, program, inputs, k)
                              for k in range(1, sampling.samples + 1)])
    return combined(samples, sampling)


def _record(sample: Sample) -> dict[str, JsonValue]:
    if sample.judgment is None:
        detail = " ".join(str(sample.error).split())[:300]
        return {"stage": "sample", "sample": sample.number, "rollout_id": sample.number, "status": "unscored",
                "reason": f"{type(sample.error).__name__}: {detail}"}
    judgment = sample.judgment
    return {"stage": "sample", "sample": sample.number, "rollout_id": sample.number, "status": "scored",
            "score": judgment.score, "errors": [e.model_dump() for e in judgment.errors],
            "debates": debate_summaries(judgment.transcript),  # the sample's debates, read off its steps
            "transcript": [step.model_dump() for step in judgment.transcript]}


def combined(samples: list[Sample], sampling: SamplingSettings) -> Any:
    """One judgment from the samples (:func:`~tribunal.core.mt_judgment.judged`), or
    :class:`~tribunal.eval.mt.failures.TooFewSamples`."""
    usable = [s for s in samples if s.judgment is not None]
    dropped = [s for s in samples if s.judgment is None]
    if len(usable) < sampling.needed:
        raise _too_few(usable, dropped, sampling)
    scores = [s.judgment.score for s in usable]
    result = combine(scores, sampling.combine)
    chosen = usable[nearest(scores, result.value, result.kept)]
    record = {"samples": sampling.samples, "rule": sampling.combine, "score": result.value,
              "scores": [s.judgment.score if s.judgment is not None else None for s in samples],
              "kept": [usable[i].number for i in result.kept], "usable": len(usable),
              "dropped": [s.number for s in dropped], "chosen": chosen.number, **spread(scores)}
    transcript = [_record(s) for s in samples] + [{"stage": "combine", **record}]
    # the combined score stands on every kept sample: a fallback taken in any of them degrades the item
    degraded = [{**d.model_dump(), "sample": usable[i].number} for i in result.kept for d in usable[i].judgment.degraded]
    return judged(result.value, chosen.judgment.errors, transcript, degraded, ensemble=record,
                  scale=chosen.judgment.scale)  # its debates: the chosen sample's steps


def _too_few(usable: list[Sample], dropped: list[Sample], sampling: SamplingSettings) -> TooFewSamples:
    failures = [classify_failure(s.error) for s in dropped]
    retryable = any(f.retryable for f in failures)
    first = failures[0]
    label = f"too few usable samples ({first.label})"
    detail = f"{len(usable)} of {sampling.samples} usable, {sampling.needed} needed; " + "; ".join(
        f"sample {s.number}: {' '.join(str(s.error).split())[:120]}" for s in dropped)
    response = next((getattr(s.error, "lm_response", None) for s in dropped if getattr(s.error, "lm_response", None)),
                    None)
    return TooFewSamples(detail, Failure(label, retryable, all(f.transient for f in failures)), response)
