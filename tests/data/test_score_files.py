import math
import os
import subprocess
import sys

import numpy as np
import pytest

from tribunal.data.errors import DataFormatError
from tribunal.data.score_files import (
    read_domain_scores,
    read_seg_scores,
    read_sys_scores,
    write_seg_scores,
    write_sys_scores,
)
from tests.conftest import write


def test_seg_scores_round_trip_with_none(tmp_path):
    path = tmp_path / "m.seg.score"
    write_seg_scores(path, {"A": [1.5, None, -0.25], "B": [0.0, 2.0, float("nan")]})
    scores = read_seg_scores(path, n_segments=3)
    assert list(scores) == ["A", "B"]
    assert scores["A"][0] == 1.5 and math.isnan(scores["A"][1]) and scores["A"][2] == -0.25
    assert math.isnan(scores["B"][2])
    assert path.read_text().splitlines()[1] == "A\tNone"


def test_sys_scores_round_trip(tmp_path):
    path = tmp_path / "m.sys.score"
    write_sys_scores(path, {"A": 0.1, "B": None})
    scores = read_sys_scores(path)
    assert scores["A"] == 0.1 and math.isnan(scores["B"])


def test_integer_scores_are_read(tmp_path):
    path = write(tmp_path / "m.seg.score", "A\t4\nA\t-1\n")
    assert np.array_equal(read_seg_scores(path, 2)["A"], [4.0, -1.0])


@pytest.mark.parametrize(
    "text, line, fragment",
    [
        ("A\t1.0\nA\tabc\n", 2, "not a number"),
        ("A\t1.0\nA\t1.0\t3\n", 2, "expected 2 tab-separated columns"),
        ("A\t1.0\nA 2.0\n", 2, "expected 2 tab-separated columns"),
        ("A\t1.0\nA\tnan\n", 2, "NaN"),
    ],
)
def test_seg_bad_lines_name_file_and_line(tmp_path, text, line, fragment):
    path = write(tmp_path / "bad.seg.score", text)
    with pytest.raises(DataFormatError) as err:
        read_seg_scores(path, n_segments=2)
    assert err.value.line == line
    assert str(err.value).startswith(f"{path}:{line}: ")
    assert fragment in str(err.value)


def test_seg_line_count_mismatch_with_source(tmp_path):
    short = write(tmp_path / "short.seg.score", "A\t1\nA\t2\nB\t1\nB\t2\nB\t3\n")
    with pytest.raises(DataFormatError, match="system 'A' has 2 lines but the source has 3"):
        read_seg_scores(short, n_segments=3)
    long = write(tmp_path / "long.seg.score", "A\t1\nA\t2\nA\t3\nA\t4\n")
    with pytest.raises(DataFormatError) as err:
        read_seg_scores(long, n_segments=3)
    assert err.value.line == 4


def test_sys_and_domain_bad_input(tmp_path):
    with pytest.raises(DataFormatError, match=r":2: score 'x'"):
        read_sys_scores(write(tmp_path / "s.sys.score", "A\t1\nB\tx\n"))
    with pytest.raises(DataFormatError, match=r":2: system 'A' appears twice"):
        read_sys_scores(write(tmp_path / "d.sys.score", "A\t1\nA\t2\n"))
    with pytest.raises(DataFormatError, match=r":1: expected 3 tab-separated columns"):
        read_domain_scores(write(tmp_path / "x.domain.score", "A\t1\n"))
    assert read_domain_scores(write(tmp_path / "ok.domain.score", "news\tA\t-1.5\n")) == {("news", "A"): -1.5}


def test_missing_file(tmp_path):
    with pytest.raises(DataFormatError, match="file not found"):
        read_seg_scores(tmp_path / "nope.seg.score")


def test_failed_write_leaves_no_partial_file(tmp_path):
    path = tmp_path / "out.sys.score"
    write_sys_scores(path, {"A": 1.0})
    with pytest.raises(TypeError):
        write_sys_scores(path, {"A": object()})  # type: ignore[dict-item]
    assert path.read_text() == "A\t1.0\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.sys.score"]


ARROW_THREADS = """
import os, sys
from pathlib import Path
from tribunal.data.score_files import read_seg_scores
def threads():
    return len(os.listdir("/proc/self/task"))
before = threads()
scores = read_seg_scores(Path(sys.argv[1]), 40000)
assert len(scores) == 5
print(threads() - before)
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in /proc")
def test_the_fast_parse_starts_no_arrow_thread_pool(tmp_path):
    """Arrow's CPU pool once aborted a process at exit under load; files are read one thread each (the callers
    parallelise across files). Two threads appear here without the pool (Arrow's I/O and its allocator's),
    five with it (measured on this 2-core machine)."""
    path = tmp_path / "big.seg.score"
    path.write_text("".join(f"sys{s}\t{(s * 40000 + i) * 0.25}\n" for s in range(5) for i in range(40000)))
    done = subprocess.run([sys.executable, "-c", ARROW_THREADS, str(path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.strip()) <= 2, done.stdout
