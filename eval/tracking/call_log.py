"""What a DSPy program's predictors did, call by call: the raw material of a trace.

A :class:`CallLog` is installed for one unit of work (an MT item, an equivalence pair, a workflow
slot) with :func:`recording`. Predictors and LMs report to it (see below), so every predictor call
becomes one record: stage and role (:func:`tribunal.programs.mqm.roles.current_call`), signature
name, wall-clock start and end, inputs, typed outputs or the error (in one line, with the unusable
answer as ``raw_answer``), whether it re-asks an unusable answer (``reask``: its kind), and its LM
calls (model, count, failures, tokens).

tribunal's own programs and LMs report their calls directly (:mod:`tribunal.programs.call_observers`);
a program or LM of anyone else's gets the relay, a DSPy callback. The records are plain JSON (they
travel in the run journal and across worker processes), and traces are built from them after the
fact with their recorded timestamps, so nothing here depends on which thread or process ran a call.
The relay costs one ``inspect.getcallargs`` per predictor call (DSPy's callback machinery); nothing
runs while no log is installed.
"""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Any, Iterator

from dspy.utils.callback import BaseCallback
from dspy.utils.callback import ACTIVE_CALL_ID
import dspy

from tribunal.core.run_context import current, reset, setter
from tribunal.programs.answers.reask import current_reask
from tribunal.programs.call_observers import CallObserver, current_lm_call, current_predictor_call, observing
from tribunal.programs.answers.unusable import one_line
from tribunal.programs.mqm.roles import current_call, current_subject
from tribunal.programs.mqm.sampling import current_rollout

TEXT_LIMIT = 4000  # characters kept of one input or output string


def jsonable(value: Any, limit: int = TEXT_LIMIT) -> Any:
    """``value`` as JSON-ready data: pydantic models dumped, predictions as dicts, long text cut."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return value if len(value) <= limit else value[:limit] + f"... [{len(value) - limit} more characters]"
    if hasattr(value, "model_dump"):
        return jsonable(value.model_dump(mode="json"), limit)
    if hasattr(value, "items") and callable(value.items):  # dicts and dspy.Prediction
        return {str(k): jsonable(v, limit) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v, limit) for v in value]
    return jsonable(str(value), limit)


def _call_stage() -> tuple[str, str]:
    return current_call()


def _sample() -> int | None:
    return current_rollout()


def _subject() -> str | None:
    return current_subject()


def _predictor_call_id() -> str | None:
    """The predictor call an LM call serves: the one tribunal's code reported, else DSPy's active call."""
    reported = current_predictor_call()
    return reported[0] if reported is not None else ACTIVE_CALL_ID.get()


def _reported(predictor: Any) -> bool:
    """Whether this call of ``predictor`` is the one tribunal's code is reporting (the relay then keeps quiet)."""
    reported = current_predictor_call()
    return reported is not None and reported[1] is predictor


