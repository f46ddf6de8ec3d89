"""Judging in batch mode: every item advances one step per batch, all items together.

Each step replays every unfinished item from the start with the :class:`BatchEngine`: calls whose
answers are in are answered at once, and the first unanswered call of each independent branch
parks. All parked requests (deduplicated, minus those already in a batch) go out as one batch per
provider, split at its limits; the runner then polls every open batch with a growing delay, records
each line's answer or failure in the ledger, and replays again. An item that completes is
journaled like an online result. A request that failed or expired is sent again in the next batch;
after ``attempts`` batches its item is unscored with the provider's reason.

Replaying from the start costs client CPU (each step re-formats the calls already answered), but
holds nothing between steps: no thread per item, and a killed run resumes from the ledger alone.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from typing import Any, Callable

from tribunal.eval.mt.batch.engine import BatchEngine, Parked, collecting, gather
from tribunal.eval.mt.batch.ledger import BatchLedger, BatchRecord, ledger_path
from tribunal.eval.mt.batch.pricing import batch_spend, tokens
from tribunal.eval.mt.batch.lines import BatchLine, BatchProvider
from tribunal.eval.mt.batch.providers import make_provider, provider_of, split
from tribunal.eval.mt.config import EvaluateConfig
from tribunal.core.mt_item import JudgeItem
from tribunal.core.item_result import ItemResult
from tribunal.eval.mt.journal import Journal
from tribunal.core.scheduling import Scheduler, scheduled
from tribunal.eval.mt.judge_builder import program_factory


def providers_for(config: EvaluateConfig) -> dict[str, BatchProvider]:
    """One batch client per provider the run's models use (the default LM's endpoint and key)."""
    key = None
    if config.lm.api_key_env:
        key = os.environ.get(config.lm.api_key_env)
        if not key:
            raise ValueError(f"environment variable {config.lm.api_key_env} (the API key) is not set")
    limits = {k: v for k, v in (("max_requests", config.batch.max_requests),) if v}
    names = {provider_of(model)[0] for model in [config.lm.model, *config.role_lms.values()]}
    return {name: make_provider(name, config.lm.api_base, key, **limits) for name in sorted(names)}


class BatchRun:
    """The step loop of one batch run; ``stats`` counts batches, requests and spend."""

    def __init__(self, config: EvaluateConfig, providers: dict[str, BatchProvider] | None = None,
                 sleep: Callable[[float], None] = time.sleep):
        signature = config.config_signature()
        self.config, self.sleep = config, sleep
        self.ledger = BatchLedger(ledger_path(config.output_dir, signature), signature)
        self.providers = providers or providers_for(config)
        engine = BatchEngine(self.ledger, self.providers, config.batch.attempts)
        # DSPy must not retry a failed request itself: the next batch does. A request is parked, not sent,
        # so --rpm/--tpm (online limits) do not pace collecting it.
        quiet = config.model_copy(update={"lm": config.lm.model_copy(update={"num_retries": 0, "rpm": None,
                                                                             "tpm": None})})
        self.program = program_factory(quiet, engine)()
        self.scheduler = Scheduler(gather=gather)
        self.stats: Counter = Counter()
        self.tokens: Counter = Counter()

    def judge(self, items: list[JudgeItem], languages: dict[str, str], journal: Journal,
              on_result: Callable[[ItemResult], None] | None = None) -> dict[str, Any]:
        """Judge ``items`` to the end; returns the run's batch statistics."""
        from tribunal.eval.mt.judging import judge_item  # read when called: tests patch judging.judge_item

        waiting = list(items)
        self.wait()  # batches a killed run left in flight: their answers first
        while waiting:
            wants: dict[str, tuple[str, BatchLine]] = {}
            still = []
            for item in waiting:
                try:
                    with collecting(wants), scheduled(self.scheduler):
                        result = judge_item(self.program, item, languages, self.config.sampling)
                except Parked:
                    still.append(item)
                    continue
                journal.append(result)
                if on_result:
                    on_result(result)
            self.stats["replays"] += len(waiting)
            waiting = still
            if not waiting:
                break
            if not self.submit(wants) and not self.ledger.pending():
                raise RuntimeError("batch mode: items wait for answers no batch will bring")
            self.stats["steps"] += 1
            self.wait()
        return self.summary()

    def submit(self, wants: dict[str, tuple[str, BatchLine]]) -> int:
        """Send the parked requests no open batch carries; returns the number of batches created."""
        flying = self.ledger.in_flight_keys()
        by_provider: dict[str, list[BatchLine]] = {}
        for key, (provider, line) in wants.items():
            if key not in flying and key not in self.ledger.answers:
                by_provider.setdefault(provider, []).append(line)
        created = 0
        for name, lines in by_provider.items():
            provider = self.providers[name]
            for chunk in split(lines, provider.max_requests, provider.max_bytes):
                record = self.ledger.open_batch(name, [line.custom_id for line in chunk])
                batch_id = provider.submit(chunk, lambda notes, n=record.number: self.ledger.record(
                    {"kind": "note", "batch": n, "notes": notes}))
                self.ledger.record({"kind": "submitted", "batch": record.number, "id": batch_id})
                self.stats["batches"] += 1
                self.stats["requests"] += len(chunk)
                created += 1
        return created

    def wait(self) -> None:
        """Poll every open batch (the delay grows 1.5x per round) until all are collected."""
        for record in self.ledger.pending():
            if record.id is None:
                self.recover(record)
        delay = self.config.batch.poll_seconds
        while True:
            for record in self.ledger.pending():
                ended, _ = self.providers[record.provider].ended(record.id)
                if ended:
                    self.collect(record)
            if not self.ledger.pending():
                return
            self.sleep(delay)
            delay = min(delay * 1.5, self.config.batch.poll_max_seconds)

    def recover(self, record: BatchRecord) -> None:
        """A submission cut off before its id was journaled: find the batch, or give its requests back."""
        batch_id = self.providers[record.provider].recover(record.notes)
        if batch_id is not None:
            self.ledger.record({"kind": "submitted", "batch": record.number, "id": batch_id})
            self.stats["reattached"] += 1
        else:  # nothing was created (or cannot be found): its requests go out in the next batch
            self.ledger.record({"kind": "collected", "batch": record.number, "abandoned": True})

    def collect(self, record: BatchRecord) -> None:
        """Record every line's answer or failure (lines without an outcome fail with the batch's status)."""
        provider = self.providers[record.provider]
        records, seen = [], set()
        for outcome in provider.outcomes(record.id):
            if outcome.custom_id not in record.keys or outcome.custom_id in seen:
                continue
            seen.add(outcome.custom_id)
            if outcome.response is not None:
                records.append({"kind": "answer", "key": outcome.custom_id, "response": outcome.response})
                model = outcome.response.get("model") or self.config.lm.model
                spent_in, spent_out = tokens(record.provider, outcome.response)
                self.tokens[(model, "in")] += spent_in
                self.tokens[(model, "out")] += spent_out
                self.stats["answered"] += 1
            else:
                records.append({"kind": "failed", "key": outcome.custom_id, "reason": outcome.error})
                self.stats["failed"] += 1
        missing = [key for key in record.keys if key not in seen]
        if missing:
            reason = provider.failure(record.id)
            records += [{"kind": "failed", "key": key, "reason": reason} for key in missing]
            self.stats["failed"] += len(missing)
        self.ledger.record(*records, {"kind": "collected", "batch": record.number})

    def summary(self) -> dict[str, Any]:
        spend: float | None = 0.0
        for model in {m for m, _ in self.tokens}:
            cost = batch_spend(model, self.tokens[(model, "in")], self.tokens[(model, "out")])
            spend = None if cost is None or spend is None else spend + cost
        return {**{k: self.stats[k] for k in ("steps", "batches", "requests", "answered", "failed", "reattached",
                                              "replays")},
                "input_tokens": sum(v for (_, kind), v in self.tokens.items() if kind == "in"),
                "output_tokens": sum(v for (_, kind), v in self.tokens.items() if kind == "out"),
                "spend_usd_batch_price": spend, "ledger": str(self.ledger.path)}


def judge_in_batches(config: EvaluateConfig, items: list[JudgeItem], languages: dict[str, str], journal: Journal,
                     on_result: Callable[[ItemResult], None] | None = None,
                     on_ready: Callable[[], None] | None = None) -> dict[str, Any]:
    """Judge ``items`` through the providers' batch APIs; ``on_ready`` runs once the program is built."""
    run = BatchRun(config)
    if on_ready:
        on_ready()
    return run.judge(items, languages, journal, on_result)
