"""``tribunal hyp run --estimate``: the workflow rehearsed on its own instances, nothing sent, nothing tracked.

The runs still to do are selected as the job selects them (runs stored without errors in ``--out`` are
not run again, so they are not counted), each is run by the real workflow
(:func:`tribunal.eval.hyp.run_job.execute_run`) on an LM whose engine is a
:class:`~tribunal.eval.estimate.rehearsal.RehearsalEngine`, and the engagement judge then labels the
rehearsed challenges (and those of stored runs it has not labelled yet), on its own rehearsal LM.

Made-up answers the field types alone would not make valid or would not bound (:func:`workflow_shape`):
the proposer and reviser offer one hypothesis (``low``) or as many as they are allowed, ``max_hypotheses``
(``high``: every live hypothesis of every round is challenged, up to ``--max-per-opening``); the critic's
demands are the schema's least (1) or :data:`~tribunal.eval.estimate.answers.HIGH_ITEMS`; the engagement
judge gives one label per demand. The call structure is the programs' own declaration
(:data:`tribunal.programs.hyp_workflow.CALLS`, :data:`tribunal.programs.hyp_engagement.CALLS`).
"""

from __future__ import annotations

import enum
import typing
from pathlib import Path
from typing import Any, Sequence

import dspy

from tribunal.eval.estimate.answers import sample_value
from tribunal.eval.estimate.estimate import Estimate, build_estimate
from tribunal.eval.estimate.equiv_estimate import rehearsal_limit
from tribunal.eval.estimate.rehearsal import RehearsalEngine, SignatureWatch, rehearsal_settings
from tribunal.eval.estimate.tokens import counter_for
from tribunal.eval.hyp.engagement_job import label_record, needs_labels
from tribunal.eval.hyp.run_job import RunSettings, execute_run, judge_name_of, pending_runs
from tribunal.programs.hyp_engagement import CALLS as ENGAGEMENT_CALLS
from tribunal.programs.hyp_engagement import ROLE as ENGAGEMENT_ROLE
from tribunal.programs.hyp_workflow import CALLS as WORKFLOW_CALLS
from tribunal.programs.lm import build_lm
from tribunal.programs.local_models import is_local


def _item_of(signature: Any, name: str, scenario: str) -> Any:
    """One made-up item of the list output ``name``, as the adapter writes it (an enum by its value)."""
    annotation = typing.get_args(signature.output_fields[name].annotation)[0]
    value = sample_value(annotation, scenario, "")
    return value.value if isinstance(value, enum.Enum) else value


def workflow_shape(signature: Any, scenario: str, inputs: dict, outputs: dict) -> dict:
    """Valid answers that bound the workflow's calls (see the module docstring)."""
    if "hypotheses" in outputs:
        wanted = 1 if scenario == "low" else max(1, int(inputs.get("max_hypotheses") or 1))
        outputs["hypotheses"] = [_item_of(signature, "hypotheses", scenario) for _ in range(wanted)]
    if "demand_labels" in outputs:
        outputs["demand_labels"] = [_item_of(signature, "demand_labels", scenario)
                                    for _ in inputs.get("demands") or []]
    return outputs


def _lm(settings: Any, engine: RehearsalEngine) -> Any:
    return build_lm(rehearsal_settings(settings), engine)


def _engine(settings: Any, scenario: str, watch: SignatureWatch) -> RehearsalEngine:
    return RehearsalEngine(scenario, counter_for(settings.model), watch, rehearsal_limit(settings),
                           answers_in_json=is_local(settings.model), shape=workflow_shape)


def rehearse(instances: Sequence[Any], settings: RunSettings, lm_settings: Any, judge_settings: Any,
             out: Path | None, scenario: str) -> tuple[list, int]:
    """The calls of the job answered with ``scenario``'s values, and the runs it would run."""
    todo, done, _ = pending_runs(instances, settings, out) if out is not None and (out / "runs").is_dir() else \
        ([(i, d, r) for i in instances for d in settings.depths for r in range(settings.reruns)], [], [])
    watch = SignatureWatch()
    engine = _engine(lm_settings, scenario, watch)
    lm = _lm(lm_settings, engine)
    calls = []
    with dspy.context(callbacks=[*dspy.settings.callbacks, watch]):
        records = [execute_run(instance, depth, rerun, lm, settings.max_per_opening) for instance, depth, rerun in todo]
        calls += engine.calls
        if judge_settings is not None:
            judge_engine = _engine(judge_settings, scenario, watch)
            judge_lm = _lm(judge_settings, judge_engine)
            name = judge_name_of({"model": judge_settings.model})
            for record in [*records, *done]:
                if record.ok and needs_labels(record, name):
                    label_record(record, judge_lm, name)
            calls += judge_engine.calls
    return calls, len(todo)


def estimate_hyp_run(instances: Sequence[Any], settings: RunSettings, lm_settings: Any, judge_settings: Any,
                     out: Path | None) -> Estimate:
    """What ``hyp run`` would spend (see :mod:`tribunal.eval.estimate.estimate`); sends nothing, tracks nothing."""
    low, runs = rehearse(instances, settings, lm_settings, judge_settings, out, "low")
    high, _ = rehearse(instances, settings, lm_settings, judge_settings, out, "high")
    rule = f"{WORKFLOW_CALLS.rule} (calls depend on the answers)"
    if judge_settings is not None:
        rule += f"; {ENGAGEMENT_CALLS.rule}"
    models = {ENGAGEMENT_ROLE: judge_settings.model} if judge_settings is not None else {}
    return build_estimate("hyp run", runs, low, high, models, lm_settings.model, rehearsal_limit(lm_settings), rule,
                          counter_for(lm_settings.model), settings.threads)
