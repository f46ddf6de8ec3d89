"""tribunal leaves DSPy as it found it: after tribunal judged an item in a process, a plain ``dspy.LM``
there sends the same request, keys the same cache entry and gives the same result as in a process
that never imported tribunal (:mod:`tests.support.dspy_probe`)."""

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
CHAT_ANSWER = '[[ ## choice ## ]]\n{"name": "dal", "spicy": true}\n\n[[ ## completed ## ]]'


def _plain_answer(body: dict) -> tuple[str, str]:
    return "plain", CHAT_ANSWER


def _probe(mode: str, judge_base: str, plain_base: str, cache_dir: Path) -> dict:
    """The probe's findings from a fresh process with a DSPy cache of its own."""
    env = {**os.environ, "DSPY_CACHEDIR": str(cache_dir), "LITELLM_LOCAL_MODEL_COST_MAP": "True",
           "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-m", "tests.support.dspy_probe", mode, judge_base, plain_base],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def probes(tmp_path_factory):
    """(reference, after tribunal, the plain peer's request bodies from each, in order)."""
    with loopback_server(synthetic_judge) as (judge_base, _), \
            loopback_server(respond_raw=_plain_answer) as (plain_base, plain):
        reference = _probe("plain", judge_base, plain_base, tmp_path_factory.mktemp("reference-cache"))
        seen = len(plain.bodies)
        after = _probe("tribunal", judge_base, plain_base, tmp_path_factory.mktemp("tribunal-cache"))
        bodies = (list(plain.bodies[:seen]), list(plain.bodies[seen:]))
    return reference, after, bodies


def test_tribunal_judged_an_item_in_the_probe(probes):
    reference, after, _ = probes
    assert after["judged"]["status"] == "scored", after["judged"]
    assert after["tribunal_imported"] and not reference["tribunal_imported"]


def test_dspy_process_state_is_unchanged_after_tribunal_judged(probes):
    _, after, _ = probes
    assert after["changed"] == []  # replaced functions, mutated cache keys, warnings filters, settings, loggers


def test_a_plain_dspy_lm_behaves_as_without_tribunal(probes):
    reference, after, (reference_bodies, after_bodies) = probes
    assert reference["plain"]["first"] == ["[[ ## choice ## ]]\n{\"name\": \"dal\", \"spicy\": true}\n\n"
                                           "[[ ## completed ## ]]"]
    assert reference["plain"]["cached"] and reference["plain"]["warnings"]  # the probe sees DSPy's cache and warning
    assert after["plain"] == reference["plain"]  # answers, cache hits, the cache key, history and warnings
    assert len(reference_bodies) == 3  # the repeat came from the cache; the rollout id bypassed it
    assert after_bodies == reference_bodies  # the same requests, byte for byte
