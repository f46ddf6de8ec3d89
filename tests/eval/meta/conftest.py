"""The golden tests run three ways: without the parsed-data cache, with it cold and with it warm."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tribunal.data.score_cache import ScoreCache
from tribunal.data.score_files import read_domain_scores, read_seg_scores, read_sys_scores

READERS = {"seg": read_seg_scores, "sys": read_sys_scores, "domain": read_domain_scores}


@dataclass
class CacheCase:
    mode: str
    cache: ScoreCache | None

    def check(self) -> None:
        """A cold cache parsed every file it served; a warm one parsed none."""
        if self.mode == "cold-cache":
            assert self.cache.stats["hit"] == 0 and self.cache.stats["parsed"] > 0, self.cache.stats
        if self.mode == "warm-cache":
            assert self.cache.stats["parsed"] == 0 and self.cache.stats["hit"] > 0, self.cache.stats


@pytest.fixture(scope="module", params=["uncached", "cold-cache", "warm-cache"])
def score_cache(request, tmp_path_factory, wmt23_root) -> CacheCase:
    """No cache, an empty cache, or a cache another run filled with every shipped score file."""
    if request.param == "uncached":
        return CacheCase(request.param, None)
    folder = tmp_path_factory.mktemp("score-cache")
    if request.param == "warm-cache":
        filler = ScoreCache(folder)
        for path in [*wmt23_root.glob("human-scores/*.score"), *wmt23_root.glob("metric-scores/*/*.score")]:
            READERS[path.name.rsplit(".", 2)[1]](path, cache=filler)
    return CacheCase(request.param, ScoreCache(folder))
