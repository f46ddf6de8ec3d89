"""Instance files: one object, a list, JSON Lines; evidence passages; errors naming file and line."""

import json

import pytest

from tribunal.data.errors import DataFormatError
from tribunal.eval.hyp.instance import NO_EVIDENCE, load_instances, parse_instances

BASE = {"research_question": "q", "observed_finding": "f", "opening_hypotheses": ["o"]}


def test_evidence_may_be_strings_or_passages_and_is_shown_numbered():
    [instance] = parse_instances(json.dumps({**BASE, "id": "x", "evidence": [
        "Plain passage.", {"text": "Sourced passage.", "source": "Smith 2020"}]}), "x.json")
    assert instance.evidence_text() == "[1] Plain passage.\n[2] (Smith 2020) Sourced passage."
    [bare] = parse_instances(json.dumps({**BASE, "id": "y"}), "y.json")
    assert bare.evidence == [] and bare.evidence_text() == NO_EVIDENCE


def test_a_list_and_json_lines_hold_several_instances(tmp_path):
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps([{**BASE, "id": "a"}, {**BASE, "id": "b"}]))
    lines = tmp_path / "more.jsonl"
    lines.write_text(json.dumps({**BASE, "id": "c"}) + "\n\n" + json.dumps({**BASE, "id": "d"}) + "\n")
    assert [i.id for i in load_instances([listed, lines])] == ["a", "b", "c", "d"]
    assert [i.id for i in load_instances()] == ["metformin-b12"]


@pytest.mark.parametrize("text, message", [
    (json.dumps({**BASE, "id": "a"}) + "\n{not json\n", "f.jsonl:2: not JSON"),
    (json.dumps({**BASE, "id": "a"}) + "\n" + json.dumps({**BASE, "id": "a b"}) + "\n", "f.jsonl:2: id: String"),
    (json.dumps([{**BASE, "id": "a"}, {**BASE, "id": "b", "evidence": [{"txt": "x"}]}]), "f.jsonl: instance 2: evidence.0.text"),
    (json.dumps([{**BASE, "id": "a"}, {**BASE, "id": "a"}]), "instance id 'a' appears twice"),
    ("[]", "f.jsonl: no instance"),
])
def test_bad_instances_name_the_file_and_line(text, message):
    with pytest.raises(DataFormatError) as err:
        parse_instances(text, "f.jsonl")
    assert message in str(err.value)
