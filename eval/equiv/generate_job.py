"""``tribunal equiv generate``: LM-written perturbations of the suite's originals, checked, as JSONL."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from tribunal.errors import SpendingCapReached
from tribunal.data.atomic import write_text_atomically
from tribunal.eval.equiv.checks import PERTURBATION_KINDS, check_perturbation
from tribunal.eval.equiv.suite import Suite, SuitePair


@dataclass
class GenerateResult:
    kept: list[SuitePair]
    rejected: list[dict[str, Any]]
    traces: list[dict[str, Any]] = field(default_factory=list)  # per (original, kind): its calls, for MLflow
    left: int = 0  # (original, kind) perturbations a spending cap left unwritten
    stopped_by: str | None = None  # the spending cap that stopped the generation


def generate_pairs(suite: Suite, lm: Any, kinds: Sequence[str] = PERTURBATION_KINDS,
                   temperature: float = 0.3, attempts: int = 2, progress: Any = None,
                   cap: Any = None) -> GenerateResult:
    """One LM perturbation per original and kind; only those passing their check are kept.

    ``progress(done, total)`` is called after each (original, kind). Under ``cap`` (a
    :class:`~tribunal.runner.spending_cap.SpendingCap`) an (original, kind) starts only while the cap admits
    all its attempts; once it stops, the rest are counted in ``left`` and ``stopped_by`` names the cap.
    """
    import dspy  # heavy: dspy

    from tribunal.eval.tracking.call_log import CallLog, attach_call_log, recording  # heavy: pulls in dspy
    from tribunal.programs.equiv_perturb import PerturbationGenerator  # heavy: pulls in dspy

    generator = attach_call_log(PerturbationGenerator(temperature, attempts, check=check_perturbation), [lm])
    originals = {p.original.id: p.original for p in suite.pairs}
    kept, rejected, traces, left = [], [], [], 0
    if cap is not None:
        cap.attach([lm])
    with dspy.context(lm=lm):
        for original in originals.values():
            for kind in kinds:
                if cap is not None and not cap.admitting(attempts):
                    left += 1
                    continue
                log = CallLog()
                try:
                    with recording(log):
                        out = generator(hypothesis=original, kind=kind)
                except SpendingCapReached:  # an attempt refused: this perturbation is left for the rerun
                    left += 1
                    continue
                traces.append({**log.trace(), "original": original.id, "kind": kind,
                               "kept": out.perturbed is not None, "problems": out.problems})
                if out.perturbed is None:
                    rejected.append({"original": original.id, "kind": kind, "problems": out.problems})
                else:
                    kept.append(SuitePair(id=f"{out.perturbed.id}", kind=kind, original=original, perturbed=out.perturbed))
                if progress:
                    progress(len(traces), len(originals) * len(kinds))
    return GenerateResult(kept, rejected, traces, left, cap.stopped_by if cap is not None and left else None)


def write_pairs(pairs: Sequence[SuitePair], path: Path) -> None:
    """JSONL that ``--suite`` loads (each pair re-checked on load)."""
    write_text_atomically(path, "".join(json.dumps(p.model_dump(mode="json")) + "\n" for p in pairs))
