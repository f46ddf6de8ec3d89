"""Choose among the candidates an optimizer produced by the objective, on the full dev set.

DSPy's optimizers score candidates with a per-example metric averaged over a batch; none takes a
corpus-level statistic. So the optimizer proposes and scores candidates as it does, and then the
candidates it exposes are re-scored by the objective on the whole dev set and the best is kept:

- random search: ``candidate_programs`` (every candidate it scored on dev, with its baselines);
- MIPROv2: ``candidate_programs`` (the programs it evaluated on all of dev, the untuned one first
  among them) and the best :data:`MINIBATCH_FINALISTS` of ``mb_candidate_programs`` (scored on
  minibatches only);
- SIMBA: ``candidate_programs`` (the untuned program and each step's winner);
- GEPA: ``detailed_results.candidates`` (every candidate it accepted; ``track_stats=True``).
The compiled program itself is always a finalist. At most :data:`FINALISTS` finalists (the
optimizer's own best first) are re-scored; identical programs are scored once. A tie keeps the
optimizer's own order, so the compiled program wins a tie. With ``--objective item`` nothing is
re-scored: the optimizer's own choice stands (what every optimizer did before objectives).

Given the untuned program's dev score, a finalist too often unusable on dev
(:func:`~tribunal.optimizers.dev_reliability.unreliable`) is not chosen while another is reliable; each
finalist keeps its scored, unscored and degraded counts for the report. How the objective counted the
unscored items is :func:`~tribunal.optimizers.dev_reliability.unscored_rule`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Callable

from tribunal.optimizers.dev_reliability import unreliable

FINALISTS = 8
MINIBATCH_FINALISTS = 3


@dataclass
class Finalist:
    program: Any
    source: str
    own_score: float | None = None
    objective: float | None = None
    item: float | None = None
    counts: dict[str, int] | None = None
    """``{items, scored, unscored, degraded}`` on dev (None: not re-scored)."""
    unreliable: str | None = None
    """Why it is too often unusable to be chosen (None: it is not)."""


@dataclass
class Selection:
    """The chosen program and every finalist with its dev objective (chosen first)."""

    program: Any
    finalists: list[Finalist] = field(default_factory=list)
    chosen: Finalist | None = None


def _state_key(program: Any) -> str:
    try:
        state = program.dump_state()
    except Exception:  # a program that cannot dump its state is never merged with another
        return str(id(program))
    return hashlib.sha256(json.dumps(state, sort_keys=True, default=str).encode()).hexdigest()


def _score(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def finalists_of(compiled: Any, limit: int = FINALISTS) -> list[Finalist]:
    """The compiled program, then the candidates the optimizer attached to it (best first), deduplicated."""
    found = [Finalist(compiled, "compiled", _score(getattr(compiled, "score", None)))]
    listed = [Finalist(c.get("program"), "candidate_programs", _score(c.get("score")))
              for c in getattr(compiled, "candidate_programs", None) or [] if isinstance(c, dict)]
    minibatch = sorted(((c.get("program"), _score(c.get("score")))
                        for c in getattr(compiled, "mb_candidate_programs", None) or [] if isinstance(c, dict)),
                       key=lambda pair: -(pair[1] if pair[1] is not None else float("-inf")))
    listed += [Finalist(p, "mb_candidate_programs", s) for p, s in minibatch[:MINIBATCH_FINALISTS]]
    details = getattr(compiled, "detailed_results", None)
    if details is not None:
        scores = list(getattr(details, "val_aggregate_scores", None) or [])
        listed += [Finalist(p, "gepa_candidates", scores[i] if i < len(scores) else None)
                   for i, p in enumerate(getattr(details, "candidates", None) or [])]
    listed.sort(key=lambda f: -(f.own_score if f.own_score is not None else float("-inf")))
    seen, unique = set(), []
    for finalist in found + listed:
        if finalist.program is None:
            continue
        key = _state_key(finalist.program)
        if key not in seen:
            seen.add(key)
            unique.append(finalist)
    return unique[:max(1, limit)]


def select_by_objective(compiled: Any, objective: Any, evaluate: Callable[[Any], Any],
                        golds: list[Any], limit: int = FINALISTS,
                        on_scored: Callable[[Finalist], Any] | None = None, untuned: Any = None) -> Selection:
    """Re-score the finalists of ``compiled`` by ``objective`` on ``golds`` and keep the best reliable one.

    ``evaluate(program)`` returns a :class:`~tribunal.optimizers.dev_eval.DevScore` on ``golds``;
    ``on_scored(finalist)`` is called after each (a trial record); ``untuned`` is the untuned program's
    DevScore, the bar of :func:`~tribunal.optimizers.dev_reliability.unreliable` (None: 0 unscored).
    When every finalist is unreliable the best of them is chosen (the tuned program's own check decides).
    """
    if objective.is_item:
        return Selection(compiled)
    finalists = finalists_of(compiled, limit)
    for finalist in finalists:
        dev = evaluate(finalist.program)
        finalist.objective = objective.value(dev.predictions, golds)
        finalist.item = dev.score
        finalist.counts = dev.counts()
        finalist.unreliable = unreliable(dev, untuned)
        if on_scored is not None:
            on_scored(finalist)
    best = max(range(len(finalists)), key=lambda i: (finalists[i].unreliable is None, finalists[i].objective, -i))
    chosen = finalists[best]
    return Selection(chosen.program, [chosen] + finalists[:best] + finalists[best + 1:], chosen)
