"""Reference and context as optional signature inputs: the signatures, the programs, the calls."""

from __future__ import annotations

import dspy
import pytest
from pydantic import ValidationError

from tests.support.mqm_fakes import ScriptedEngine, synthetic_judge
from tribunal.data.program_identity import program_identity
from tribunal.core.judges import JUDGES, build_judge
from tribunal.programs.mqm.segment_inputs import SegmentInputs
from tribunal.signatures.mqm.consensus import ConsensusCheck
from tribunal.signatures.mqm.esa_score import ESAScore
from tribunal.signatures.mqm.gemba import GembaMQM
from tribunal.signatures.mqm.pairwise_quality import PairwiseQuality
from tribunal.signatures.mqm.segment_context import CONTEXT_NOTE, REFERENCE_NOTE, reads_segment, segment_signature

BOTH = SegmentInputs(reference="refA", context=2)
INPUTS = dict(source="Der Hund bellt.", translation="The dog barks.", source_lang="German", target_lang="English")


def test_the_extended_signature_places_names_and_instructs_each_input():
    extended = segment_signature(GembaMQM, True, True)
    assert extended.__name__ == "GembaMQMWithReferenceInContext"
    assert list(extended.input_fields) == ["source_lang", "target_lang", "context", "source", "translation",
                                           "reference"]
    assert extended.instructions == "\n\n".join([GembaMQM.instructions, REFERENCE_NOTE, CONTEXT_NOTE])
    assert "not judged" in extended.input_fields["reference"].json_schema_extra["desc"]
    assert segment_signature(GembaMQM, False, True).__name__ == "GembaMQMInContext"
    assert list(segment_signature(PairwiseQuality, True, False).input_fields)[-1] == "reference"  # after translation_b
    assert list(segment_signature(ESAScore, True, False).input_fields)[4] == "reference"  # before the errors input
    assert segment_signature(ConsensusCheck, True, True) is ConsensusCheck  # reads annotations, not the segment
    assert segment_signature(GembaMQM, False, False) is GembaMQM
    assert segment_signature(GembaMQM, True, True) is extended  # built once


@pytest.mark.parametrize("name", JUDGES.names("mt"))
def test_without_inputs_every_program_is_unchanged_and_with_them_every_reader_takes_both(name):
    plain = build_judge(name)
    default = build_judge(name, segment=SegmentInputs())
    assert [p.signature for _, p in default.named_predictors()] == [p.signature for _, p in plain.named_predictors()]
    assert all(p.signature.__module__.startswith("tribunal.signatures") for _, p in plain.named_predictors())

    extended = build_judge(name, segment=BOTH)
    assert program_identity(extended) != program_identity(plain)  # an export remembers the inputs
    for (path, before), (_, after) in zip(plain.named_predictors(), extended.named_predictors()):
        if reads_segment(before.signature):
            assert {"reference", "context"} <= set(after.signature.input_fields), path
        else:
            assert after.signature is before.signature, path


def test_a_judge_hands_reference_and_context_to_its_calls():
    engine = ScriptedEngine(synthetic_judge)
    program = build_judge("mmad", segment=BOTH)
    context = [{"source": "Es regnet.", "translation": "It rains."}]
    with dspy.context(lm=dspy.LM("openai/scripted", engine=engine, cache=False)):
        program(**INPUTS, reference="The dog is barking.", context=context)
        plain = build_judge("mmad")
        plain(**INPUTS)
    readers = [inputs for name, inputs in engine.calls if "reference" in inputs]
    assert readers and all(i["reference"] == "The dog is barking." and i["context"] == context for i in readers)
    assert any("reference" not in inputs for _, inputs in engine.calls)  # the plain program's calls


def test_segment_inputs_setting():
    assert SegmentInputs(reference="none").reference is None and not SegmentInputs(reference="NONE").used
    assert SegmentInputs(reference="refB", context=3).name_parts() == ["ref", "ctx3"]
    assert SegmentInputs(context=2).settings() == {"context": 2}
    for bad in ({"reference": "../etc"}, {"context": -1}, {"context": 21}, {"depth": 1}):
        with pytest.raises(ValidationError):
            SegmentInputs(**bad)
