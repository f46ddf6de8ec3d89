"""Judging across worker processes, for runs whose client CPU (DSPy's per-call work under the GIL)
would otherwise stretch every LM call.

Each worker process builds the program once and runs its judging path's runner
(:data:`~tribunal.eval.mt.async_judging.RUNNERS`: threads, or one event loop per worker with
``--judging async``) on its share of the call slots (``concurrency`` is split, so the bound on LM
calls in flight holds for the whole run; so are ``--rpm``/``--tpm``, :func:`rate_share`). Items
are handed out from one queue as workers have room, so a fast worker takes more; results come back
to this process, which journals them (the journal has one writer) and reports progress. Workers need an HTTP engine: a scripted in-process engine cannot cross processes.

Ctrl-C reaches only this process (workers start with SIGINT ignored): it takes back the items no
worker has started, lets the workers finish and report the ones in flight, journals them, and
re-raises the KeyboardInterrupt.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue as queue_module
import signal
import threading
from typing import Any, Callable, Iterator

from tribunal.eval.mt.config import EvaluateConfig
from tribunal.core.mt_item import JudgeItem
from tribunal.core.item_result import ItemResult
from tribunal.eval.mt.journal import Journal
from tribunal.eval.mt.judge_builder import program_factory
from tribunal.eval.mt.async_judging import RUNNERS
from tribunal.programs.server_lost import LocalServerLost
from tribunal.quiet import worker_output


def rate_share(config: EvaluateConfig, share: int) -> EvaluateConfig:
    """``config`` for a worker holding ``share`` of its call slots: ``--rpm``/``--tpm`` split in the same
    proportion (each process paces its own requests; together they keep to the limit)."""
    part = share / config.concurrency
    lm = config.lm
    rates = {k: v * part for k, v in (("rpm", lm.rpm), ("tpm", lm.tpm)) if v is not None}
    return config.model_copy(update={"lm": lm.model_copy(update=rates)}) if rates else config


def slot_shares(concurrency: int, processes: int) -> list[int]:
    """Split ``concurrency`` call slots over at most ``processes`` workers (each gets at least one)."""
    workers = max(1, min(processes, concurrency))
    return [concurrency // workers + (1 if i < concurrency % workers else 0) for i in range(workers)]


class _ToParent:
    """Stands in for the journal inside a worker: every result goes to the parent process."""

    def __init__(self, results: Any):
        self.results = results

    def append(self, result: ItemResult) -> None:
        self.results.put(("result", result.model_dump_json()))


def _items(items: Any, parent: int) -> Iterator[JudgeItem]:
    """Items from the shared queue until the end mark; stop if the parent process is gone."""
    while True:
        try:
            item = items.get(timeout=1.0)
        except queue_module.Empty:
            if os.getppid() != parent:
                return  # orphaned: start nothing new
            continue
        if item is None:
            return
        yield item


def _worker(config_json: str, languages: dict[str, str], slots: int, items: Any, results: Any, parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides how to stop
    with worker_output():  # the command's output policy: libraries stay quiet unless --verbose
        _work(config_json, languages, slots, items, results, parent)


def _work(config_json: str, languages: dict[str, str], slots: int, items: Any, results: Any, parent: int) -> None:
    """Build the program, say ready, judge what the queue brings; any failure goes to the parent."""
    try:
        config = EvaluateConfig.model_validate_json(config_json)
        make_program = program_factory(config)
        make_program()  # build (and fail) before the parent starts the clock
        results.put(("ready", None))
        RUNNERS[config.judging](make_program, _items(items, parent), languages, _ToParent(results), slots,
                                fan_out=config.fan_out, sampling=config.sampling)
        results.put(("done", None))
    except BaseException as err:  # reported to the parent, which stops the run with it
        if isinstance(err, LocalServerLost):  # the parent stops with the same one line, journal kept
            results.put(("lost", (err.headline, err.log)))
        else:
            results.put(("failed", f"{type(err).__name__}: {err}"))


def judge_in_processes(
    config: EvaluateConfig,
    items: list[JudgeItem],
    languages: dict[str, str],
    journal: Journal,
    on_result: Callable[[ItemResult], None] | None = None,
    on_ready: Callable[[], None] | None = None,
) -> None:
    """Judge ``items`` in ``config.processes`` workers; ``on_ready`` runs once all have built their program."""
    context = multiprocessing.get_context("spawn")
    item_queue, results = context.Queue(), context.Queue()
    shares = slot_shares(config.concurrency, config.processes)
    workers = [context.Process(target=_worker, daemon=True, name=f"judge-worker-{i}",
                               args=(rate_share(config, share).model_dump_json(), languages, share, item_queue,
                                     results, os.getpid()))
               for i, share in enumerate(shares)]
    with _sigint_ignored():  # a worker started meanwhile keeps SIGINT ignored from its first instruction
        for worker in workers:
            worker.start()
    try:
        _await(results, workers, "ready")
        if on_ready:
            on_ready()
        for item in items:
            item_queue.put(item)
        for _ in workers:
            item_queue.put(None)
        finished = [0]  # workers that reported "done"
        try:
            _collect(results, workers, journal, on_result, finished)
        except KeyboardInterrupt:
            _take_back(item_queue, len(workers))
            _collect(results, workers, journal, on_result, finished)  # the items in flight, then stop
            raise
    finally:
        for worker in workers:
            if worker.is_alive():
                worker.terminate()
            worker.join(timeout=5)


def _collect(results: Any, workers: list[Any], journal: Journal,
             on_result: Callable[[ItemResult], None] | None, finished: list[int]) -> None:
    """Journal results until every worker reports it is done (``finished[0]`` counts them)."""
    while finished[0] < len(workers):
        kind, payload = _next(results, workers)
        if kind == "result":
            result = ItemResult.model_validate_json(payload)
            journal.append(result)
            if on_result:
                on_result(result)
        elif kind == "done":
            finished[0] += 1


def _take_back(item_queue: Any, workers: int) -> None:
    """Empty the item queue (items no worker started), then end every worker's stream."""
    with contextlib.suppress(queue_module.Empty):
        while True:
            item_queue.get(timeout=0.2)
    for _ in range(workers):
        item_queue.put(None)


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _next(results: Any, workers: list[Any]) -> tuple[str, Any]:
    while True:
        try:
            kind, payload = results.get(timeout=1.0)
        except queue_module.Empty:
            dead = [w.name for w in workers if not w.is_alive() and w.exitcode not in (0, None)]
            if dead:
                raise RuntimeError(f"judge worker(s) {', '.join(dead)} died") from None
            continue
        if kind == "failed":
            raise RuntimeError(f"a judge worker failed: {payload}")
        if kind == "lost":
            raise LocalServerLost(*payload)
        return kind, payload


def _await(results: Any, workers: list[Any], expected: str) -> None:
    seen = 0
    while seen < len(workers):
        kind, _ = _next(results, workers)
        if kind != expected:
            raise RuntimeError(f"judge worker sent {kind!r} before {expected!r}")
        seen += 1
