"""Data SPECs for optimizers: TED MQM and the perturbation suite load; WMT23 never does."""

from __future__ import annotations

import pytest

from tests.support.injected_engine import use_engine
from tribunal.errors import TribunalError, UserError
from tribunal.optimizers.example_inputs import human_mqm_score
from tribunal.optimizers.training_data import check_disjoint, load_training_data

HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\tcomment\n"
ROWS = [
    "sysA\ttalk.1\t1\t1\tr1\tHello world.\t<v>Hallo</v> Welt.\tAccuracy/Mistranslation\tMajor\t\n",
    "sysA\ttalk.1\t1\t1\tr1\tHello world.\tHallo Welt<v>.</v>\tFluency/Punctuation\tMinor\t\n",
    "sysB\ttalk.1\t1\t1\tr2\tHello world.\tHallo Welt.\tNo-error\tNo-error\t\n",
    "sysA\ttalk.1\t1\t2\tr1\tBye.\tTschüss.\tNo-error\tNo-error\t\n",
]


@pytest.fixture
def ted_tsv(tmp_path):
    path = tmp_path / "mqm_ted_ende.tsv"
    path.write_text(HEADER + "".join(ROWS), encoding="utf-8")
    return path


def test_ted_mqm_items_carry_human_spans_and_score(ted_tsv):
    data = load_training_data(f"mqm-ted:{ted_tsv}:0-2")
    assert data.kind == "mt" and len(data.examples) == 2
    first = data.examples[0]
    assert set(first.inputs().keys()) == {"source", "translation", "source_lang", "target_lang"}
    assert first.translation == "Hallo Welt." and first.source_lang == "English" and first.target_lang == "German"
    assert first.gold_score == pytest.approx(-5.1)  # major 5 + minor fluency/punctuation 0.1
    assert [(e["start"], e["end"], e["severity"]) for e in first.gold_errors] == [(0, 5, "major"), (10, 11, "minor")]
    assert data.examples[1].gold_errors == [] and data.examples[1].gold_score == 0.0
    assert load_training_data(f"mqm-ted:{ted_tsv}:0-2").hash == data.hash
    assert load_training_data(f"mqm-ted:{ted_tsv}:1-3").hash != data.hash
    assert len(load_training_data(f"mqm-ted:{ted_tsv}").examples) == 3


def test_suite_items_are_labelled_by_perturbation_kind():
    data = load_training_data("suite:0-8")
    assert data.kind == "equiv" and len(data.examples) == 8
    for example in data.examples:
        assert example.verdict == ("same" if example.kind in ("wording-only", "wording-chain", "alias-chain") else "different")
        assert set(example.inputs().keys()) == {"hypothesis_a", "hypothesis_b"}
        assert example.hypothesis_a != example.hypothesis_b


def test_wmt23_is_refused_by_name_and_by_path(tmp_path, ted_tsv):
    folder = tmp_path / "wmt23"
    folder.mkdir()
    inside = folder / "mqm_ted_ende.tsv"
    inside.write_text(ted_tsv.read_text())
    link = tmp_path / "innocent"
    link.symlink_to(folder)
    for spec in ("wmt23:en-de:0-10", "WMT23", f"mqm-ted:{inside}", f"mqm-ted:{link}/mqm_ted_ende.tsv"):
        with pytest.raises(UserError, match="WMT23 is test data only"):
            load_training_data(spec, "--dev")


@pytest.mark.parametrize("spec, message", [
    ("bogus:0-3", "unknown data source 'bogus'"),
    ("suite:5-3", "empty item range"),
    ("suite:100000-", "no items in that range"),
    ("mqm-ted:/nonexistent/mqm_ted_ende.tsv", "no such TED MQM file"),
])
def test_bad_specs_are_user_errors(spec, message):
    with pytest.raises(UserError, match=message):
        load_training_data(spec)


def test_human_score_weights():
    errors = [{"category": "Non-translation!", "severity": "major"}, {"category": "Style/Awkward", "severity": "minor"},
              {"category": "Other", "severity": "neutral"}]
    assert human_mqm_score(errors) == -26.0


