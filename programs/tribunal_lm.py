"""tribunal's own LM: a ``dspy.LM`` whose calls tribunal watches, keys by endpoint and explains, without changing DSPy.

Every LM tribunal builds (:func:`tribunal.programs.lm.build_lm`) is a :class:`TribunalLM`. It runs a
call the way DSPy's ``BaseLM.__call__`` does (DSPy's own ``prepare``, ``execute`` and ``finalize``:
callbacks, retries, the usage tracker, history and the response cache are DSPy's) with three
additions that only its own calls see:

- the prepared call is keyed by the endpoint it is sent to (:mod:`tribunal.programs.response_cache`),
  so another server's answers are never served from this one's cache entries;
- a completed call is recorded for the re-ask rule (:func:`tribunal.programs.answers.provider_calls.record`):
  its finish reason, token limit and cache entry;
- a read timeout's message names tribunal's option (:mod:`tribunal.programs.timeout_hint`);
- under a runner's scheduler, the call slot of the predictor call is held around the request alone
  (:func:`tribunal.core.scheduling.request_slot`): DSPy's prompt building and parsing are done
  outside it, so a slot is busy only while its request is out;
- a request waits for its turn under the provider's rate limit once its slot is held (:mod:`tribunal.core.pacing_gate`:
  ``--rpm``, ``--tpm`` and the limits the provider's headers report), then
- a capped run's request passes its spending gate (:mod:`tribunal.core.spending_gate`).

DSPy warns once per LM that a ``rollout_id`` "has no effect" at temperature 0. tribunal's re-asks
set one on purpose (it keeps a re-ask out of the cache; its request differs anyway), so a
:class:`TribunalLM` does not say it; any other LM still does. No DSPy module, class or global is
replaced: a plain ``dspy.LM`` in the same process behaves exactly as without tribunal
(``tests/programs/test_dspy_untouched.py``).
"""

from __future__ import annotations

from typing import Any

import dspy
from dspy.utils.callback import with_callbacks
from dspy.clients._deprecation import warn_openai_messages
from dspy.clients.execution import aexecute, execute, finalize, prepare

from tribunal.core.async_scheduling import arequest_slot
from tribunal.programs.async_server_engine import async_engine_for
from tribunal.core.scheduling import request_slot
from tribunal.core.pacing_gate import apaced, paced
from tribunal.core.spending_gate import gated
from tribunal.programs.call_observers import lm_call
from tribunal.programs.answers.provider_calls import record
from tribunal.programs.response_cache import keyed_by_endpoint
from tribunal.programs.timeout_hint import with_timeout_hint


class TribunalLM(dspy.LM):
    """A ``dspy.LM`` (same arguments) plus ``cache_endpoint``: the endpoint its cache entries are keyed by."""

    takes_call_slots = True
    """It holds its call slot around each request (:func:`~tribunal.core.scheduling.call_slot` with ``deferred``)."""

    reports_its_calls = True
    """Its calls are reported to tribunal's observers (:mod:`tribunal.programs.call_observers`), not by DSPy
    callbacks."""

    def __init__(self, model: str, *, cache_endpoint: str | None = None, **kwargs: Any):
        super().__init__(model, **kwargs)
        self.cache_endpoint = cache_endpoint

    def _warn_zero_temp_rollout(self, temperature: float | None, rollout_id: Any) -> None:
        """DSPy's hook for its rollout-id warning: not said for tribunal's re-asks (see the module docstring)."""

    def _prepared(self, prompt: Any, messages: Any, kwargs: dict, asynchronous: bool) -> Any:
        call = prepare(self, prompt, messages, kwargs, asynchronous=asynchronous)
        warn_openai_messages(self, messages)  # as DSPy's own LM call does (silent for an adapter's messages)
        return keyed_by_endpoint(call, self.cache_endpoint)

    @with_callbacks
    def __call__(self, prompt: Any = None, *, messages: Any = None, **kwargs: Any) -> Any:
        """DSPy's LM call (lists of outputs, or a Response for a Request), watched by tribunal."""
        with lm_call(self):
            try:
                call = self._prepared(prompt, messages, kwargs, asynchronous=False)
                with request_slot(), paced(self, call) as used, gated(self, call) as settle:
                    result = execute(self, call)
                    settle(result)
                    used(result)
            except Exception as err:  # noqa: BLE001 - re-raised as it is, its timeout hint in tribunal's terms
                with_timeout_hint(err)
                raise
            record(self, call, result)
            return finalize(self, call, result)

    def _ensure_async_engine(self) -> None:
        """Give a custom sync engine its async twin (:func:`~tribunal.programs.async_server_engine.async_engine_for`)
        the first time this LM is awaited; DSPy's own engines have theirs."""
        spec = self._engine_spec
        if not isinstance(spec, str) and self._async_engine_spec is None:
            self._async_engine_spec = async_engine_for(spec)

    @with_callbacks
    async def acall(self, prompt: Any = None, *, messages: Any = None, **kwargs: Any) -> Any:
        """The async counterpart of :meth:`__call__`."""
        self._ensure_async_engine()
        with lm_call(self):
            try:
                # On the loop, not on a helper thread as DSPy's acall does: preparing is pure Python under
                # the GIL, so the hop bought no parallelism and cost a future, a thread wake-up and a GIL
                # hand-over per call (benchmarks/bench_client_cpu.py).
                call = self._prepared(prompt, messages, kwargs, True)
                async with arequest_slot(), apaced(self, call) as used:
                    with gated(self, call) as settle:
                        result = await aexecute(self, call)
                        settle(result)
                        used(result)
            except Exception as err:  # noqa: BLE001 - re-raised as it is, its timeout hint in tribunal's terms
                with_timeout_hint(err)
                raise
            record(self, call, result)
            return finalize(self, call, result)
