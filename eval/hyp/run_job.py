"""``tribunal hyp run``: every (depth, rerun) of the workflow, each stored as ``runs/<run_id>.json``.

A run already stored without errors is loaded, not re-run (a crashed job resumes without
paying twice). Runs execute concurrently, each thread entering ``dspy.context(lm=...)``.
"""

from __future__ import annotations

import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from tribunal.eval.data.atomic import write_text_atomically
from tribunal.eval.hyp.instance import Instance
from tribunal.eval.hyp.records import RunRecord
from tribunal.eval.tracking.mlflow_run import TrackingSettings, tracked_run
from tribunal.eval.tracking.signature import signature, text_hash
from tribunal.signatures.hyp_engagement import ENGAGEMENT_LABELS

MANIFEST = "manifest.json"


@dataclass
class RunJobResult:
    records: list[RunRecord]
    reused: int
    signature: str
    run_id: str | None


def run_id_for(depth: int, rerun: int) -> str:
    return f"d{depth}-r{rerun}"


def execute_run(instance: Instance, depth: int, rerun: int, lm: Any, rollout_base: int = 0) -> RunRecord:
    """One workflow run over every opening hypothesis; a failing slot is recorded, not raised."""
    import dspy

    from tribunal.eval.tracking.call_log import CallLog, attach_call_log, recording
    from tribunal.programs.hyp_workflow import HypothesisWorkflow

    run_id = run_id_for(depth, rerun)
    program = attach_call_log(HypothesisWorkflow(depth), [lm])  # each slot's calls are recorded for its trace
    record = RunRecord(run_id=run_id, depth=depth, rerun=rerun, hypotheses=[])
    with dspy.context(lm=lm):
        for slot, opening in enumerate(instance.opening_hypotheses):
            log = CallLog()
            try:
                with recording(log):
                    out = program(research_question=instance.research_question,
                                  observed_finding=instance.observed_finding, opening_hypothesis=opening,
                                  hypothesis_id=f"{run_id}/h{slot}", slot=slot,
                                  rollout=rollout_base + rerun if (rollout_base + rerun) else None)
            except Exception as err:  # unparseable or failed LM answer: this slot is unscored
                record.hypotheses.append(None)
                record.errors.append(f"slot {slot}: {type(err).__name__}: {str(err)[:300]}")
                record.traces.append({**log.trace(), "slot": slot, "error": record.errors[-1]})
                continue
            record.hypotheses.append(out.hypothesis)
            record.demands.extend(out.demands)
            record.traces.append({**log.trace(), "slot": slot})
    return record


def load_runs(run_dir: Path) -> list[RunRecord]:
    """Every stored run under ``run_dir/runs``, sorted by depth then rerun."""
    files = sorted((run_dir / "runs").glob("*.json"))
    records = [RunRecord.model_validate_json(f.read_text(encoding="utf-8")) for f in files]
    return sorted(records, key=lambda r: (r.depth, r.rerun))


def engagement_shares(records: Sequence[RunRecord]) -> dict[int, dict[str, float]]:
    """Per depth: share of each engagement label among labelled demands, plus the unscored count."""
    shares: dict[int, dict[str, float]] = {}
    for depth in sorted({r.depth for r in records}):
        labels = Counter(d.label for r in records if r.depth == depth for d in r.demands)
        scored = sum(n for label, n in labels.items() if label is not None)
        shares[depth] = {label: (labels[label] / scored if scored else float("nan")) for label in ENGAGEMENT_LABELS}
        shares[depth]["unscored"] = float(labels[None])
        shares[depth]["demands"] = float(sum(labels.values()))
    return shares


def run_workflow(instance: Instance, depths: Sequence[int], reruns: int, lm: Any, lm_public: dict, out: Path,
                 tracking: TrackingSettings, threads: int = 4) -> RunJobResult:
    """Run (or resume) every depth x rerun, store each run, log one MLflow run."""
    import time

    started = time.time()
    (out / "runs").mkdir(parents=True, exist_ok=True)
    sig = signature({"task": "hyp-run", "instance": f"{instance.id}@{text_hash(instance.model_dump_json())}",
                     "depths": list(depths), "reruns": reruns, "lm": lm_public.get("model")})
    write_text_atomically(out / MANIFEST, json.dumps({"instance": instance.model_dump(), "depths": list(depths),
                                                      "reruns": reruns, "lm": lm_public, "signature": sig}, indent=2))
    todo: list[tuple[int, int]] = []
    done: list[RunRecord] = []
    for depth in depths:
        for rerun in range(reruns):
            path = out / "runs" / f"{run_id_for(depth, rerun)}.json"
            stored = RunRecord.model_validate_json(path.read_text(encoding="utf-8")) if path.is_file() else None
            if stored is not None and stored.ok:
                done.append(stored)
            else:
                todo.append((depth, rerun))

    def work(job: tuple[int, int]) -> RunRecord:
        # each depth gets its own rollout block so reruns at different depths never share a cached sample
        record = execute_run(instance, job[0], job[1], lm, rollout_base=1000 * list(depths).index(job[0]))
        # atomic: a run killed mid-write leaves no torn record for the resume to trip over
        write_text_atomically(out / "runs" / f"{record.run_id}.json", record.model_dump_json(indent=2))
        return record

    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        new = list(pool.map(work, todo))
    records = sorted(done + new, key=lambda r: (r.depth, r.rerun))
    params = {"instance": instance.id, "depths": ",".join(map(str, depths)), "reruns": reruns,
              **{f"lm.{k}": v for k, v in lm_public.items()}}
    from tribunal.eval.tracking.hyp_run import log_workflow_traces, workflow_run_name

    with tracked_run(tracking, workflow_run_name(instance, depths, reruns, lm_public), params,
                     {"tribunal.command": "hyp run"}, sig, started=started) as run:
        log_workflow_traces(run, instance, records)
        run.log_metrics({"runs": len(records), "runs_failed": sum(not r.ok for r in records), "runs_reused": len(done)})
        for depth, shares in engagement_shares(records).items():
            run.log_metrics({f"engagement/d{depth}/{k}": v for k, v in shares.items()})
        run.log_text(json.dumps([r.model_dump(mode="json") for r in records], indent=1), "runs.json")
    return RunJobResult(records, len(done), sig, run.run_id)
