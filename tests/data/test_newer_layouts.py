"""The newer mt-metrics-eval layouts: JSONL texts, ESA gold names, several references."""

import numpy as np
import pytest

from tribunal.data.conventions import WMT23, conventions_for
from tribunal.data.errors import DataFormatError
from tribunal.data.mtme import LanguagePair, language_pairs
from tribunal.data.text_files import read_jsonl_field
from tribunal.eval.meta.protocols import PROTOCOLS
from tribunal.eval.meta.table import meta_eval_table
from tests.conftest import write
from tests.data.newer_sets import SEGMENTS, materialise, wmt24_files, wmt25_files


def test_wmt25_jsonl_esa_and_references_as_systems(tmp_path):
    root = materialise(tmp_path / "wmt25", wmt25_files())
    assert conventions_for(root).name == "wmt25" and language_pairs(root) == ["en-cs_CZ"]
    pair = LanguagePair(root, "en-cs_CZ")
    assert pair.sources == [f"source {i}" for i in range(SEGMENTS)]
    assert pair.ref_names == ["refA", "refB"] and pair.reference("refB")[0] == "refB 0"
    assert pair.system_names == ["A", "B", "C", "refA", "refB"]
    assert pair.system_output("A")[-1] == ""  # a null hypothesis (missing translation)
    assert pair.gold_name == "esa-human1" and pair.gold_seg["A"][1] == -50.0
    assert pair.rated_systems() == ["A", "B", "C", "refB"]  # refA is the standard reference
    result = meta_eval_table({"en-cs_CZ": pair}, None, PROTOCOLS["wmt25"])
    assert list(result.table.columns) == ["metric", "avg_corr", "en-cs_CZ_sys_spa", "en-cs_CZ_seg_acc_eq"]
    row = result.table.iloc[0]
    assert row.metric == "M" and 0 <= row["en-cs_CZ_sys_spa"] <= 1 and not result.problems()


def test_wmt24_prefers_mqm_and_scores_refA_as_a_system(tmp_path):
    root = materialise(tmp_path / "wmt24", wmt24_files())
    pair = LanguagePair(root, "en-de")
    assert pair.conventions.std_ref("en-de") == "refB" and pair.gold_name == "mqm"
    assert pair.rated_systems() == ["A", "B", "C", "refA"]
    assert pair.resolve_metric("M") == "M-refB"
    result = meta_eval_table({"en-de": pair}, None, PROTOCOLS["wmt24"])
    assert result.table.loc[0, "en-de_seg_acc_eq"] > 0


def test_unknown_folder_names_keep_wmt23_conventions(tiny_mtme):
    assert conventions_for(tiny_mtme) is WMT23


def test_txt_wins_over_jsonl_and_bad_jsonl_names_the_line(tmp_path):
    write(tmp_path / "s.jsonl", '{"source": "a"}\n{"text": "b"}\n')
    with pytest.raises(DataFormatError, match=r"s.jsonl:2: expected a JSON object with a 'source' field"):
        read_jsonl_field(tmp_path / "s.jsonl", "source")
    write(tmp_path / "t.jsonl", '{"source": "a"}\n{oops\n')
    with pytest.raises(DataFormatError, match=r"t.jsonl:2: not a JSON line"):
        read_jsonl_field(tmp_path / "t.jsonl", "source")
    root = materialise(tmp_path / "wmt25", wmt25_files())
    write(root / "sources" / "en-cs_CZ.txt", "".join(f"plain {i}\n" for i in range(SEGMENTS)))
    assert LanguagePair(root, "en-cs_CZ").sources[0] == "plain 0"


def test_a_pair_with_scores_but_no_source_is_an_error(tiny_mtme):
    write(tiny_mtme / "human-scores" / "zh-en.mqm.seg.score", "A\t-1\n")
    with pytest.raises(DataFormatError, match=r"sources/zh-en.txt: missing: zh-en has scores but no source file"):
        language_pairs(tiny_mtme)


@pytest.mark.parametrize("level", ["seg", "sys"])
def test_empty_gold_file_is_an_error_naming_it(tiny_mtme, level):
    path = tiny_mtme / "human-scores" / f"en-de.mqm.{level}.score"
    path.write_text("")
    pair = LanguagePair(tiny_mtme, "en-de")
    with pytest.raises(DataFormatError, match=f"en-de.mqm.{level}.score: no .* has a gold score"):
        pair.gold_seg if level == "seg" else pair.gold_sys


def test_system_missing_from_gold_sys_is_an_error(tiny_mtme):
    from tribunal.eval.meta.lp_tasks import GoldMatrices

    (tiny_mtme / "human-scores" / "en-de.mqm.sys.score").write_text("A\t-3.0\nB\t-1.0\nrefA\t0\n")
    pair = LanguagePair(tiny_mtme, "en-de")
    with pytest.raises(DataFormatError, match=r"en-de.mqm.sys.score: no gold score for C, which has gold segment"):
        GoldMatrices.from_pair(pair)
    gold = GoldMatrices.from_pair(pair, need_sys=False)  # SPA protocols do not read gold system scores
    assert gold.systems == ["A", "B", "C"] and np.isnan(gold.sys).all()
