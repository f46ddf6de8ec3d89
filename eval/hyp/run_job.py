"""``tribunal hyp run``: every (instance, depth, rerun) of the workflow, then the engagement judge.

Each run is stored as ``runs/<instance>/<run_id>.json``. A run already stored without errors
is loaded, not re-run (a crashed job resumes without paying twice); a stored file that cannot be
read (cut short, edited) is run again and reported. Runs execute concurrently, each thread
entering ``dspy.context(lm=...)``. The output folder is locked for the job; Ctrl-C lets the runs
in progress finish and be stored, starts no other, and ends with :class:`~tribunal.errors.Interrupted`.

Independent reruns: every lineage of every run samples with its own DSPy ``rollout_id``, derived
from a random nonce drawn when the run directory is created (kept in its manifest), the instance,
the run id and the opening. Two reruns, the same rerun at two depths, two lineages of one run and
two run directories never share a cached answer, while a resumed directory replays its own cache
entries and pays nothing twice.

After the workflow, the post-hoc engagement judge (its own LM: the judge model, temperature 0)
labels each stored challenge (:mod:`tribunal.eval.hyp.engagement_job`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import dspy
from pydantic import BaseModel, ConfigDict, Field

from tribunal.core.hyp_records import RunRecord
from tribunal.errors import Interrupted, SpendingCapReached
from tribunal.data.atomic import write_text_atomically
from tribunal.data.errors import DataFormatError
from tribunal.data.folder_lock import folder_lock
from tribunal.eval.hyp.engagement_job import engagement_shares, label_runs, needs_labels
from tribunal.eval.hyp.instance import Instance
from tribunal.eval.hyp.run_log import log_workflow_run
from tribunal.eval.hyp.run_store import (MANIFEST, load_runs, read_record, rollout_nonce, run_id_for, run_path,
                                         store_record)
from tribunal.eval.hyp.run_summary import JobFigures, hyp_run_summary, write_hyp_summary
from tribunal.eval.tracking.call_log import CallLog, attach_call_log, recording
from tribunal.eval.tracking.hyp_run import workflow_run_name
from tribunal.eval.tracking.mlflow_run import TrackingSettings, tracked_run
from tribunal.eval.tracking.run_signatures import HypRunSignature
from tribunal.eval.tracking.signature import text_hash
from tribunal.programs.answers import describe
from tribunal.programs.answers.failures import ANSWER_FAILURES, is_answer_failure
from tribunal.programs.hyp_workflow import DEFAULT_MAX_PER_OPENING, HypothesisWorkflow
from tribunal.runner import interruptible
from tribunal.runner.meter import UsageMeter, metering

__all__ = ["MANIFEST", "RunSettings", "RunJobResult", "execute_run", "load_runs", "run_workflow",
           "engagement_shares"]


class RunSettings(BaseModel):
    """What ``tribunal hyp run`` runs."""

    model_config = ConfigDict(extra="forbid")

    depths: list[int] = Field(min_length=1)
    reruns: int = Field(5, ge=1)
    max_per_opening: int = Field(DEFAULT_MAX_PER_OPENING, ge=1)
    threads: int = Field(4, ge=1)


@dataclass
class RunJobResult:
    """What the job did: the runs (stored and reused), how many were reused and labelled, its signature and run."""

    records: list[RunRecord]
    reused: int
    labelled: int
    signature: str
    run_id: str | None
    unreadable: list[str] = field(default_factory=list)  # stored files that were run again
    summary: Any = None  # its RunSummary (summary.json)


def rollout_for(nonce: str, instance: str, run_id: str, opening: int) -> int:
    """A rollout id of its own for every lineage of every run of every run directory (48 bits of a sha256)."""
    return int(hashlib.sha256(f"{nonce}/{instance}/{run_id}/o{opening}".encode()).hexdigest()[:12], 16)


def execute_run(instance: Instance, depth: int, rerun: int, lm: Any, max_per_opening: int = DEFAULT_MAX_PER_OPENING,
                nonce: str | None = None) -> RunRecord:
    """One workflow run over every opening hypothesis; a failing opening is recorded, not raised.

    ``nonce=None`` sends no rollout id (identical requests may then be answered from DSPy's cache).
    """
    run_id = run_id_for(depth, rerun)
    program = attach_call_log(HypothesisWorkflow(depth, max_per_opening), [lm])  # each opening's calls: its trace
    record = RunRecord(run_id=run_id, instance=instance.id, depth=depth, rerun=rerun,
                       openings=len(instance.opening_hypotheses))
    with dspy.context(lm=lm):
        for opening, text in enumerate(instance.opening_hypotheses):
            log = CallLog()
            try:
                with recording(log):
                    out = program(research_question=instance.research_question,
                                  observed_finding=instance.observed_finding, opening_hypothesis=text,
                                  lineage_id=f"{instance.id}/{run_id}/o{opening}", opening=opening,
                                  evidence=instance.evidence_text(),
                                  rollout=rollout_for(nonce, instance.id, run_id, opening) if nonce else None)
            except ANSWER_FAILURES as err:  # unparseable or failed LM answer: this opening is unscored; a bug propagates
                if not is_answer_failure(err):  # tribunal's own (the local server is gone): the run stops
                    raise
                record.errors.append(f"opening {opening}: {describe(err)[:300]}")  # one line, in words
                record.traces.append({**log.trace(), "slot": opening, "error": record.errors[-1]})
                continue
            record.delivered.extend(out.delivered)
            record.challenges.extend(out.challenges)
            record.truncated += out.truncated
            record.degraded.extend({**d, "opening": opening} for d in out.degraded)
            record.traces.append({**log.trace(), "slot": opening})
    return record


def run_workflow(instances: Sequence[Instance], settings: RunSettings, lm: Any, lm_public: dict, out: Path,
                 tracking: TrackingSettings, judge_lm: Any = None, judge_public: dict | None = None,
                 cap: Any = None) -> RunJobResult:
    """Run (or resume) every instance x depth x rerun, label the challenges, log one MLflow run, write
    ``summary.json``.

    ``judge_lm=None`` skips the engagement judge (the challenges stay unlabelled until a later run).
    ``cap`` (a :class:`~tribunal.runner.spending_cap.SpendingCap`, its gate on both LMs): once it stops
    admitting, no new run (or labelling) starts; a run whose call it refused is not stored; the runs in
    flight finish and are stored. A stopped job logs no MLflow run; its summary says what is left.
    """
    with folder_lock(out):
        return _run_workflow(instances, settings, lm, lm_public, out, tracking, judge_lm, judge_public, cap)


def pending_runs(instances: Sequence[Instance], settings: RunSettings, out: Path) -> tuple[list, list, list[str]]:
    """``(todo, done, unreadable)``: the (instance, depth, rerun) still to run, the stored runs without errors,
    and the stored files that cannot be read (run again)."""
    todo: list[tuple[Instance, int, int]] = []
    done: list[RunRecord] = []
    unreadable: list[str] = []
    for instance in instances:
        for depth in settings.depths:
            for rerun in range(settings.reruns):
                path = run_path(out, instance.id, run_id_for(depth, rerun))
                try:
                    stored = read_record(path) if path.is_file() else None
                except DataFormatError as err:
                    unreadable.append(str(err))
                    stored = None
                if stored is not None and stored.ok:
                    done.append(stored)
                else:
                    todo.append((instance, depth, rerun))
    return todo, done, unreadable


def judge_name_of(judge_public: dict | None) -> str:
    """The name the engagement judge's labels are stored under (its model)."""
    return (judge_public or {}).get("model") or "judge"


def _run_workflow(instances: Sequence[Instance], settings: RunSettings, lm: Any, lm_public: dict, out: Path,
                  tracking: TrackingSettings, judge_lm: Any, judge_public: dict | None, cap: Any) -> RunJobResult:
    """:func:`run_workflow` inside the folder's lock."""
    started, clock = time.time(), time.perf_counter()
    judge_name = judge_name_of(judge_public)
    nonce, sig = _open_folder(instances, settings, lm_public, out, judge_name if judge_lm is not None else None,
                              judge_public)
    todo, done, unreadable = pending_runs(instances, settings, out)
    meter = UsageMeter()
    if cap is not None:
        cap.attach([lm, judge_lm])
    store = functools.partial(store_record, out)
    new = _run_all(functools.partial(_work, lm, settings.max_per_opening, nonce, meter, cap, store), todo,
                   settings.threads, len(done))
    left = sum(record is None for record in new)
    records = sorted(done + [r for r in new if r is not None], key=lambda r: (r.instance, r.depth, r.rerun))
    labelled = 0
    if judge_lm is not None:
        records, labelled = label_runs(records, judge_lm, judge_name, settings.threads, store, meter, cap)
    unlabelled = sum(r.ok and needs_labels(r, judge_name) for r in records) if judge_lm is not None else 0
    job = JobFigures(len(todo) + len(done), len(done), left, unlabelled, labelled, unreadable, str(out),
                     time.perf_counter() - clock, lm_public.get("model") or "", judge_name if judge_lm else None)
    if cap is not None and cap.stopped_by and (left or unlabelled):
        summary = write_hyp_summary(out, hyp_run_summary(records, job, sig, None, meter.summary(), cap))
        return RunJobResult(records, len(done), labelled, sig, None, unreadable, summary=summary)
    params = {"instances": ",".join(i.id for i in instances), "depths": ",".join(map(str, settings.depths)),
              "reruns": settings.reruns, "max_per_opening": settings.max_per_opening,
              "evidence_passages": sum(len(i.evidence) for i in instances),
              **{f"lm.{k}": v for k, v in lm_public.items()},
              **{f"judge_lm.{k}": v for k, v in (judge_public or {}).items()}}
    with tracked_run(tracking, workflow_run_name(instances, settings.depths, settings.reruns, lm_public), params,
                     {"tribunal.command": "hyp run"}, sig, started=started) as run:
        summary = log_workflow_run(run, instances, records, job, sig, meter.summary(), cap, clock)
    write_hyp_summary(out, summary)
    return RunJobResult(records, len(done), labelled, sig, run.run_id, unreadable, summary=summary)


def _open_folder(instances: Sequence[Instance], settings: RunSettings, lm_public: dict, out: Path,
                 judge: str | None, judge_public: dict | None) -> tuple[str, str]:
    """Create ``out/runs``, write the manifest (instances, settings, LMs, rollout nonce, signature) and
    return ``(nonce, signature)``; ``judge``: the engagement judge's name, None when it does not run."""
    (out / "runs").mkdir(parents=True, exist_ok=True)
    nonce = rollout_nonce(out)
    sig = str(HypRunSignature(instances=",".join(f"{i.id}@{text_hash(i.model_dump_json())}" for i in instances),
                              depths=tuple(settings.depths), reruns=settings.reruns,
                              per_opening=settings.max_per_opening, lm=lm_public.get("model"), judge=judge))
    write_text_atomically(out / MANIFEST, json.dumps({
        "instances": [i.model_dump() for i in instances], **settings.model_dump(), "lm": lm_public,
        "judge_lm": judge_public, "rollout_nonce": nonce, "signature": sig}, indent=2))
    return nonce, sig


def _work(lm: Any, max_per_opening: int, nonce: str, meter: UsageMeter, cap: Any, store: Any,
          job: tuple[Instance, int, int]) -> RunRecord | None:
    """Run and store one (instance, depth, rerun); None when the cap keeps it from starting or cuts it short
    (not stored: the resumed job runs it, its finished calls from the response cache)."""
    if cap is not None and not cap.admitting():
        return None  # left for the resumed run
    instance, depth, rerun = job
    try:
        with metering(meter):
            record = execute_run(instance, depth, rerun, lm, max_per_opening, nonce)
    except SpendingCapReached:
        return None  # cut short by the cap: not stored, run again on resume (its finished calls cached)
    store(record)
    return record


def _run_all(work: Any, todo: list, threads: int, stored: int) -> list[RunRecord]:
    """``work`` over ``todo`` in threads; on Ctrl-C, finish and store the runs started, start no other."""
    pool = ThreadPoolExecutor(max_workers=max(1, threads))
    completed: list[Any] = []  # appended by the workers: counts runs that finished, whatever was submitted

    def counted(job: Any) -> Any:
        result = work(job)
        completed.append(job)
        return result

    futures = []
    try:
        for job in todo:  # inside the try: a Ctrl-C while the first runs start is handled the same way
            futures.append(pool.submit(counted, job))
        return [interruptible.result(future) for future in futures]  # a Ctrl-C a worker took still lands
    except KeyboardInterrupt:
        pool.shutdown(wait=True, cancel_futures=True)
        raise Interrupted(f"interrupted: {stored + len(completed)} runs stored; rerun the same command to resume") \
            from None
    finally:
        pool.shutdown(wait=True)
