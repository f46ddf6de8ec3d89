"""The contract between an LM, its HTTP transport and a rate pacer: a request waits its turn, the answer
reports what it used, the response's headers report the provider's limits.

:func:`tribunal.programs.lm.build_lm` gives every LM the pacer of its provider model
(:func:`set_pacer`). tribunal's LM wraps each request in :func:`paced` (threads) or :func:`apaced`
(the event loop) *while holding its call slot*: the slots hand requests over in the scheduler's
critical-path order and the pacer gives turns in the order asked, so the request that got its slot
first is sent first. A slot waiting for its turn is idle, which costs nothing when the provider's
rate, not the slots, is what bounds the run; a request waiting before its slot would let later,
lower-priority requests take the turns.

A request DSPy's response cache answers is not paced (it is not sent). While a paced request is out,
the transport that sends it calls :func:`report_response` with each response's status and headers
(:mod:`tribunal.programs.thread_transport`, :mod:`tribunal.programs.async_server_engine`): the pacer
of that request hears them (a field of the run context, :mod:`tribunal.core.run_context`, so it
follows the request's thread or task).
"""

from __future__ import annotations

import contextlib
from typing import AsyncIterator, Callable, Iterable, Iterator, TypeVar

from dspy.clients.base_lm import BaseLM
from dspy.clients.execution import CallResult, PreparedCall

from tribunal.core.rate_limit_headers import read_rate_limits
from tribunal.core.rate_pacer import RatePacer, Turn
from tribunal.core.request_estimate import answered_by_cache, prompt_text, prompt_token_estimate
from tribunal.core.run_context import current, reset, setter

PACER_ATTRIBUTE = "tribunal_rate_pacer"
_SET_SENDING = setter("paced_by")
LM = TypeVar("LM", bound="BaseLM | None")
Settle = Callable[["CallResult | None"], None]
"""What :func:`paced` yields: called with the request's result (None: none came back)."""


def set_pacer(lm: LM, pacer: RatePacer | None) -> LM:
    """Give ``lm`` (a tribunal LM) the ``pacer`` its requests wait on (None: none); returns ``lm``."""
    if lm is not None:
        setattr(lm, PACER_ATTRIBUTE, pacer)
    return lm


def pacer_of(lm: BaseLM | None) -> RatePacer | None:
    """The pacer ``lm``'s requests wait on (None: none)."""
    return getattr(lm, PACER_ATTRIBUTE, None)


def _plan(lm: BaseLM, call: PreparedCall) -> tuple[RatePacer | None, float]:
    """``(pacer to wait on, estimated prompt tokens)``; no pacer when there is nothing to wait for."""
    pacer = pacer_of(lm)
    if pacer is None or not pacer.limited or answered_by_cache(lm, call):
        return None, 0.0
    return pacer, float(prompt_token_estimate(prompt_text(call)))


def _settler(pacer: RatePacer | None, turn: Turn | None) -> Settle:
    def settle(result: CallResult | None) -> None:
        if pacer is None or turn is None or result is None or getattr(result, "cache_hit", False):
            return
        usage = getattr(result, "usage", None) or {}
        total = usage.get("total_tokens") or (usage.get("prompt_tokens") or 0) + (usage.get("completion_tokens") or 0)
        pacer.settle(turn, float(total) if total else None)

    return settle


@contextlib.contextmanager
def paced(lm: BaseLM, call: PreparedCall) -> Iterator[Settle]:
    """Around one request of ``lm`` (DSPy's prepared ``call``): waits for its turn, yields ``settle(result)``."""
    pacer, tokens = _plan(lm, call)
    turn = pacer.wait(tokens) if pacer is not None else None
    token = _SET_SENDING(pacer_of(lm))
    try:
        yield _settler(pacer, turn)
    finally:
        reset(token)


@contextlib.asynccontextmanager
async def apaced(lm: BaseLM, call: PreparedCall) -> AsyncIterator[Settle]:
    """:func:`paced` for a coroutine: the turn is awaited (``asyncio.sleep``), the loop never blocked."""
    pacer, tokens = _plan(lm, call)
    turn = await pacer.await_turn(tokens) if pacer is not None else None
    token = _SET_SENDING(pacer_of(lm))
    try:
        yield _settler(pacer, turn)
    finally:
        reset(token)


def report_response(status: int | None, headers: Iterable[tuple[str, str]] | None) -> None:
    """A transport got a response: its rate-limit headers go to the pacer of the request (if any)."""
    pacer = current().paced_by
    if pacer is not None and headers:
        pacer.observe(read_rate_limits(headers, status))
