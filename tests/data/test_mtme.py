import numpy as np
import pytest

from tribunal.data.errors import DataFormatError
from tribunal.data.mtme import LanguagePair, language_pairs


def test_real_wmt23_conventions(wmt23_root):
    counts = {}
    for lp in language_pairs(wmt23_root):
        pair = LanguagePair(wmt23_root, lp)
        systems = pair.scored_systems()
        assert "synthetic_ref" not in systems
        counts[lp] = len(systems)
        assert ("refA" in systems) == (lp == "he-en")  # refA is a system only for he-en
        assert "refB" not in systems
    # 66 + 78 + 105 = the 249 system pairs of WMT23 task 1
    assert sum(n * (n - 1) // 2 for n in counts.values()) == 249


def test_metric_name_resolution(wmt23_root):
    pair = LanguagePair(wmt23_root, "he-en")
    assert pair.resolve_metric("BLEURT-20") == "BLEURT-20-refB"
    assert pair.resolve_metric("CometKiwi") == "CometKiwi-src"
    assert pair.resolve_metric("nope") is None
    assert pair.split_metric("MS-COMET-QE-22-src") == ("MS-COMET-QE-22", "src")
    assert len(pair.base_metrics()) == 14


def test_real_ratings_offsets_fit_outputs(wmt23_root):
    pair = LanguagePair(wmt23_root, "en-de")
    ratings = pair.ratings("mqm.merged")
    system = next(s for s in ratings if s != "refA")
    output = pair.system_output(system)
    rated = [(i, r) for i, r in enumerate(ratings[system]) if r]
    assert rated
    for i, errors in rated:
        for error in errors:
            if not error.is_source_error:
                assert error.end <= len(output[i])


def test_tiny_folder(tiny_mtme):
    pair = LanguagePair(tiny_mtme, "en-de")
    assert pair.scored_systems() == ["A", "B", "C"]
    assert np.isnan(pair.gold_seg["A"][2])
    assert pair.metric_seg("M-refA")["C"].tolist() == [0.1, 0.8, 0.7]
    assert pair.metric_seg("absent") is None


def test_missing_language_pair(tiny_mtme):
    with pytest.raises(DataFormatError, match="no source file for xx-yy"):
        LanguagePair(tiny_mtme, "xx-yy")


def test_gold_with_wrong_length_is_reported(tiny_mtme):
    path = tiny_mtme / "human-scores" / "en-de.mqm.seg.score"
    path.write_text(path.read_text() + "C\t-2\n")
    with pytest.raises(DataFormatError, match=r"seg.score:13: system 'C' has 4 lines but the source has 3 segments"):
        LanguagePair(tiny_mtme, "en-de").gold_seg
