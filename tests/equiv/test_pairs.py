"""Labelled pair files: the reader (good and bad lines, named by file and line) and the audit on them."""

import json
import sys

import pytest

from tribunal.cli import main
from tribunal.data.errors import DataFormatError
from tribunal.eval.equiv.pairs import load_pairs
from tribunal.eval.equiv.suite import default_suite_path

H_A = {"id": "a", "statement": "Salt raises blood pressure.", "explanation": "Through fluid retention.",
       "steps": ["excess dietary salt", "fluid retention", "high blood pressure"]}
H_B = {"id": "b", "statement": "An adrenal tumour raises blood pressure.", "explanation": "Through fluid retention.",
       "steps": [{"entity": "adrenal tumour", "text": "aldosterone-secreting adenoma"}, {"text": "fluid retention"},
                 "high blood pressure"], "relations": ["causes", "raises"]}
GOOD = {"id": "p1", "kind": "first-step-swapped", "label": "different", "a": H_A, "b": H_B}


def write(tmp_path, *lines):
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


def test_a_good_file_loads_with_defaults(tmp_path):
    other = {**GOOD, "id": "p2", "kind": "my-own-kind", "label": "same", "b": H_A}
    suite = load_pairs(write(tmp_path, GOOD, "", other))
    first, second = suite.pairs
    assert first.original.relations == ("causes", "causes") and first.perturbed.relations == ("causes", "raises")
    assert first.perturbed.steps[0].entity == "adrenal tumour" and first.perturbed.steps[1].entity == "fluid retention"
    assert first.expected_same is False and second.expected_same is True and second.kind == "my-own-kind"
    assert suite.name == "pairs" and len(suite.hash) == 12


def without(record, key):
    return {k: v for k, v in record.items() if k != key}


@pytest.mark.parametrize("bad, message", [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "expected a JSON object, got list"),
    (without(GOOD, "label"), "label: Field required"),
    ({**GOOD, "label": "similar"}, "label: Input should be 'same' or 'different'"),
    ({**GOOD, "lable": "same"}, "lable: Extra inputs are not permitted"),
    ({**GOOD, "a": without(H_A, "statement")}, "a.statement: Field required"),
    ({**GOOD, "a": {**H_A, "steps": ["only", "two"]}}, "a.steps: List should have at least 3 items"),
    ({**GOOD, "b": {**H_B, "relations": ["causes"]}}, "3 steps need 2 relations"),
    ({**GOOD, "b": {**H_B, "steps": [{}, "x", "y"]}}, "a step needs a text"),
    ({**GOOD, "b": {**H_B, "steps": [{"txt": "x"}, "x", "y"]}}, "txt: Extra inputs are not permitted"),
    ({**GOOD, "b": {**H_B, "steps": ["  ", "x", "y"]}}, "empty step text"),
    ({**GOOD, "id": ""}, "id: String should have at least 1 character"),
])
def test_a_malformed_line_is_named_by_file_and_line(tmp_path, bad, message):
    path = write(tmp_path, GOOD | {"id": "p0"}, "", bad)
    with pytest.raises(DataFormatError) as info:
        load_pairs(path)
    assert str(info.value).startswith(f"{path}:3: ") and message in str(info.value)
    assert "\n" not in str(info.value)


def test_duplicate_ids_empty_files_and_binary_files_are_refused(tmp_path):
    with pytest.raises(DataFormatError, match=r"pairs.jsonl:2: duplicate pair id 'p1' \(first on line 1\)"):
        load_pairs(write(tmp_path, GOOD, GOOD))
    with pytest.raises(DataFormatError, match="no pairs"):
        load_pairs(write(tmp_path, "", "  "))
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(DataFormatError, match="not UTF-8"):
        load_pairs(binary)


def run_cli(monkeypatch, capsys, *args):
    monkeypatch.setattr(sys, "argv", ["tribunal", *args])
    try:
        main()
        code = 0
    except SystemExit as exit_:
        code = exit_.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_audit_of_a_pair_file_from_the_command_line(tmp_path, monkeypatch, capsys):
    same = {**GOOD, "id": "p2", "kind": "reworded", "label": "same",
            "b": {**H_A, "id": "a2", "explanation": "Salt makes the kidneys hold water."}}
    path = write(tmp_path, GOOD, same)
    code, out, err = run_cli(monkeypatch, capsys, "equiv", "audit", "--pairs", str(path), "--rules", "tfidf,chain",
                             "--chain-steps", "tfidf", "--repeats", "1", "--no-track", "--out", str(tmp_path / "out"))
    assert code == 0, err
    table = (tmp_path / "out" / "audit_table.tsv").read_text().splitlines()
    assert table[0].split("\t")[:4] == ["rule", "first-step-swapped", "reworded", "expected_agreement"]
    sweep = (tmp_path / "out" / "sweep_chain.tsv").read_text().splitlines()[0].split("\t")
    assert sweep == ["threshold", "first-step-swapped", "reworded", "balanced_accuracy"]
    assert "data:pairs@" in out


def test_a_bad_pair_file_is_one_line_and_exit_status_2(tmp_path, monkeypatch, capsys):
    path = write(tmp_path, GOOD, {**GOOD, "id": "p2", "label": "maybe"})
    code, out, err = run_cli(monkeypatch, capsys, "equiv", "audit", "--pairs", str(path), "--rules", "tfidf", "--no-track")
    assert code == 2 and err.startswith(f"tribunal: error: {path}:2: label:") and err.count("\n") == 1
    code, _, err = run_cli(monkeypatch, capsys, "equiv", "audit", "--pairs", str(path), "--suite",
                           str(default_suite_path()), "--no-track")
    assert code == 2 and err == "tribunal: error: give --suite or --pairs, not both\n"
    code, _, err = run_cli(monkeypatch, capsys, "equiv", "audit", "--pairs", str(tmp_path / "nope.jsonl"), "--no-track")
    assert code == 2 and "no such pairs file" in err


def test_the_shipped_hand_written_pairs_load():
    from tribunal.eval.equiv.suite import default_suite_path

    suite = load_pairs(default_suite_path().parent / "heldout_pairs.jsonl")
    kinds = {p.kind for p in suite.pairs}
    assert len(suite.pairs) == 60 and "reordered" in kinds and len(kinds) == 5
