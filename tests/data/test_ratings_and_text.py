import pytest

from tribunal.data.errors import DataFormatError
from tribunal.core.spans import Span
from tribunal.data.ratings import read_ratings
from tribunal.data.text_files import read_documents, read_lines
from tests.conftest import write

GOOD = '{"errors": [{"start": 0, "end": 3, "category": "accuracy/mistranslation", "severity": "major", "score": 5.0, "is_source_error": false}]}'


def test_ratings_parse_spans_and_none(tmp_path):
    path = write(tmp_path / "en-de.mqm.merged.seg.rating", f"A\t{GOOD}\nA\tNone\nA\t{{\"errors\": []}}\n")
    ratings = read_ratings(path, n_segments=3)
    assert ratings["A"][0] == (Span(0, 3, "major", category="accuracy/mistranslation", score=5.0),)
    assert ratings["A"][1] is None
    assert ratings["A"][2] == ()


@pytest.mark.parametrize(
    "payload, fragment",
    [
        ("{not json", "rating is not JSON"),
        ('{"errs": []}', '"errors" list'),
        ('{"errors": [{"start": 0, "end": 3, "category": "x", "severity": "catastrophic"}]}', "unknown severity"),
        ('{"errors": [{"start": 5, "end": 3, "category": "x", "severity": "minor"}]}', "bad span offsets"),
        ('{"errors": [{"start": 0, "category": "x", "severity": "minor"}]}', "needs the fields"),
    ],
)
def test_ratings_bad_input(tmp_path, payload, fragment):
    path = write(tmp_path / "r.seg.rating", f"A\t{GOOD}\nA\t{payload}\n")
    with pytest.raises(DataFormatError) as err:
        read_ratings(path)
    assert err.value.line == 2 and fragment in str(err.value)


def test_ratings_wrong_column_count_and_length(tmp_path):
    with pytest.raises(DataFormatError, match=r":1: expected 2 tab-separated columns"):
        read_ratings(write(tmp_path / "a.seg.rating", "A None\n"))
    with pytest.raises(DataFormatError, match="has 1 lines but the source has 2"):
        read_ratings(write(tmp_path / "b.seg.rating", "A\tNone\n"), n_segments=2)


def test_text_files_length_and_encoding(tmp_path):
    assert read_lines(write(tmp_path / "s.txt", "a\nb\n"), expected=2) == ["a", "b"]
    with pytest.raises(DataFormatError, match=r"s.txt:2: has 2 lines but the source has 3"):
        read_lines(tmp_path / "s.txt", expected=3)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\n\xff\xfe\n")
    with pytest.raises(DataFormatError, match=r"bad.txt:2: not valid UTF-8"):
        read_lines(bad)


def test_documents_bad_column(tmp_path):
    with pytest.raises(DataFormatError, match=r"d.docs:2: expected 2 tab-separated columns"):
        read_documents(write(tmp_path / "d.docs", "news\td1\nnews d2\n"))
