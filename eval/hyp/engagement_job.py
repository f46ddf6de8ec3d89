"""Post-hoc engagement labelling of stored runs: the judge LM labels every challenge of a run.

A run is (re)labelled when it has challenges and was not labelled by this judge yet, so a
resumed job pays only for what is missing and a new judge model relabels everything.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Sequence
import dspy

from tribunal.core.hyp_records import RunRecord
from tribunal.errors import SpendingCapReached
from tribunal.runner.meter import UsageMeter, metering
from tribunal.signatures.hyp_engagement import ENGAGEMENT_LABELS
from tribunal.programs.hyp_engagement import EngagementJudge


def needs_labels(record: RunRecord, judge_name: str) -> bool:
    return bool(record.challenges) and record.engagement_judge != judge_name


def label_record(record: RunRecord, judge_lm: Any, judge_name: str) -> RunRecord:
    """``record`` with every challenge labelled by the judge (one call per challenge)."""
    judge = EngagementJudge()
    labelled = []
    with dspy.context(lm=judge_lm):
        for challenge in record.challenges:
            out = judge(demands=challenge.demands, hypothesis_before=challenge.before,
                        responses=challenge.responses, hypothesis_after=challenge.after)
            labelled.append(challenge.model_copy(update={"labels": out.demand_labels, "error": out.error}))
    return record.model_copy(update={"challenges": labelled, "engagement_judge": judge_name})


def label_runs(records: Sequence[RunRecord], judge_lm: Any, judge_name: str, threads: int = 4,
               store: Callable[[RunRecord], None] | None = None, meter: UsageMeter | None = None,
               cap: Any = None) -> tuple[list[RunRecord], int]:
    """Label every run that needs it (``store`` is called on each as it is done); returns (records, labelled).

    ``meter`` counts the judge's calls; under ``cap`` (its gate on ``judge_lm``) no run is labelled once it
    stops admitting, and a run whose call it refused stays unlabelled (labelled on resume, its finished calls
    from the response cache)."""
    todo = [i for i, r in enumerate(records) if r.ok and needs_labels(r, judge_name)]

    def work(index: int) -> RunRecord | None:
        if cap is not None and not cap.admitting():
            return None
        try:
            with metering(meter) if meter is not None else contextlib.nullcontext():
                record = label_record(records[index], judge_lm, judge_name)
        except SpendingCapReached:
            return None
        if store is not None:
            store(record)
        return record

    out = list(records)
    labelled = 0
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        for index, record in zip(todo, pool.map(work, todo)):
            if record is not None:
                out[index] = record
                labelled += 1
    return out, labelled


def engagement_shares(records: Sequence[RunRecord]) -> dict[int, dict[str, float]]:
    """Per depth: share of each label among labelled demands, and the unscored and total demand counts."""
    shares: dict[int, dict[str, float]] = {}
    for depth in sorted({r.depth for r in records}):
        labels: Counter = Counter()
        for record in (r for r in records if r.depth == depth):
            for challenge in record.challenges:
                labels.update(challenge.labels or [None] * len(challenge.demands))
        scored = sum(n for label, n in labels.items() if label is not None)
        shares[depth] = {label: (labels[label] / scored if scored else float("nan")) for label in ENGAGEMENT_LABELS}
        shares[depth]["unscored"] = float(labels[None])
        shares[depth]["demands"] = float(sum(labels.values()))
    return shares
