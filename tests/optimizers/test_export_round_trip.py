"""An exported program loaded back sends byte-identical requests and reproduces its dev score.

``tribunal optimize`` tunes over real HTTP against a loopback server whose answers depend on a hash
of the *whole* request (instructions, demos, their field and key order, the inputs): any change of
prompt changes answers, and so the dev score. The tuned program and its export loaded back are then
run on the same dev items; the request bodies the server saw are compared byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import re

import dspy
import pytest

from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import answer, synthetic_judge
from tribunal.eval.tracking.mlflow_run import TrackingSettings
from tribunal.optimizers.dev_eval import evaluate_program
from tribunal.data.program_export import read_export
from tribunal.optimizers.program_loader import load_program
from tribunal.optimizers.optimize_job import METRICS, OptimizeRequest, run_optimize
from tribunal.optimizers.training_data import load_training_data
from tribunal.programs.lm import LMSettings, build_lm


def _digest(body: dict) -> int:
    return int(hashlib.sha256(json.dumps(body["messages"], ensure_ascii=False).encode()).hexdigest()[:8], 16)


def prompt_sensitive(body: dict) -> tuple[str, str]:
    """The synthetic judge, but a third of the answers (chosen by the whole prompt) find nothing."""
    messages = body["messages"]
    system = "".join(m["content"] for m in messages if m["role"] == "system")
    user = [m["content"] for m in messages if m["role"] == "user"][-1]
    if "same mechanism" in system:  # the equivalence judge
        verdict = "same" if _digest(body) % 3 else "different"
        return "equiv", f"[[ ## verdict ## ]]\n{verdict}\n\n[[ ## completed ## ]]"

    def judge(name, inputs):
        outputs = synthetic_judge(name, inputs)
        if _digest(body) % 3 == 0:
            outputs = {k: ([] if isinstance(v, list) else v) for k, v in outputs.items()}
        return outputs

    name, text, _ = answer(system, user, judge)
    return name, text


CASES = {
    "gemba-mqm": dict(program="gemba-mqm", train="mqm-ted:en-de:0-40", dev="mqm-ted:en-de:200-212"),
    "mmad": dict(program="mmad", train="mqm-ted:en-de:0-40", dev="mqm-ted:en-de:200-206"),
    "equiv-llm": dict(program="equiv-llm", train="suite:0-40", dev="suite:80-100"),
    "gemba-esa": dict(program="gemba-esa", train="mqm-ted:en-de:0-40", dev="mqm-ted:en-de:200-212"),
    "mqm-ape": dict(program="mqm-ape", train="mqm-ted:en-de:0-40", dev="mqm-ted:en-de:200-206"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_export_load_sends_the_same_bytes_and_reproduces_the_dev_score(case, tmp_path, monkeypatch, ted_en_de):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-round-trip")
    spec = CASES[case]
    with loopback_server(respond_raw=prompt_sensitive) as (api_base, state):
        request = OptimizeRequest(optimizer="labeled", budget=3, lm="openai/judge", api_base=api_base, threads=1,
                                  cache=False, out=tmp_path / f"{case}.json", **spec)
        result = run_optimize(request, TrackingSettings(enabled=False))
        dev = load_training_data(spec["dev"]).examples
        metric = METRICS[load_training_data(spec["dev"]).kind]()

        lm = build_lm(LMSettings(model="openai/judge", api_base=api_base, cache=False))

        state.bodies.clear()
        with dspy.context(lm=lm):
            before = evaluate_program(result.program, dev, metric, threads=1)
        sent_before = list(state.bodies)

        loaded, document = load_program(result.out, expected_name=spec["program"])
        state.bodies.clear()
        with dspy.context(lm=lm):
            after = evaluate_program(loaded, dev, metric, threads=1)
        sent_after = list(state.bodies)

    demos = [d for p in document["state"].values() if isinstance(p, dict) for d in p.get("demos", [])]
    assert demos, "the tuned program carries demos"
    assert len(sent_before) >= len(dev) and before.unscored == 0
    assert sent_after == sent_before  # byte for byte, request by request
    assert after.score == before.score == read_export(result.out)["metadata"]["dev_score"] == result.tuned.score
    if case in ("gemba-mqm", "mmad"):
        assert result.tuned.score != result.untuned.score  # the prompt matters to this peer


def test_demo_objects_keep_their_schema_key_order_in_the_file(tmp_path, monkeypatch, ted_en_de):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-round-trip")
    with loopback_server(respond_raw=prompt_sensitive) as (api_base, _state):
        request = OptimizeRequest(optimizer="labeled", budget=2, lm="openai/judge", api_base=api_base, threads=1,
                                  cache=False, out=tmp_path / "gemba.json", **CASES["gemba-mqm"])
        run_optimize(request, TrackingSettings(enabled=False))
    text = (tmp_path / "gemba.json").read_text()
    first_error = re.search(r'\{\s*"span"[^{}]*\}', text)
    assert first_error is not None, "an error object starting with its first schema field, span"
    keys = re.findall(r'"(\w+)":', first_error.group())
    assert keys == ["span", "category", "subcategory", "severity", "is_source_error"]
