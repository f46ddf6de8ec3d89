"""tribunal's span measures equal the authors' code (sted19/span-mt-metrics-eval@b55b90f) to 1e-9, option set by option set.

The expected figures were computed once by the authors' code on a generated corpus and stored in
``span_reference_results.json`` by ``benchmarks/span_reference_results.py`` (its docstring says how);
no reference code runs here. Every one of the 54 option sets (and 12 more with penalty 1) is
checked through the library; a few through ``tribunal mt span-eval`` itself.
"""

import json
from pathlib import Path

import pytest

from tests.eval.meta.spans.span_corpus import EXTRA_OPTION_SETS, generate_corpus, option_sets
from tests.support.cli import run_cli
from tribunal.core.spans import span
from tribunal.eval.meta.spans import SpanOptions, score_segments

FIXTURE = json.loads((Path(__file__).parent / "span_reference_results.json").read_text())
RESULTS = {r["name"]: r for r in FIXTURE["results"]}
SETTINGS = ("measure", "matching", "assignment", "averaging", "severity_penalty", "severity_weights")


def segments(corpus):
    to_spans = lambda rows: [span(s["start"], s["end"], s["severity"], s["side"]) for s in rows]  # noqa: E731
    return [(to_spans(seg["predicted"]), to_spans(seg["gold"])) for seg in corpus]


def options_of(result):
    return SpanOptions(side="both", **{k: result[k] for k in SETTINGS})


def test_the_fixture_holds_the_54_option_sets_and_the_generator_still_draws_its_corpus():
    assert len(option_sets()) == 54 and len({o["name"] for o in option_sets()}) == 54
    assert [r["name"] for r in FIXTURE["results"]] == [o["name"] for o in option_sets() + EXTRA_OPTION_SETS]
    assert FIXTURE["reference"].endswith("@b55b90f8d466f1c44907a8b3629566d21bedee3e")
    assert FIXTURE["corpus"] == generate_corpus(**FIXTURE["corpus_call"])
    shapes = {seg["shape"] for seg in FIXTURE["corpus"]}
    assert {"empty_both", "empty_predicted", "empty_gold", "duplicates", "dice_ties", "chain", "dense"} <= shapes


@pytest.mark.parametrize("name", list(RESULTS))
def test_tribunal_equals_the_reference(name):
    expected = RESULTS[name]
    got = score_segments(segments(FIXTURE["corpus"]), options_of(expected))
    assert got.segments == len(FIXTURE["corpus"])
    for ours, theirs in ((got.precision, expected["precision"]), (got.recall, expected["recall"]), (got.f, expected["f"])):
        assert abs(ours - theirs) <= 1e-9, (name, got, expected)


CLI_SETS = ["mp one-to-one greedy micro penalty", "mpp one-to-one optimal micro none", "mpp one-to-one optimal macro weights",
            "mpp many-to-many micro weights", "wmt25 one-to-one greedy micro penalty", "wmt25 many-to-many macro none",
            "em many-to-many micro penalty"]


@pytest.fixture(scope="module")
def jsonl_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("parity")
    for key in ("predicted", "gold"):
        (folder / f"{key}.jsonl").write_text(
            "".join(json.dumps({"id": s["id"], "spans": s[key]}) + "\n" for s in FIXTURE["corpus"]))
    return folder / "predicted.jsonl", folder / "gold.jsonl"


@pytest.mark.parametrize("name", CLI_SETS)
def test_the_command_line_equals_the_reference(name, capsys, tmp_path, jsonl_files):
    expected = RESULTS[name]
    predicted, gold = jsonl_files
    out = tmp_path / "r.json"
    flags = ["--measure", expected["measure"], "--matching", expected["matching"], "--assignment", expected["assignment"],
             "--averaging", expected["averaging"], "--severity-penalty", str(expected["severity_penalty"]), "--side", "both"]
    if expected["severity_weights"]:
        flags += ["--severity-weights", ",".join(f"{k}={v:g}" for k, v in expected["severity_weights"].items())]
    outcome = run_cli(capsys, "mt", "span-eval", "--predicted", predicted, "--gold", gold, *flags, "--output", out)
    assert outcome.status == 0, outcome.err
    result = json.loads(out.read_text())
    assert result["segments"] == len(FIXTURE["corpus"]) and "|v:2" in result["signature"]
    for key, theirs in (("precision", expected["precision"]), ("recall", expected["recall"]), ("f", expected["f"])):
        assert abs(result[key] - theirs) <= 1e-9, (name, key, result[key], theirs)
