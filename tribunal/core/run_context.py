"""The run context: the per-call state of a run, one immutable object in one context variable.

Modelled on DSPy's ``settings`` / ``dspy.context``: what the code of one item (one thread, one task,
one fanned-out call) runs under -- its scheduler and priority, the call slot it holds, the usage
meter and call log counting its calls, the stage and role of the LM call being made, the sample of
an ensemble, and so on -- is one :class:`RunContext`. :func:`current` reads it;
:func:`run_context` runs a block under a copy with some fields changed and restores the previous
object on exit (a token reset, so an exception restores it too). A thread or asyncio task that
copies the context (``contextvars.copy_context``, ``asyncio`` tasks) copies the object with it.

Each module that owns a field keeps its own public functions (``roles.calls_as``,
``meter.metering``, ``scheduling.scheduled``, ...) and sets its field through :func:`setter`: one
field changed is one tuple built, cheap enough for the per-LM-call path. Fields holding mutable
containers (the calls seen, the batch requests wanted) hold the very object the owner created, so
every copy of the context shares it, as the separate context variables shared theirs.

The fields' types name classes of the layers above only under ``TYPE_CHECKING`` (the layering rule
exempts those imports): this module imports nothing from tribunal at run time.
"""

from __future__ import annotations

import contextlib
import contextvars
from types import MappingProxyType
from typing import TYPE_CHECKING, Callable, Iterator, Mapping, NamedTuple

if TYPE_CHECKING:
    from tribunal.core.rate_pacer import RatePacer
    from tribunal.core.scheduling import Scheduler, Ticket
    from tribunal.eval.mt.batch.lines import BatchLine
    from tribunal.eval.tracking.call_log import CallLog
    from tribunal.programs.answers.provider_calls import SeenCall
    from tribunal.programs.answers.reask import Feedback
    from tribunal.programs.call_observers import CallObserver
    from tribunal.runner.meter import UsageMeter

__all__ = ["RunContext", "current", "reset", "run_context", "setter"]

_NO_SEGMENT_INPUTS: Mapping[str, object] = MappingProxyType({})


class RunContext(NamedTuple):
    """The state the code of one item runs under (every field's default: nothing set).

    A ``NamedTuple``: immutable, no instance dict (``__slots__ = ()``), fields read by C getters, and
    a copy with one field changed is one tuple (the hot path changes several per LM call).
    """

    scheduler: Scheduler | None = None
    """The runner's scheduler (:func:`tribunal.core.scheduling.scheduled`)."""
    priority: float = 0
    """The item's priority under the scheduler (lower first)."""
    ticket: Ticket | None = None
    """A call slot taken for the item before it started (its first call uses it)."""
    calls_ahead: int | None = None
    """The calls still after the enclosed ones (:func:`tribunal.core.scheduling.calls_ahead`)."""
    deferred_slot: tuple[str | None] | None = None
    """``(stage,)`` of the deferred call slot this code runs in (the LM takes it per request)."""
    fan_out_depth: int = 0
    """How many fan-outs deep this call runs (0: the item's own thread)."""
    call_slot: int | None = None
    """The number of the call slot held (:func:`tribunal.core.call_slots.current_slot`)."""
    paced_by: RatePacer | None = None
    """The rate pacer of the request out (its transport reports the response's headers to it)."""
    meter: UsageMeter | None = None
    """The usage meter counting the calls (:func:`tribunal.runner.meter.metering`)."""
    call_log: CallLog | None = None
    """The call log recording the calls (:func:`tribunal.eval.tracking.call_log.recording`)."""
    batch_wants: dict[str, tuple[str, BatchLine]] | None = None
    """Where batch mode's parked requests go (:func:`tribunal.eval.mt.batch.engine.collecting`)."""
    observers: tuple[CallObserver, ...] = ()
    """The call observers installed (:func:`tribunal.programs.call_observers.observing`)."""
    predictor_call: tuple[str, object] | None = None
    """``(call id, predictor)`` of the reported predictor call in progress (any DSPy module)."""
    lm_call: str | None = None
    """The id of the reported LM call in progress."""
    seen_calls: list[SeenCall] | None = None
    """The LM calls completed so far in :func:`tribunal.programs.answers.provider_calls.watching`."""
    feedback: Feedback | None = None
    """What the re-ask being formatted tells the model (None: a first ask)."""
    reask: str | None = None
    """The kind of unusable answer the LM call re-asks about (None: not a re-ask)."""
    call: tuple[str, str] = ("other", "other")
    """``(stage, role)`` of the LM call being made (:func:`tribunal.programs.mqm.roles.calls_as`)."""
    subject: str | None = None
    """What the calls are about, e.g. a debate's dimension (None: the item)."""
    rollout: int | None = None
    """The sample of an ensemble the calls belong to (:mod:`tribunal.programs.mqm.sampling`)."""
    segment_inputs: Mapping[str, object] = _NO_SEGMENT_INPUTS
    """The item's reference and context (:func:`tribunal.programs.mqm.segment_inputs.segment_aware`)."""


_RUN: contextvars.ContextVar[RunContext] = contextvars.ContextVar("tribunal_run_context", default=RunContext())
_NEW = tuple.__new__
_INDEX = {name: index for index, name in enumerate(RunContext._fields)}


def _changed(run: RunContext, changes: Mapping[str, object]) -> RunContext:
    """``run`` with ``changes``: ``RunContext._replace`` without its per-field pass (the hot path's copy)."""
    fields = list(run)
    for name, value in changes.items():
        index = _INDEX.get(name)
        if index is None:
            raise ValueError(f"no run context field {name!r}; fields: {', '.join(RunContext._fields)}")
        fields[index] = value
    return _NEW(RunContext, fields)


def current() -> RunContext:
    """The run context of the calling code (every field at its default when nothing was set)."""
    return _RUN.get()


@contextlib.contextmanager
def run_context(**changes: object) -> Iterator[RunContext]:
    """Run the enclosed block under a copy of the current run context with ``changes`` (field=value).

    The previous context is restored on exit, exception or not. An unknown field raises ``ValueError``.
    """
    token = _RUN.set(_changed(_RUN.get(), changes))
    try:
        yield _RUN.get()
    finally:
        _RUN.reset(token)


def setter(field: str) -> Callable[[object], contextvars.Token[RunContext]]:
    """A function setting ``field`` of the current run context to its argument; it returns the token
    that :func:`reset` takes to restore the previous context (the whole object: set and reset in
    nested order, as a ``with`` block does)."""
    if field not in _INDEX:
        raise ValueError(f"no run context field {field!r}; fields: {', '.join(RunContext._fields)}")
    index = _INDEX[field]

    def set_field(value: object) -> contextvars.Token[RunContext]:
        fields = list(_RUN.get())
        fields[index] = value
        return _RUN.set(_NEW(RunContext, fields))

    set_field.__name__ = f"set_{field}"
    return set_field


def reset(token: contextvars.Token[RunContext]) -> None:
    """Restore the run context a :func:`setter` function (or :func:`run_context`) replaced."""
    _RUN.reset(token)
