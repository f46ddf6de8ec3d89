"""Round trips of every span format, format detection, and one-line errors naming file and line."""

import json

import pytest

from tribunal.data.errors import DataFormatError
from tribunal.data.span_files import FORMATS, detect, read_spans, write_spans
from tribunal.core.spans import SegmentSpans, span

TARGET = "Das ist ein kleiner Test."
SOURCE = "This is a small test."
SEGMENTS = [
    SegmentSpans("sysA|0", (span(0, 3, "major"), span(12, 19, "minor")), TARGET, SOURCE),
    SegmentSpans("sysA|1", (), TARGET, SOURCE),
    SegmentSpans("sysB|0", (span(4, 7, "minor"),), TARGET, SOURCE),
]
WITH_SOURCE = SEGMENTS + [SegmentSpans("sysB|1", (span(10, 15, "major", "source"), span(0, 3, "critical")), TARGET, SOURCE)]
SUFFIX = {"jsonl": ".jsonl", "esa": ".jsonl", "mqm-tsv": ".tsv", "wmt25-tsv": ".tsv", "wmt-rating": ".seg.rating",
          "tribunal": ".jsonl"}
# what each format can carry: the target-only formats get no source-side span
CARRIES = {"jsonl": WITH_SOURCE, "esa": SEGMENTS, "mqm-tsv": WITH_SOURCE, "wmt25-tsv": SEGMENTS,
           "wmt-rating": WITH_SOURCE, "tribunal": WITH_SOURCE}


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_round_trip(fmt, tmp_path):
    path = tmp_path / f"spans{SUFFIX[fmt]}"
    write_spans(path, CARRIES[fmt], fmt)
    assert detect(path) == fmt
    back = read_spans(path)
    assert {k: v.spans for k, v in back.items()} == {s.id: s.spans for s in CARRIES[fmt]}
    again = tmp_path / f"again{SUFFIX[fmt]}"
    write_spans(again, list(back.values()) if fmt not in ("mqm-tsv",) else list(back.values()), fmt)
    assert {k: v.spans for k, v in read_spans(again, fmt).items()} == {k: v.spans for k, v in back.items()}


def test_texts_survive_where_the_format_carries_them(tmp_path):
    for fmt in ("jsonl", "esa", "mqm-tsv", "wmt25-tsv"):
        path = tmp_path / f"t-{fmt}{SUFFIX[fmt]}"
        write_spans(path, SEGMENTS, fmt)
        assert read_spans(path, fmt)["sysA|0"].target == TARGET


def test_omissions_round_trip_as_empty_spans(tmp_path):
    segments = [SegmentSpans("s|0", (span(0, 0, "major"),), TARGET, SOURCE)]
    for fmt in ("esa", "wmt25-tsv", "jsonl"):
        path = tmp_path / f"o-{fmt}{SUFFIX[fmt]}"
        write_spans(path, segments, fmt)
        assert read_spans(path, fmt)["s|0"].spans == (span(0, 0, "major"),)


def test_a_tribunal_output_folder_is_read_and_unscored_cells_are_left_out(tmp_path):
    lines = [{"lp": "en-de", "system": "A", "segment": 0, "status": "scored", "errors": [
                {"span": "Das", "severity": "major", "is_source_error": False, "start": 0, "end": 3},
                {"span": "zzz", "severity": "minor", "is_source_error": False, "start": None, "end": None}]},
             {"lp": "en-de", "system": "A", "segment": 1, "status": "unscored", "errors": []}]
    (tmp_path / "errors.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert detect(tmp_path) == "tribunal"
    assert {k: v.spans for k, v in read_spans(tmp_path).items()} == {"A|0": (span(0, 3, "major"),)}


def test_the_ted_mqm_and_wmt23_files_read(wmt23_root):
    ratings = read_spans(wmt23_root / "human-scores" / "zh-en.mqm.rater1.seg.rating")
    assert ratings and all("|" in k for k in ratings)


@pytest.mark.parametrize("text, message", [
    ('{"id": "a", "spans": [{"start": 5, "end": 2}]}\n', "spans.jsonl:1: bad span offsets"),
    ('{"id": "a", "spans": []}\n{"id": "a", "spans": []}\n', "spans.jsonl:2: segment id 'a' appears twice"),
    ('{"id": "a", "spans": [{"start": "x", "end": 2}]}\n', "spans.jsonl:1: span offsets must be integers"),
    ('{"id": "a", "spans": [{"start": 1, "end": 2, "side": "left"}]}\n', "spans.jsonl:1: unknown side"),
    ('not json\n', "spans.jsonl:1: cannot tell the span format"),
])
def test_bad_lines_name_file_and_line(tmp_path, text, message):
    path = tmp_path / "spans.jsonl"
    path.write_text(text)
    with pytest.raises(DataFormatError) as err:
        read_spans(path)
    assert message in str(err.value)


def test_a_cell_with_two_mqm_raters_needs_one_named(tmp_path):
    path = tmp_path / "two.tsv"
    write_spans(path, SEGMENTS[:1], "mqm-tsv")
    rows = path.read_text().splitlines()
    path.write_text("\n".join(rows + [rows[1].replace("\trater\t", "\tother\t")]) + "\n")
    with pytest.raises(DataFormatError, match="choose one rater"):
        read_spans(path)
    assert read_spans(path, rater="other")["sysA|0"].spans == (span(0, 3, "major"),)
