"""One step of a judgment's transcript: a call's stage and role, what it found, and whatever else it recorded.

Every MT judge records its judgment as steps: GEMBA's single call, ESA's spans then score, MQM-APE's
evaluation then each check, M-MAD's stage-1 agents, its debates (one ``stage2`` step per dimension, with its
``rounds``, ``consensus``, ``decided_by`` and ``turns``) and its final judge, a joint judge's calls, a sampled
ensemble's samples (each holding its own ``transcript``) and their combination. A debate is steps like any
other: the per-dimension summary the run's outputs show (:func:`debate_summaries`) is read off its steps.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import JsonValue

from tribunal.core.json_record import JsonRecord
from tribunal.core.judged_error import JudgedError

DEBATE_STAGE = "stage2"
DEBATE_FIELDS = ("rounds", "consensus", "decided_by")


class Step(JsonRecord):
    """One transcript step; keys other than the typed ones are kept as JSON (a debate's turns, a rationale...)."""

    stage: str
    role: str | None = None
    dimension: str | None = None
    errors: list[JudgedError] | None = None
    rounds: int | None = None
    consensus: bool | None = None
    decided_by: str | None = None
    sample: int | None = None
    """A sampled ensemble's sample number (its ``transcript`` holds that sample's own steps)."""
    transcript: list[Step] | None = None


def debate_summaries(steps: Sequence[Step], chosen: int | None = None) -> dict[str, dict[str, JsonValue]]:
    """``{dimension: {rounds, consensus, decided_by}}`` of the debates among ``steps`` (as the transcripts file
    writes them); for a sampled ensemble (``chosen``: the sample its errors come from), those of that sample."""
    debates: dict[str, dict[str, JsonValue]] = {}
    for step in steps:
        if step.stage == DEBATE_STAGE and step.dimension is not None:
            given = step.model_dump()
            debates[step.dimension] = {k: given[k] for k in given if k in DEBATE_FIELDS}
    if debates or chosen is None:
        return debates
    sample = next((s for s in steps if s.stage == "sample" and s.sample == chosen), None)
    return debate_summaries(sample.transcript or []) if sample is not None else {}
