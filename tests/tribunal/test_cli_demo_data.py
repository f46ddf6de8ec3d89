"""``tribunal demo --data DIR`` reads that folder instead of ``$TRIBUNAL_DATA/wmt23``."""

from __future__ import annotations

import csv

from tests.support.cli import run_cli


def test_demo_data_names_the_folder_it_evaluates(tmp_path, capsys, monkeypatch, tiny_mtme):
    import tribunal.eval.equiv.rules.embedding as embedding

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRIBUNAL_DATA", raising=False)
    monkeypatch.delenv("TRIBUNAL_LM", raising=False)
    monkeypatch.setattr(embedding, "local_minilm_available", lambda: False)  # TF-IDF alone keeps it quick
    without = run_cli(capsys, "demo", "--no-lm", "--out", tmp_path / "none", "--no-track")
    assert without.status == 0 and "No WMT23 data found" in without.out
    assert not (tmp_path / "none" / "wmt23_meta_eval.tsv").exists()
    outcome = run_cli(capsys, "demo", "--data", tiny_mtme, "--no-lm", "--out", tmp_path / "d", "--no-track")
    assert outcome.status == 0, outcome.err
    with open(tmp_path / "d" / "wmt23_meta_eval.tsv", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    assert [row["metric"] for row in rows] == ["M"], "the tiny folder's one metric, not the shipped data's 14"
