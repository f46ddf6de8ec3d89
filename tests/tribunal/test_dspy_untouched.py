"""tribunal used as a library leaves a DSPy user's process as it found it: after it judged an item through the
MLflow scorer, the pyfunc model and the judging service, DSPy's settings (and who may ``dspy.configure``),
the warnings filters and the root logger are what they were (:mod:`tests.support.library_probe`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    """The probe's report from a fresh process (its own DSPy cache folder; tribunal's LMs have the cache off)."""
    folder = tmp_path_factory.mktemp("library-probe")
    env = {**os.environ, "DSPY_CACHEDIR": str(folder / "dspy-cache"), "LITELLM_LOCAL_MODEL_COST_MAP": "True",
           "PYTHONDONTWRITEBYTECODE": "1"}
    with loopback_server(synthetic_judge) as (api_base, state):
        done = subprocess.run([sys.executable, "-m", "tests.support.library_probe", api_base, str(folder)],
                              cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
        hits = len(state.hits)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1]) | {"hits": hits}


def _differences(before: dict, after: dict) -> str:
    lines = []
    for key in before.keys() | after.keys():
        if before.get(key) != after.get(key):
            lines.append(f"{key}:\n  before: {before.get(key)!r}\n  after:  {after.get(key)!r}")
    return "\n".join(sorted(lines))


def test_tribunal_judged_through_every_door(probe):
    judged = probe["judged"]
    assert judged["scorer"]["error"] is None and judged["scorer"]["value"] <= 0, judged
    assert judged["pyfunc"]["unscored_reason"] is None and judged["pyfunc"]["score"] <= 0, judged
    assert [r["status"] for r in judged["service"].values()] == ["scored"], judged
    assert probe["hits"] > 3  # each door asked the LM


def test_the_process_state_is_as_before(probe):
    before, after = probe["before"], probe["after"]
    assert before["config_owner_thread_id"] is None  # the probe's own process had not configured DSPy
    assert after == before, _differences(before, after)


def test_a_new_thread_may_still_configure_dspy(probe):
    assert probe["configure_from_new_thread"] == "ok", (probe["configure_from_new_thread"],
                                                       probe["before"]["config_owner_thread_id"],
                                                       probe["after"]["config_owner_thread_id"])
