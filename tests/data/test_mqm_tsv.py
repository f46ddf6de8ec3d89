"""Google MQM TSV reader: <v> span marks, 9/10 columns, No-error rows, bad input as DataFormatError."""

import pytest

from tribunal.data.errors import DataFormatError
from tribunal.data.mqm_tsv import annotated_segments, read_mqm_tsv

HEADER9 = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"


def write(tmp_path, text):
    path = tmp_path / "mqm.tsv"
    path.write_text(text, encoding="utf-8")
    return path


def test_spans_severities_and_grouping(tmp_path):
    path = write(tmp_path, HEADER9
                 + "A\td\t1\t1\tr1\tHello world\tHallo <v>Welt</v>\tAccuracy/Mistranslation\tMajor\n"
                 + "A\td\t1\t1\tr1\t<v>Hello</v> world\tHallo Welt\tAccuracy/Omission\tMinor\n"
                 + "A\td\t1\t1\tr1\tHello world\tHallo Welt\tOther\tMinor\n"
                 + "B\td\t1\t1\tr1\tHello world\tHallo Welt\tNo-error\tNo-error\n")
    rows = list(read_mqm_tsv(path))
    assert (rows[0].span, rows[0].start, rows[0].end, rows[0].severity) == ("Welt", 6, 10, "major")
    assert rows[1].is_source_error and rows[1].span == "Hello" and rows[1].target == "Hallo Welt"
    assert rows[2].span is None  # an error without marks
    segments = annotated_segments(rows)
    assert [len(s.errors) for s in segments] == [3, 0]


def test_ten_column_files_carry_the_comment(tmp_path):
    path = write(tmp_path, HEADER9.rstrip("\n") + "\tcomment\n" + "A\td\t1\t2\tr\ts\t<v>t</v>\tStyle/Awkward\tMinor\tmeh\n")
    assert next(read_mqm_tsv(path)).comment == "meh"


@pytest.mark.parametrize("line, message", [
    ("A\td\t1\t1\tr\ts\tt\tStyle/Awkward\n", "columns"),
    ("A\td\t1\t1\tr\ts\tt\tStyle/Awkward\tSevere\n", "severity"),
    ("A\td\t1\tx\tr\ts\tt\tStyle/Awkward\tMinor\n", "seg_id"),
    ("A\td\t1\t1\tr\ts\tt</v>\tStyle/Awkward\tMinor\n", "unbalanced"),
])
def test_bad_lines_name_file_and_line(tmp_path, line, message):
    with pytest.raises(DataFormatError, match=f"mqm.tsv:2: .*{message}"):
        list(read_mqm_tsv(write(tmp_path, HEADER9 + line)))


def test_the_ted_files_parse(tmp_path):
    import os
    from pathlib import Path

    root = Path(os.environ.get("TRIBUNAL_DATA", Path(__file__).resolve().parents[3].parent / "shared" / "data"))
    if not (root / "mqm-ted").is_dir():
        pytest.skip("TED MQM data not found")
    rows = list(read_mqm_tsv(root / "mqm-ted" / "mqm_ted_zhen.tsv"))
    assert len(rows) == 9915 and sum(r.is_source_error for r in rows) > 0