class CallLog(CallObserver):
    """Predictor calls of one unit of work; thread-safe (an item's calls may run side by side).

    It hears of calls from tribunal's own code as an observer (:mod:`tribunal.programs.call_observers`)
    and of the rest from the :data:`RELAY` callbacks, with the same records either way.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: dict[str, dict[str, Any]] = {}
        self._lm_parent: dict[str, str] = {}
        self.started = time.time()

    def start_predictor(self, call_id: str, instance: Any, inputs: dict[str, Any]) -> None:
        stage, role = _call_stage()
        arguments = inputs.get("kwargs", inputs)

        record = {"id": call_id, "stage": stage, "role": role, "subject": _subject(), "reask": current_reask(),
                  "signature": getattr(getattr(instance, "signature", None), "__name__", type(instance).__name__),
                  "start": time.time(), "end": None,
                  "inputs": jsonable({k: v for k, v in arguments.items() if k != "config"}),
                  "outputs": None, "error": None, "model": None, "lm_calls": 0, "lm_failures": 0,
                  "prompt_tokens": 0, "completion_tokens": 0}
        sample = _sample()
        if sample is not None:  # a sampled ensemble's call: its trace groups calls by sample
            record["sample"] = sample
        with self._lock:
            self._calls[call_id] = record

    def end_predictor(self, call_id: str, outputs: Any, exception: BaseException | None) -> None:
        with self._lock:
            record = self._calls.get(call_id)
            if record is None:
                return
            record["end"] = time.time()
            if exception is not None:
                record["error"] = f"{type(exception).__name__}: {one_line(exception)}"[:1000]
                raw = getattr(exception, "lm_response", None)  # the unusable answer itself
                if raw:
                    record["raw_answer"] = jsonable(str(raw))
            else:
                record["outputs"] = jsonable(outputs)

    def predictor_started(self, call_id: str, predictor: Any, inputs: dict[str, Any]) -> None:
        self.start_predictor(call_id, predictor, inputs)

    def predictor_ended(self, call_id: str, outputs: Any, exception: BaseException | None) -> None:
        self.end_predictor(call_id, outputs, exception)

    def lm_started(self, call_id: str, lm: Any) -> None:
        self.start_lm(call_id, lm)

    def lm_ended(self, call_id: str, exception: BaseException | None) -> None:
        self.end_lm(call_id, exception)

    def start_lm(self, call_id: str, instance: Any) -> None:
        parent = _predictor_call_id()  # the predictor whose adapter is calling this LM
        with self._lock:
            record = self._calls.get(parent or "")
            if record is None:
                return
            self._lm_parent[call_id] = parent
            record["lm_calls"] += 1
            record["model"] = getattr(instance, "model", None)

    def end_lm(self, call_id: str, exception: BaseException | None) -> None:
        if exception is None:
            return
        with self._lock:
            record = self._calls.get(self._lm_parent.get(call_id, ""))
            if record is not None:
                record["lm_failures"] += 1

    def add_usage(self, usage: dict[str, Any] | None) -> None:
        """Tokens of the LM call running on this thread (DSPy reports them inside the call)."""
        with self._lock:
            record = self._calls.get(self._lm_parent.get(current_lm_call() or ACTIVE_CALL_ID.get() or "", ""))
            if record is not None:
                record["prompt_tokens"] += int((usage or {}).get("prompt_tokens") or 0)
                record["completion_tokens"] += int((usage or {}).get("completion_tokens") or 0)

    def records(self) -> list[dict[str, Any]]:
        """The predictor calls in start order (copies)."""
        with self._lock:
            return sorted((dict(r) for r in self._calls.values()), key=lambda r: r["start"])

    def trace(self) -> dict[str, Any]:
        """What a trace needs: the unit's start and end (epoch seconds) and its calls."""
        return {"start": self.started, "end": time.time(), "calls": self.records()}


_SET_LOG = setter("call_log")


class _Relay(BaseCallback):
    """A predictor- and LM-instance callback forwarding to the call log being recorded (if any)."""

    def on_module_start(self, call_id: str, instance: Any, inputs: dict[str, Any]) -> None:
        log = current().call_log
        if log is not None and not _reported(instance):
            log.start_predictor(call_id, instance, inputs)

    def on_module_end(self, call_id: str, outputs: Any | None, exception: BaseException | None = None) -> None:
        log = current().call_log
        if log is not None:
            log.end_predictor(call_id, outputs, exception)  # a call the relay did not record is not found

    def on_lm_start(self, call_id: str, instance: Any, inputs: dict[str, Any]) -> None:
        log = current().call_log
        if log is not None:
            log.start_lm(call_id, instance)

    def on_lm_end(self, call_id: str, outputs: Any | None, exception: BaseException | None = None) -> None:
        log = current().call_log
        if log is not None:
            log.end_lm(call_id, exception)


RELAY = _Relay()


def reports_its_calls(program: Any) -> bool:
    """Whether ``program`` is one of tribunal's own: it calls every predictor through
    :func:`~tribunal.programs.answers.reask.ask`, which reports the calls (no relay needed)."""
    return type(program).__module__.startswith("tribunal.programs.")


def attach_call_log(program: Any, lms: list[Any] = ()) -> Any:
    """Give ``program``'s predictors and each LM in ``lms`` the relay, once, unless they report their calls
    themselves (:func:`reports_its_calls`, ``TribunalLM.reports_its_calls``); returns ``program``."""
    if not reports_its_calls(program):
        for _, predictor in program.named_predictors():
            if not any(isinstance(c, _Relay) for c in predictor.callbacks):
                predictor.callbacks.append(RELAY)
    for lm in lms:
        if lm is not None and not getattr(lm, "reports_its_calls", False) and \
                not any(isinstance(c, _Relay) for c in lm.callbacks):
            lm.callbacks.append(RELAY)
    return program


class _UsageTee:
    """DSPy's usage tracker slot holds one object: give the call log the tokens, then the previous tracker."""

    def __init__(self, log: CallLog, inner: Any):
        self._log, self._inner = log, inner

    def add_usage(self, model: str, usage: dict[str, Any] | None) -> None:
        self._log.add_usage(usage)
        if self._inner is not None:
            self._inner.add_usage(model, usage)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


@contextlib.contextmanager
def recording(log: CallLog) -> Iterator[CallLog]:
    """Record the calls made in this context (by relay-carrying predictors and LMs) into ``log``."""
    token = _SET_LOG(log)
    try:
        with dspy.context(usage_tracker=_UsageTee(log, dspy.settings.usage_tracker)), observing(log):
            yield log
    finally:
        reset(token)
