"""The ``either_judging`` fixture really switches ``run_evaluation`` to the async runner for its async case."""

from tests.support.judging_paths import either_judging  # noqa: F401  (a fixture: both judging paths)
from tribunal.eval.mt import async_judging
from tribunal.eval.mt.judging import judge_all


def test_the_async_case_judges_with_the_async_runner(either_judging):
    runner = async_judging.RUNNERS["threads"]  # what run_evaluation calls for a threads configuration
    assert (runner is judge_all) == (either_judging == "threads")
