"""Judging items concurrently: bounded threads, one program per thread, results into the journal.

An LM failure after DSPy's retries, or an answer DSPy cannot parse into the signature's types,
leaves the item *unscored* with its reason: it is never turned into a score. Retries with backoff
for rate limits, timeouts and server errors happen in DSPy's LM layer (``num_retries``).
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Any, Callable, Iterable

from tribunal.eval.mt.items import JudgeItem
from tribunal.eval.mt.journal import ItemResult, Journal
from tribunal.eval.mt.meter import UsageMeter
from tribunal.eval.tracking.secrets import redact_text


def unscored_reason(exc: BaseException) -> str | None:
    """A short label for an exception that makes an item unscored; None for a bug (re-raised)."""
    import pydantic
    from dspy.utils import exceptions as dx

    from tribunal.programs.mqm.roles import UnusableAnswer

    labels = [
        (dx.AdapterParseError, "unparseable answer"),
        (dx.LMRateLimitError, "rate limited (retries exhausted)"),
        (dx.LMTimeoutError, "timeout (retries exhausted)"),
        (dx.LMServerError, "server error (retries exhausted)"),
        (dx.LMTransportError, "connection error (retries exhausted)"),
        (dx.LMError, f"LM error ({type(exc).__name__})"),
        (pydantic.ValidationError, "invalid answer"),
        (UnusableAnswer, "invalid answer"),
    ]
    return next((label for kind, label in labels if isinstance(exc, kind)), None)


def judge_item(program: Any, item: JudgeItem, languages: dict[str, str]) -> ItemResult:
    """Run ``program`` on one item under a fresh usage meter."""
    import dspy

    meter = UsageMeter()
    started = time.perf_counter()
    with dspy.context(callbacks=[meter], usage_tracker=meter, disable_history=True):
        try:
            prediction = program(source=item.source, translation=item.translation, **languages)
        except Exception as exc:  # classified below; anything unknown is a bug and propagates
            label = unscored_reason(exc)
            if label is None:
                raise
            detail = redact_text(" ".join(str(exc).split()))[:300]
            return ItemResult(key=item.key, status="unscored", reason=f"{label}: {detail}",
                              usage=meter.summary(), seconds=time.perf_counter() - started)
    return ItemResult(
        key=item.key, status="scored", score=float(prediction.score),
        errors=[e.model_dump() for e in prediction.errors], transcript=prediction.transcript,
        debates=prediction.debates, usage=meter.summary(), seconds=time.perf_counter() - started,
    )


def judge_all(
    make_program: Callable[[], Any],
    items: Iterable[JudgeItem],
    languages: dict[str, str],
    journal: Journal,
    concurrency: int = 8,
    on_result: Callable[[ItemResult], None] | None = None,
) -> None:
    """Judge every item with at most ``concurrency`` in flight; each result is journaled as it lands."""
    local = threading.local()

    def work(item: JudgeItem) -> ItemResult:
        if not hasattr(local, "program"):
            local.program = make_program()
        result = judge_item(local.program, item, languages)
        journal.append(result)  # in the worker: the fsync releases the GIL and never stalls dispatch
        return result

    pending = iter(items)
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="judge") as pool:
        running = set()
        try:
            while True:
                while len(running) < concurrency:
                    item = next(pending, None)
                    if item is None:
                        break
                    running.add(pool.submit(work, item))
                if not running:
                    return
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    result = future.result()
                    if on_result:
                        on_result(result)
        except BaseException:
            for future in running:
                future.cancel()
            raise
