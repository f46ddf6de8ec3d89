"""A journal written before the judgment had a type (its lines carry ``debates``) resumes: nothing is judged again."""

from __future__ import annotations

import json

from tests.support.old_journal_lines import OLD_ENSEMBLE_LINE, OLD_MMAD_LINE, OLD_UNSCORED_LINE
from tribunal.eval.mt.journal import Journal

SIGNATURE = "prog:mmad|v:0.1.0"


def test_an_old_journal_resumes_and_is_left_as_it_was(tmp_path):
    path = tmp_path / "journal.jsonl"
    text = "\n".join([json.dumps({"journal": 1, "signature": SIGNATURE}), OLD_MMAD_LINE, OLD_UNSCORED_LINE,
                      OLD_ENSEMBLE_LINE]) + "\n"
    path.write_text(text, encoding="utf-8")
    journal = Journal(path, SIGNATURE)
    assert set(journal.results) == {"k1", "k2", "k3"} and path.read_text(encoding="utf-8") == text
    assert journal.done("k1") and journal.done("k3") and not journal.done("k2")  # k2: a retryable timeout
    assert not journal.done("k1", retry_unscored=True)  # degraded: judged again with --retry-unscored
    assert journal.results["k1"].debates == json.loads(OLD_MMAD_LINE)["debates"]
    assert journal.results["k3"].debates == json.loads(OLD_ENSEMBLE_LINE)["debates"]  # the chosen sample's


def test_a_new_line_after_old_ones_is_the_old_shape_without_debates(tmp_path):
    path = tmp_path / "journal.jsonl"
    path.write_text(json.dumps({"journal": 1, "signature": SIGNATURE}) + "\n" + OLD_MMAD_LINE + "\n", encoding="utf-8")
    journal = Journal(path, SIGNATURE)
    journal.append(journal.results["k1"].model_copy(update={"key": "k4"}))
    old, new = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:])
    assert new == {**{k: v for k, v in old.items() if k != "debates"}, "key": "k4"}
    assert list(new) == [k for k in old if k != "debates"]  # the same keys, in the same order
    assert set(Journal(path, SIGNATURE).results) == {"k1", "k4"}