def test_pairs_files_train_the_equivalence_judge_with_their_own_labels(tmp_path):
    import json

    h = {"id": "a", "statement": "s", "explanation": "e", "steps": ["x", "y", "z"]}
    lines = [{"id": f"p{k}", "kind": "wording-chain" if k % 2 else "custom", "label": "different" if k % 2 else "same",
              "a": h, "b": {**h, "id": f"b{k}", "statement": f"s{k}"}} for k in range(4)]
    path = tmp_path / "mine.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    data = load_training_data(f"pairs:{path}:1-3")
    assert data.kind == "equiv" and [e.pair_id for e in data.examples] == ["p1", "p2"]
    assert [e.verdict for e in data.examples] == ["different", "same"]  # the file's label, even against its kind
    from tribunal.optimizers.equiv_metric import expected_verdict

    assert expected_verdict(data.examples[0]) == "different"
    path.write_text(json.dumps(lines[0]) + "\n" + json.dumps({**lines[1], "label": "?"}) + "\n")
    with pytest.raises(TribunalError, match=rf"{path}:2: label"):
        load_training_data(f"pairs:{path}")
    with pytest.raises(UserError, match="no such pairs file"):
        load_training_data(f"pairs:{tmp_path}/nope.jsonl")


@pytest.mark.parametrize("spec, message", [
    ("suite:0-999999", "range ends at 999999 but the data has 280 items"),
    ("suite:279-281", "range ends at 281 but the data has 280 items"),
    ("suite:280-", r"no items in that range \(the data has 280 items\)"),
])
def test_ranges_past_the_end_are_errors_not_clamped(spec, message):
    with pytest.raises(UserError, match=message):
        load_training_data(spec)
    assert len(load_training_data("suite:150-160").examples) == 10


def test_train_and_dev_must_not_share_items():
    train, dev = load_training_data("suite:0-80"), load_training_data("suite:80-")
    check_disjoint(train, dev)
    with pytest.raises(UserError, match="are the same data"):
        check_disjoint(train, load_training_data("suite:0-80", "--dev"))
    with pytest.raises(UserError, match="share 10 of 20 dev items"):
        check_disjoint(train, load_training_data("suite:70-90", "--dev"))


@pytest.mark.parametrize("train, dev, message", [
    ("suite:0-80", "suite:40-120", "--train suite:0-80 and --dev suite:40-120 share 40 of 80 dev items"),
    ("suite:0-80", "suite:0-80", "--train suite:0-80 and --dev suite:0-80 are the same data"),
    ("suite:0-999999", "suite:80-", "--train suite:0-999999: range ends at 999999 but the data has 280 items"),
])
def test_optimize_refuses_bad_slices_before_any_lm_call(monkeypatch, capsys, train, dev, message):
    import sys

    from tribunal.cli import main

    monkeypatch.setattr(sys, "argv", ["tribunal", "optimize", "--program", "equiv-llm", "--optimizer", "labeled",
                                      "--train", train, "--dev", dev, "--lm", "openai/none", "--no-track"])
    with pytest.raises(SystemExit) as exit_:
        main()
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1
    assert err.startswith(f"tribunal: error: {message}")


def test_optimize_tunes_on_a_pairs_file(tmp_path, monkeypatch):
    import json

    from tribunal.eval.equiv.suite import load_suite
    from tribunal.eval.tracking.mlflow_run import TrackingSettings
    from tribunal.optimizers.optimize_job import OptimizeRequest, run_optimize

    def hypothesis(h):
        return {"id": h.id, "statement": h.statement, "explanation": h.explanation,
                "steps": [s.model_dump() for s in h.steps], "relations": list(h.relations)}

    path = tmp_path / "labelled.jsonl"
    path.write_text("".join(json.dumps({"id": p.id, "kind": p.kind, "label": "same" if p.expected_same else "different",
                                        "a": hypothesis(p.original), "b": hypothesis(p.perturbed)}) + "\n"
                            for p in load_suite().pairs[:16]))
    use_engine(monkeypatch, "tests.optimizers.toy_task:engine")
    result = run_optimize(OptimizeRequest(program="test-toy-equiv", optimizer="labeled", train=f"pairs:{path}:0-8",
                                          dev=f"pairs:{path}:8-16", lm="toy/task", budget=2, threads=1,
                                          out=tmp_path / "tuned.json"), TrackingSettings(enabled=False))
    assert result.untuned.score == 0.5 and result.tuned.score == 1.0
    assert f"train:pairs/{path}/0-8@" in result.signature and f"dev:pairs/{path}/8-16@" in result.signature
