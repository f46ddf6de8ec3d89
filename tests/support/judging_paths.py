"""Run a runner test on both judging paths: the threaded one and ``--judging async``.

``either_judging`` (a fixture; import it into the test module) is parametrized ``threads`` / ``async``;
for ``async`` it has :func:`tribunal.eval.mt.job.run_evaluation` judge with
:func:`~tribunal.eval.mt.async_judging.ajudge_all` whatever the configuration says, so a test's own
settings and expectations stay as they are. A judge with no async form (``require_async`` refuses
it) skips the async case, saying so.
"""

from __future__ import annotations

import pytest

from tribunal.errors import UserError
from tribunal.eval.mt import async_judging


@pytest.fixture(params=["threads", "async"])
def either_judging(request, monkeypatch):
    if request.param == "async":
        def judged_async(make_program, *args, **kwargs):
            def checked():
                program = make_program()
                try:
                    async_judging.require_async(program)
                except UserError as err:
                    pytest.skip(str(err))
                return program

            return async_judging.ajudge_all(checked, *args, **kwargs)

        monkeypatch.setitem(async_judging.RUNNERS, "threads", judged_async)
    return request.param
