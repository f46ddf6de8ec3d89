"""The optimal MPP search: the F-best matching on crowded segments (checked by trying every matching), its size guard."""

import itertools
import random

import pytest

from tribunal.core.spans import span
from tribunal.eval.meta.spans import mpp_search
from tribunal.eval.meta.spans.matching import mpp_optimal_pairs


def f_of(pairs, pred, gold):
    sp = sum(pred[i].overlap(gold[j]) / pred[i].length for i, j in pairs) / len(pred)
    sr = sum(pred[i].overlap(gold[j]) / gold[j].length for i, j in pairs) / len(gold)
    return 0.0 if sp + sr == 0 else 2 * sp * sr / (sp + sr)


def every_matching(n, m):
    for k in range(min(n, m) + 1):
        for rows in itertools.combinations(range(n), k):
            for cols in itertools.permutations(range(m), k):
                yield list(zip(rows, cols))


def test_the_search_finds_the_best_f_of_every_matching_on_crowded_segments():
    rng = random.Random(11)
    for _ in range(150):
        pred = [span(a, a + rng.randrange(1, 12)) for a in (rng.randrange(0, 12) for _ in range(rng.randrange(1, 6)))]
        gold = [span(a, a + rng.randrange(1, 12)) for a in (rng.randrange(0, 12) for _ in range(rng.randrange(1, 6)))]
        found = mpp_optimal_pairs(pred, gold, lambda p, g: 1.0, len(pred), len(gold))
        best = max(f_of(mt, pred, gold) for mt in every_matching(len(pred), len(gold)))
        assert len({i for i, _ in found}) == len(found) == len({j for _, j in found})
        assert f_of(found, pred, gold) == pytest.approx(best, abs=1e-12)


def test_a_segment_beyond_the_guard_is_refused(monkeypatch):
    monkeypatch.setattr(mpp_search, "MAX_POINTS", 5)
    pred = [span(a, a + 9) for a in range(6)]
    gold = [span(a, a + 7) for a in range(6)]
    with pytest.raises(ValueError, match="--assignment greedy"):
        mpp_optimal_pairs(pred, gold, lambda p, g: 1.0, 6, 6)
