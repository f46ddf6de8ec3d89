"""Plans stopped by what is not thrown into them (batch mode's Parked, Ctrl-C) are closed where they ran."""

import asyncio
import contextvars

import pytest

from tribunal.programs.mqm import plans
from tribunal.programs.mqm.plans import Sub

_VAR: contextvars.ContextVar = contextvars.ContextVar("test_plans_var", default=None)


class Stop(BaseException):
    """Stands for batch mode's Parked: a BaseException the plan does not catch."""


class Stopping:
    def __call__(self):
        raise Stop()

    async def acall(self):
        raise Stop()


def _plan(closed: list):
    token = _VAR.set("inside")
    try:
        yield Sub(Stopping())
    finally:
        _VAR.reset(token)  # raises ValueError if run in another context
        closed.append(_VAR.get())


def test_a_plan_stopped_by_a_base_exception_is_closed_on_its_thread():
    closed: list = []
    plan = _plan(closed)  # held, as a parked item's traceback holds it
    with pytest.raises(Stop):
        plans.run(plan)
    assert closed == [None]  # its finally ran at once, in its own context, not later in the GC


def test_a_plan_stopped_by_a_base_exception_is_closed_in_its_task():
    closed: list = []

    plan = _plan(closed)

    async def main():
        with pytest.raises(Stop):
            await plans.arun(plan)

    asyncio.run(main())
    assert closed == [None]
