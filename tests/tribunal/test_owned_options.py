"""A run option only one judge takes is read from the registry when ``mt evaluate`` checks it: a judge
registered after import with an option of its own makes the other programs refuse that option."""

from __future__ import annotations

import dataclasses

import pytest

from tests.support.strict_judge import STRICT
from tribunal.cli.errors import UserError
from tribunal.cli.mt_evaluate_config import owned_options, refuse_conflicts
from tribunal.core.judges import JUDGES


@pytest.fixture
def judge_with_an_option():
    judge = dataclasses.replace(STRICT, options=("--strictness-demo",))
    JUDGES.add(judge)
    yield judge
    JUDGES.remove(judge.name)


def test_an_option_of_a_judge_registered_later_is_owned(judge_with_an_option):
    assert owned_options()["--strictness-demo"] is judge_with_an_option
    with pytest.raises(UserError, match=r"--strictness-demo: an GEMBA-STRICT setting, but the program is gemba-mqm"):
        refuse_conflicts({"program": "gemba-mqm"}, {"--strictness-demo": 1})
    refuse_conflicts({"program": judge_with_an_option.name}, {"--strictness-demo": 1})  # its own program takes it


def test_demos_stays_the_option_of_its_one_judge():
    owner = owned_options()["--demos"]
    other = next(j.name for j in JUDGES if j.kind == "mt" and j is not owner)
    with pytest.raises(UserError, match=rf"--demos: an {owner.title} setting, but the program is {other}"):
        refuse_conflicts({"program": other}, {"--demos": 2})
    refuse_conflicts({"program": owner.name}, {"--demos": 2})
