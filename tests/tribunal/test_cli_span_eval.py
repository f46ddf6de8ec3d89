"""``tribunal mt span-eval`` end to end: options, the JSON output, several judges and raters, errors."""

import json

from tests.support.cli import assert_one_line_error, run_cli


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def spans(*pairs, severity="major"):
    return [{"start": a, "end": b, "severity": severity} for a, b in pairs]


def files(tmp_path):
    gold = write_jsonl(tmp_path / "gold.jsonl", [{"id": "s1", "spans": spans((0, 10), (20, 25))},
                                                 {"id": "s2", "spans": []}])
    pred = write_jsonl(tmp_path / "pred.jsonl", [{"id": "s1", "spans": spans((5, 15), (20, 25), (30, 32))},
                                                 {"id": "s2", "spans": []}, {"id": "s9", "spans": []}])
    return pred, gold


def test_default_micro_mpp_written_as_json(capsys, tmp_path):
    pred, gold = files(tmp_path)
    out = tmp_path / "result.json"
    outcome = run_cli(capsys, "mt", "span-eval", "--predicted", pred, "--gold", gold, "--output", out)
    assert outcome.status == 0, outcome.err
    result = json.loads(out.read_text())
    # s1 as in the worked example: P = (0.5 + 1 + 0)/3, R = (0.5 + 1)/2; s2 adds nothing
    assert abs(result["precision"] - 0.5) < 1e-12 and abs(result["recall"] - 0.75) < 1e-12
    assert abs(result["f"] - 0.6) < 1e-12
    assert result["segments"] == 2 and result["segments_not_rated"] == 1 and result["predicted_spans"] == 3
    assert result["signature"].startswith("m:mpp|match:1-1|assign:optimal|avg:micro")
    assert "precision 0.5000, recall 0.7500, F 0.6000" in outcome.out


def test_every_option_reaches_the_measure(capsys, tmp_path):
    pred, gold = files(tmp_path)
    out = tmp_path / "r.json"
    outcome = run_cli(capsys, "mt", "span-eval", "--predicted", pred, "--gold", gold, "--measure", "wmt25",
                      "--matching", "many-to-many", "--averaging", "macro", "--severity-penalty", "0.5",
                      "--side", "both", "--output", out)
    assert outcome.status == 0, outcome.err
    result = json.loads(out.read_text())
    assert result["signature"] == "m:wmt25|match:n-n|assign:none|avg:macro|sevpen:0.5|sevw:none|side:both|v:2"
    # s1: 10 of 17 predicted characters covered, 10 of 15 gold (all major: no penalty); s2: P = R = F = 1
    p, r = 10 / 17, 10 / 15
    assert abs(result["precision"] - (p + 1) / 2) < 1e-12 and abs(result["recall"] - (r + 1) / 2) < 1e-12


def test_two_judges_and_two_raters(capsys, tmp_path):
    pred, gold = files(tmp_path)
    gold2 = write_jsonl(tmp_path / "gold2.jsonl", [{"id": "s1", "spans": spans((0, 10))}, {"id": "s2", "spans": []}])
    other = write_jsonl(tmp_path / "other.jsonl", [{"id": "s1", "spans": []}, {"id": "s2", "spans": spans((0, 3))}])
    out = tmp_path / "r.json"
    outcome = run_cli(capsys, "mt", "span-eval", "--predicted", pred, "--predicted", other, "--gold", gold,
                      "--gold", gold2, "--samples", "50", "--output", out)
    assert outcome.status == 0, outcome.err
    result = json.loads(out.read_text())
    assert set(result["judges"]) == {"pred", "other"} and set(result["ceiling"]) == {"gold", "gold2", "mean"}
    assert result["ranking"][0]["judge"] == "pred" and len(result["tests"]) == 1
    assert "ceiling gold vs the other raters" in outcome.out


def test_bad_options_and_files_are_one_line_errors(capsys, tmp_path):
    pred, gold = files(tmp_path)
    assert_one_line_error(run_cli(capsys, "mt", "span-eval", "--predicted", pred, "--gold", gold, "--measure", "f1"),
                          "--measure")
    assert_one_line_error(run_cli(capsys, "mt", "span-eval", "--predicted", pred, "--gold", gold,
                                  "--severity-weights", "major"), "--severity-weights", "SEVERITY=NUMBER")
    # weights are MPP's only, as in the authors' code; and every span's severity needs a weight
    assert_one_line_error(run_cli(capsys, "mt", "span-eval", "--predicted", pred, "--gold", gold, "--measure", "wmt25",
                                  "--severity-weights", "major=5"), "--severity-weights", "mpp measure only")
    assert_one_line_error(run_cli(capsys, "mt", "span-eval", "--predicted", pred, "--gold", gold,
                                  "--severity-weights", "minor=1"), "'major'", "does not name")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "spans": [{"start": 3, "end": 1}]}\n')
    assert_one_line_error(run_cli(capsys, "mt", "span-eval", "--predicted", bad, "--gold", gold),
                          "bad.jsonl:1", "bad span offsets")


def test_named_formats_one_rater_greedy_and_a_seed(capsys, tmp_path):
    from tribunal.data.span_files import write_spans
    from tribunal.core.spans import SegmentSpans, span

    text = "I want you to take a moment to consider the very simple fact."
    gold = tmp_path / "gold.tsv"
    write_spans(gold, [SegmentSpans("sys|1", (span(14, 27, "major"),), text, "src")], "mqm-tsv")
    pred = tmp_path / "pred.tsv"
    write_spans(pred, [SegmentSpans("sys|1", (span(14, 20, "major"),), text, "src")], "wmt25-tsv")
    out = tmp_path / "r.json"
    outcome = run_cli(capsys, "mt", "span-eval", "--predicted", pred, "--predicted-format", "wmt25-tsv",
                      "--gold", gold, "--gold-format", "mqm-tsv", "--gold-rater", "rater", "--assignment", "greedy",
                      "--seed", "5", "--output", out)
    assert outcome.status == 0, outcome.err
    result = json.loads(out.read_text())
    assert result["precision"] == 1.0 and abs(result["recall"] - 6 / 13) < 1e-12  # 6 of the 13 gold characters
    assert "|assign:greedy|" in result["signature"]
