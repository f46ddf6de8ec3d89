"""Reference and context are program settings (``--set``), with training data to match; sampling is not.

End to end: ``tribunal optimize --set reference=ref --set context=1`` on TED MQM en-de (whose
human translation ``ref`` is rated as a system), the export remembering both, and the export run
by ``mt evaluate`` on WMT23 en-de with its reference named there (``refA``).
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from tests.support.injected_engine import use_engine
from tests.optimizers.test_optimize_mt import DEV, ENGINE, TRAIN
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal.cli import app
from tribunal.errors import UserError
from tribunal.data.program_export import read_export
from tribunal.optimizers.program_loader import load_program
from tribunal.optimizers.program_settings import build_configured, program_config
from tribunal.optimizers.training_data import load_training_data
from tribunal.programs.mqm.segment_inputs import SegmentInputs


def test_reference_and_context_are_settings_of_every_mt_program():
    assert program_config("gemba-mqm", {"reference": "ref", "context": "2"}) == {"reference": "ref", "context": 2}
    assert program_config("mmad", {"strategy": "deliberation", "context": "1"}) == {
        "preset": "paper", "strategy": "deliberation", "context": 1}
    assert program_config("gemba-esa", {"reference": "none"}) == {}
    program = build_configured("eaprompt", {"reference": "ref"})
    assert "reference" in program.analyse.signature.input_fields
    for values, fragment in (({"samples": "5"}, "--set samples: a setting of the run"),
                             ({"combine": "trimmed"}, "mt evaluate --combine RULE"),
                             ({"context": "two"}, "--set context=two"),
                             ({"reference": "a/b"}, "--set reference=a/b")):
        with pytest.raises(UserError, match=fragment):
            program_config("gemba-mqm", values)
    with pytest.raises(UserError, match="has no such setting"):
        program_config("equiv-llm", {"reference": "ref"})  # not an MT judge


def test_ted_examples_get_the_ref_systems_translation_and_their_talks_previous_segments(ted_en_de):
    inputs = SegmentInputs(reference="ref", context=2)
    examples = load_training_data(f"{ted_en_de}:0-40", "--train", inputs).examples
    every = load_training_data(ted_en_de).examples
    reference = {e.seg_id: e.translation for e in every if e.system == "ref"}
    by_cell = {(e.system, e.seg_id): e for e in every}
    for example in examples:
        assert example.reference == reference[example.seg_id]
        assert {"reference", "context"} <= set(example.inputs().keys())
        assert len(example.context) <= 2
        for earlier in example.context:  # the same system's translation of an earlier segment of the talk
            previous = next(e for e in every if e.system == example.system and e.translation == earlier["translation"])
            assert previous.seg_id < example.seg_id and by_cell[(example.system, previous.seg_id)]
    first = min(e.seg_id for e in every)
    assert [e.context for e in examples if e.seg_id == first][0] == []  # a talk's first segment: no context
    assert any(len(e.context) == 2 for e in examples)
    with pytest.raises(UserError, match=r"has no such reference \(its references.*: ref\)"):
        load_training_data(f"{ted_en_de}:0-5", "--train", SegmentInputs(reference="refA"))
    with pytest.raises(UserError, match="need MT training data"):
        load_training_data("suite:0-5", "--train", SegmentInputs(context=1))


def test_optimize_exports_them_and_mt_evaluate_runs_the_export(tmp_path, monkeypatch, ted_en_de, wmt23_root):
    use_engine(monkeypatch, ENGINE)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "gemba-ref.json"
    runner = CliRunner()
    result = runner.invoke(app, ["optimize", "--program", "gemba-mqm", "--set", "reference=ref", "--set", "context=1",
                                 "--optimizer", "labeled", "--budget", "3", "--train", TRAIN, "--dev", DEV,
                                 "--lm", "openai/judge", "--threads", "2", "--out", str(out), "--no-track"])
    assert result.exit_code == 0, (result.output, result.exception)
    document = read_export(out)
    assert document["program"]["config"] == {"reference": "ref", "context": 1}
    demos = document["state"]["annotate"]["demos"]
    assert demos and all("reference" in d and "context" in d for d in demos)  # the labelled demos carry both
    program, _ = load_program(out)
    assert {"reference", "context"} <= set(program.annotate.signature.input_fields)

    use_engine(monkeypatch, None)
    monkeypatch.setenv("TRIBUNAL_LOOPBACK_KEY", "sk-loopback-segment")
    common = ["mt", "evaluate", "--data", str(wmt23_root), "--lp", "en-de", "--lm", "openai/judge", "--api-key-env",
              "TRIBUNAL_LOOPBACK_KEY", "--limit", "2", "--program", str(out), "--no-track", "--no-cache"]
    with loopback_server(synthetic_judge) as (api_base, state):
        refused = runner.invoke(app, [*common, "--api-base", api_base, "--out", str(tmp_path / "a")])
        assert isinstance(refused.exception, UserError)  # the export's TED reference name is not WMT23's
        assert "--reference ref:" in str(refused.exception) and "references of en-de: refA" in str(refused.exception)
        ran = runner.invoke(app, [*common, "--api-base", api_base, "--reference", "refA", "--out", str(tmp_path / "b")])
    assert ran.exit_code == 0, (ran.output, ran.exception)
    assert "|tuned:" in ran.output and "|ref:refA|ctx:1|" in ran.output
    assert all("reference" in inputs and "context" in inputs for _, _, inputs in state.hits) and state.hits
    seg = list((tmp_path / "b" / "metric-scores" / "en-de").glob("*.seg.score"))
    assert [p.name for p in seg] == [f"GEMBA-MQM-ref-ctx1-tuned-{document['sha256'][:8]}-refA.seg.score"]
    assert json.loads((tmp_path / "b" / "transcripts.jsonl").read_text().splitlines()[0])["reference"]
