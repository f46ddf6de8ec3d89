"""A judge's calls written once, run by threads or by coroutines: plans.

A *plan* is a generator that yields what it needs done and is sent the result: an :class:`Ask` (one
predictor call through :func:`~tribunal.programs.mqm.roles.invoke`), a :class:`Sub` (a sub-module's
call, e.g. M-MAD's debate strategy), or a :class:`Together` (several
calls or sub-plans, independent of each other: :func:`~tribunal.core.scheduling.fan_out`). A call's
exception (an unusable answer) is thrown back into the plan at its ``yield``, so the plan's own
``try``/``except`` takes its fallback. The plan's return value is its result.

:func:`run` drives a plan on the calling thread (``invoke``, ``fan_out``): what ``forward`` does, the
calls in the same order, the same fan-out. :func:`arun` drives the same plan as a coroutine
(``ainvoke``, :func:`~tribunal.core.async_scheduling.afan_out`): what ``aforward`` does
(``mt evaluate --judging async``). Context variables a plan sets around a ``yield`` (``calls_ahead``,
the subject of a debate) are set while its call runs, on either driver: a generator runs in its
driver's context.
"""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass, field
from typing import Any, Generator, Iterator, Sequence

from tribunal.core.async_scheduling import afan_out
from tribunal.core.scheduling import fan_out
from tribunal.programs.mqm.roles import ainvoke, invoke

Plan = Generator[Any, Any, Any]


@dataclass(frozen=True)
class Ask:
    """One predictor call: ``invoke(lms, role, stage, predictor, check, **inputs)``."""

    lms: Any
    role: str
    stage: str
    predictor: Any
    inputs: dict[str, Any] = field(default_factory=dict)
    check: Any = None


@dataclass(frozen=True)
class Together:
    """Independent parts (each an :class:`Ask` or a plan), run side by side; sent back their results, in order.

    The first part's exception (in order) is thrown into the plan once every part ended."""

    parts: Sequence[Any]


@dataclass(frozen=True)
class Sub:
    """A sub-module's call: ``module(*args)`` on threads, ``await module.acall(*args)`` as a coroutine."""

    module: Any
    args: tuple = ()


def ask(lms: Any, role: str, stage: str, predictor: Any, check: Any = None, **inputs: Any) -> Ask:
    """The :class:`Ask` for ``invoke(lms, role, stage, predictor, check=check, **inputs)``."""
    return Ask(lms, role, stage, predictor, inputs, check)


def run(plan: Plan) -> Any:
    """Drive ``plan`` on this thread (the threaded runner's path); returns its result."""
    with _closed_here(plan):
        return _drive(plan)


@contextlib.contextmanager
def _closed_here(plan: Plan) -> Iterator[None]:
    """Close ``plan`` in this context when what stops it is not thrown into it.

    A ``BaseException`` (batch mode's ``Parked``, Ctrl-C, a cancelled task) leaves the generator
    suspended at its ``yield``; closed later by the garbage collector, in whatever context and thread
    that runs, its ``with calls_ahead(...)`` would reset a context variable's token outside the
    context that set it. Closing it here runs its ``finally`` blocks where they belong."""
    try:
        yield
    except BaseException:
        plan.close()
        raise


def _drive(plan: Plan) -> Any:
    sent, thrown = None, None
    while True:
        try:
            need = plan.throw(thrown) if thrown is not None else plan.send(sent)
        except StopIteration as done:
            return done.value
        sent, thrown = None, None
        try:
            sent = _do(need)
        except Exception as exc:  # noqa: BLE001 - handed to the plan, which re-raises what it does not take
            thrown = exc


def _do(need: Any) -> Any:
    if isinstance(need, Ask):
        return invoke(need.lms, need.role, need.stage, need.predictor, need.check, **need.inputs)
    if isinstance(need, Sub):
        return need.module(*need.args)
    if isinstance(need, Together):
        return fan_out([functools.partial(_part, part) for part in need.parts])
    raise TypeError(f"a plan yielded {type(need).__name__}, not an Ask, Sub or Together")


def _part(part: Any) -> Any:
    return _do(part) if isinstance(part, (Ask, Sub, Together)) else run(part)


async def arun(plan: Plan) -> Any:
    """Drive ``plan`` as a coroutine (the async runner's path); returns its result."""
    with _closed_here(plan):
        return await _adrive(plan)


async def _adrive(plan: Plan) -> Any:
    sent, thrown = None, None
    while True:
        try:
            need = plan.throw(thrown) if thrown is not None else plan.send(sent)
        except StopIteration as done:
            return done.value
        sent, thrown = None, None
        try:
            sent = await _ado(need)
        except Exception as exc:  # noqa: BLE001 - handed to the plan, which re-raises what it does not take
            thrown = exc


async def _ado(need: Any) -> Any:
    if isinstance(need, Ask):
        return await ainvoke(need.lms, need.role, need.stage, need.predictor, need.check, **need.inputs)
    if isinstance(need, Sub):
        return await need.module.acall(*need.args)
    if isinstance(need, Together):
        return await afan_out([functools.partial(_apart, part) for part in need.parts])
    raise TypeError(f"a plan yielded {type(need).__name__}, not an Ask, Sub or Together")


async def _apart(part: Any) -> Any:
    return await _ado(part) if isinstance(part, (Ask, Sub, Together)) else await arun(part)
