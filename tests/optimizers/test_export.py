"""Export -> load round trip, and refusal of tampered, mismatched, pickled and secret-bearing files."""

from __future__ import annotations

import json
import pickle
from typing import Literal

import dspy
import pytest
from dspy.utils import DummyLM

from tribunal.errors import UserError
from tribunal.data.program_export import export_document, read_export, write_export
from tribunal.optimizers.program_loader import load_program
from tribunal.programs.registry import register_program


class Verdict(dspy.Signature):
    """Decide whether the two statements describe the same mechanism."""

    first: str = dspy.InputField()
    second: str = dspy.InputField()
    verdict: Literal["same", "different"] = dspy.OutputField()


class TinyJudge(dspy.Module):
    def __init__(self):
        super().__init__()
        self.judge = dspy.Predict(Verdict)

    def forward(self, first, second):
        return self.judge(first=first, second=second)


class OtherVerdict(dspy.Signature):
    """Another structure."""

    text: str = dspy.InputField()
    label: bool = dspy.OutputField()


class OtherJudge(dspy.Module):
    def __init__(self):
        super().__init__()
        self.judge = dspy.Predict(OtherVerdict)


register_program("test-tiny", TinyJudge)
register_program("test-other", OtherJudge)


def tuned_program():
    program = TinyJudge()
    program.judge.signature = program.judge.signature.with_instructions("Tuned instruction: compare causal chains.")
    program.judge.demos = [dspy.Example(first="a causes b", second="a leads to b", verdict="same")]
    return program


@pytest.fixture
def exported(tmp_path):
    document = export_document(tuned_program(), "test-tiny", {}, {"dev_score": 0.9, "train_data_hash": "abc"})
    return write_export(document, tmp_path / "judge.json")


def predict(program):
    lm = DummyLM([{"verdict": "same"}] * 2)
    with dspy.context(lm=lm):
        answer = program(first="x", second="y").verdict
    return answer, lm.history[-1]["messages"]


def test_round_trip_identical_predictions_and_prompts(exported):
    loaded, document = load_program(exported, expected_name="test-tiny")
    assert document["metadata"]["dev_score"] == 0.9
    assert set(document["metadata"]["versions"]) >= {"dspy", "python", "tribunal"}
    original_answer, original_prompt = predict(tuned_program())
    loaded_answer, loaded_prompt = predict(loaded)
    assert loaded_answer == original_answer == "same"
    assert loaded_prompt == original_prompt  # same instruction and demos reach the LM
    assert "Tuned instruction" in loaded.judge.signature.instructions


def test_tampered_file_is_refused(exported):
    document = json.loads(exported.read_text())
    document["state"]["judge"]["demos"][0]["verdict"] = "different"
    exported.write_text(json.dumps(document))
    with pytest.raises(UserError, match="sha256 does not match"):
        read_export(exported)


def test_file_for_another_program_is_refused(exported, tmp_path):
    with pytest.raises(UserError, match="exported program is 'test-tiny', not 'test-other'"):
        load_program(exported, expected_name="test-other")
    document = json.loads(exported.read_text())
    document["program"]["name"] = "test-other"  # re-sealed forgery: structure check still catches it
    from tribunal.data.program_export import _seal

    document["sha256"] = _seal(document)
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(document))
    with pytest.raises(UserError, match="structure does not match"):
        load_program(forged)


def test_pickle_is_refused_without_unpickling(tmp_path):
    path = tmp_path / "program.pkl"
    path.write_bytes(pickle.dumps({"state": "anything"}))
    with pytest.raises(UserError, match="a pickle"):
        read_export(path)
    (tmp_path / "junk.json").write_text("{not json")
    with pytest.raises(UserError, match="not JSON"):
        read_export(tmp_path / "junk.json")


def test_planted_api_key_never_reaches_the_export(tmp_path, monkeypatch):
    key = "sk-planted-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    program = tuned_program()
    program.judge.lm = dspy.LM("openai/gpt-4o-mini", api_key=key, cache=False)
    path = write_export(export_document(program, "test-tiny", {}, {}), tmp_path / "judge.json")
    text = path.read_text()
    assert key not in text and "gpt-4o-mini" not in text
    load_program(path)  # still loadable
    leaky = export_document(tuned_program(), "test-tiny", {}, {"note": f"key={key}"})
    with pytest.raises(UserError, match="contains a credential"):
        write_export(leaky, tmp_path / "leaky.json")
    assert not (tmp_path / "leaky.json").exists()
