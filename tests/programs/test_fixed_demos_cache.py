"""The paper preset's demo choice through the parsed-data cache: exactly the fresh choice, chosen once,
chosen anew when the TED file changes."""

from __future__ import annotations

import os

import pytest

from tribunal.data.score_cache import ScoreCache
from tribunal.programs.mqm import fixed_demos as rule
from tribunal.programs.mqm.fixed_demos import fixed_demos

from .test_fixed_demos import TED, pool  # noqa: F401 (pool is a fixture)


def _no_choosing(*args, **kwargs):
    raise AssertionError("the demos were chosen again")


@pytest.mark.parametrize("coupled, guided", [(False, True), (False, False), (True, True), (True, False)])
def test_a_cached_choice_equals_a_fresh_one_and_a_second_run_chooses_nothing(pool, tmp_path, monkeypatch,  # noqa: F811
                                                                            coupled, guided):
    fresh = fixed_demos(pool, "en-de", 4, coupled, guided)
    first = fixed_demos(pool, "en-de", 4, coupled, guided, cache=ScoreCache(tmp_path / "cache"))
    monkeypatch.setattr(rule, "choose_demos", _no_choosing)
    second = fixed_demos(pool, "en-de", 4, coupled, guided, cache=ScoreCache(tmp_path / "cache"))  # a new process
    assert first == fresh and second == fresh
    assert [type(e) for d in second.values() for demo in d for e in demo.errors] == \
        [type(e) for d in fresh.values() for demo in d for e in demo.errors]


def test_other_settings_are_other_entries(pool, tmp_path):  # noqa: F811
    cache = ScoreCache(tmp_path / "cache")
    four, two = fixed_demos(pool, "en-de", 4, cache=cache), fixed_demos(pool, "en-de", 2, cache=cache)
    assert four == fixed_demos(pool, "en-de", 4) and two == fixed_demos(pool, "en-de", 2)
    assert fixed_demos(pool, "en-de", 4, guided=False, cache=cache) == fixed_demos(pool, "en-de", 4, guided=False)
    assert len(list((tmp_path / "cache").glob("*.bin"))) == 3


def test_a_changed_ted_file_is_chosen_from_anew(pool, tmp_path):  # noqa: F811
    path = pool / "mqm_ted_ende.tsv"
    assert fixed_demos(pool, "en-de", 4, cache=ScoreCache(tmp_path / "cache"))["accuracy"][0].source == "The dog barks."
    old = os.stat(path)
    path.write_text(path.read_text(encoding="utf-8").replace("The dog barks.", "The dog howls."), encoding="utf-8")
    os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))  # mtime restored: the ctime and content still differ
    again = fixed_demos(pool, "en-de", 4, cache=ScoreCache(tmp_path / "cache"))
    assert again == fixed_demos(pool, "en-de", 4) and again["accuracy"][0].source == "The dog howls."


def test_a_missing_ted_file_is_named_as_without_the_cache(tmp_path):
    from tribunal.data.errors import DataFormatError

    for cache in (None, ScoreCache(tmp_path / "cache")):
        with pytest.raises(DataFormatError, match="mqm_ted_zhen.tsv.*file not found"):
            fixed_demos(tmp_path, "zh-en", 4, cache=cache)


def test_a_damaged_entry_is_a_miss(pool, tmp_path):  # noqa: F811
    cache = ScoreCache(tmp_path / "cache")
    fixed_demos(pool, "en-de", 4, cache=cache)
    [entry] = (tmp_path / "cache").glob("*.bin")
    entry.write_bytes(entry.read_bytes()[:-7])
    assert fixed_demos(pool, "en-de", 4, cache=ScoreCache(tmp_path / "cache")) == fixed_demos(pool, "en-de", 4)


@pytest.mark.skipif(not TED.is_dir(), reason="TED MQM data not found (set TRIBUNAL_DATA)")
@pytest.mark.parametrize("lp", ["zh-en", "en-de", "he-en"])
def test_the_real_ted_choice_through_the_cache_equals_a_fresh_one(lp, tmp_path):
    cached = [fixed_demos(TED, lp, 4, cache=ScoreCache(tmp_path / "cache")) for _ in range(2)]
    assert cached[0] == cached[1] == fixed_demos(TED, lp, 4)
