"""Predictor and LM calls of tribunal's own code, reported to observers without DSPy's callback machinery.

DSPy runs an instance's callbacks through ``with_callbacks``: for each wrapped call a uuid and an
``inspect.getcallargs`` of its arguments, whatever the callbacks then do (about 40 us each, and an
M-MAD call passes two such wrappers: the predictor's and the LM's). tribunal's programs call every
predictor through :func:`~tribunal.programs.answers.reask.ask` and every LM tribunal builds is a
:class:`~tribunal.programs.tribunal_lm.TribunalLM`, so both report here directly instead: the usage
meter (:mod:`tribunal.runner.meter`) and the call log (:mod:`tribunal.eval.tracking.call_log`)
observe the same starts and ends, with ids that link an LM call to the predictor call it serves.
DSPy's callbacks still run for anything else: callbacks a user installs, LMs that are not tribunal's,
and the predictors of a program that is not tribunal's (its relays are attached as before).

An observer is installed for a context (:func:`observing`); calls made outside any observer cost a
look-up of the run context (:mod:`tribunal.core.run_context`). Ids are ``tribunal-<n>``, unique in the process.
"""

from __future__ import annotations

import contextlib
import itertools
from typing import Any, Iterator

from tribunal.core.run_context import current, reset, setter

_SET_OBSERVERS = setter("observers")
_SET_PREDICTOR = setter("predictor_call")
_SET_LM = setter("lm_call")
_IDS = itertools.count(1)  # next() on a count is atomic under the GIL


class CallObserver:
    """What an observer may hear of (every method does nothing unless overridden)."""

    def predictor_started(self, call_id: str, predictor: Any, inputs: dict[str, Any]) -> None:
        """A predictor is called with ``inputs`` (its keyword arguments)."""

    def predictor_ended(self, call_id: str, outputs: Any, exception: BaseException | None) -> None:
        """The predictor call ``call_id`` returned ``outputs`` or raised ``exception``."""

    def lm_started(self, call_id: str, lm: Any) -> None:
        """``lm`` starts a call (inside the predictor call :func:`current_predictor_call`, if any)."""

    def lm_ended(self, call_id: str, exception: BaseException | None) -> None:
        """The LM call ``call_id`` ended (``exception``: it failed after DSPy's retries)."""

    def runaway(self) -> None:
        """The answer just received was cut while repeating itself (:mod:`tribunal.programs.answers.runaway`)."""


@contextlib.contextmanager
def observing(observer: CallObserver) -> Iterator[CallObserver]:
    """Report the calls made in this context to ``observer`` (besides the observers already installed)."""
    token = _SET_OBSERVERS((*current().observers, observer))
    try:
        yield observer
    finally:
        reset(token)


def _new_id() -> str:
    return f"tribunal-{next(_IDS)}"


def call_predictor(predictor: Any, **inputs: Any) -> Any:
    """``predictor(**inputs)``, reported to the observers of this context."""
    observers = current().observers
    if not observers:
        return predictor(**inputs)
    with _reported(observers, predictor, inputs) as report:
        return report(predictor(**inputs))


async def acall_predictor(predictor: Any, **inputs: Any) -> Any:
    """``await predictor.acall(**inputs)``, reported as :func:`call_predictor` reports its call."""
    observers = current().observers
    if not observers:
        return await predictor.acall(**inputs)
    with _reported(observers, predictor, inputs) as report:
        return report(await predictor.acall(**inputs))


@contextlib.contextmanager
def _reported(observers: tuple["CallObserver", ...], predictor: Any, inputs: dict[str, Any]) -> Iterator[Any]:
    """Around one predictor call: its start, then its outputs (``report(outputs)``) or its exception."""
    call_id = _new_id()
    token = _SET_PREDICTOR((call_id, predictor))
    try:
        for observer in observers:
            observer.predictor_started(call_id, predictor, inputs)

        ended = []

        def report(outputs: Any) -> Any:
            ended.append(True)  # an observer that raises here is not told the call failed
            for observer in observers:
                observer.predictor_ended(call_id, outputs, None)
            return outputs

        try:
            yield report
        except BaseException as exc:
            if ended:
                raise
            for observer in observers:
                observer.predictor_ended(call_id, None, exc)
            raise
    finally:
        reset(token)


def current_predictor_call() -> tuple[str, Any] | None:
    """``(call id, predictor)`` of the reported predictor call in progress here, else None."""
    return current().predictor_call


@contextlib.contextmanager
def lm_call(lm: Any) -> Iterator[str | None]:
    """An LM call of ``lm`` made in this block, reported to the observers (its id; None without observers)."""
    observers = current().observers
    if not observers:
        yield None
        return
    call_id = _new_id()
    token = _SET_LM(call_id)
    try:
        for observer in observers:
            observer.lm_started(call_id, lm)
        try:
            yield call_id
        except BaseException as exc:
            for observer in observers:
                observer.lm_ended(call_id, exc)
            raise
        for observer in observers:
            observer.lm_ended(call_id, None)
    finally:
        reset(token)


def report_runaway() -> None:
    """Tell the observers of this context that the answer just received is a runaway."""
    for observer in current().observers:
        observer.runaway()


def current_lm_call() -> str | None:
    """The id of the reported LM call in progress here, else None."""
    return current().lm_call
