"""--embedding-threshold auto: the threshold whose same-pair rate matches a target, without labels."""

import math
import zlib

import numpy as np
import pytest

from tribunal.eval.equiv.calibration import RateTarget, same_rate, threshold_for_rate
from tribunal.eval.equiv.rules.embedding import EmbeddingRule
from tribunal.eval.equiv.suite import load_suite


@pytest.mark.parametrize("rate, expected_same", [(0.5, 2), (0.25, 1), (0.0, 0), (1.0, 4), (0.6, 2)])
def test_threshold_for_rate_cuts_between_scores(rate, expected_same):
    scores = [0.9, 0.7, 0.4, 0.1]
    cut = threshold_for_rate(scores, rate)
    assert sum(s >= cut for s in scores) == expected_same
    if 0 < expected_same < 4:  # halfway between the last score kept and the first left out
        assert cut == pytest.approx((scores[expected_same - 1] + scores[expected_same]) / 2)


def test_ties_are_never_split_and_the_higher_cut_wins_a_tie_in_distance():
    scores = [0.8, 0.5, 0.5, 0.2]
    # 0.5 cannot be hit without splitting the tie: 1/4 and 3/4 are equally far, the higher cut wins
    assert sum(s >= threshold_for_rate(scores, 0.5) for s in scores) == 1
    assert same_rate([True, None, False, True]) == pytest.approx(2 / 3) and math.isnan(same_rate([None]))


class Peer:
    label = "peer"

    def __init__(self, verdicts):
        self.verdicts = verdicts

    def judge_pairs(self, pairs, repeat=0):
        from tribunal.core.judgment import Judgment

        return [Judgment(same=v) for v in self.verdicts[:len(pairs)]]


def test_auto_threshold_matches_the_peers_same_pair_rate_on_the_pairs_judged():
    pairs = [(p.original, p.perturbed) for p in load_suite().pairs[:8]]
    # Any distinct scores will do; str hash() is salted per process, and a tie between two pairs' scores
    # can make a rate of exactly 6 in 8 unreachable, so the scores come from a fixed checksum.
    encoder = lambda texts: np.array([[1.0, (zlib.crc32(t.encode()) % 9973) / 9973] for t in texts])
    rule = EmbeddingRule(None, encoder=encoder, target=RateTarget(peers=[Peer([True] * 6 + [False] * 2)]))
    judgments = rule.judge_pairs(pairs)
    assert sum(j.same for j in judgments) == 6  # the peer's rate, 0.75
    params = rule.params()
    assert params["calibration_target_rate"] == 0.75 and params["calibration_rate_peer"] == 0.75
    assert params["threshold"] == rule.threshold and "auto(peers=peer)" == params["threshold_rule"]
    assert "threshold=auto:peers=peer" in rule.setting()
    first = rule.threshold
    rule.judge_pairs(pairs[:3])
    assert rule.threshold == first  # calibrated once, on the first batch


def test_auto_threshold_with_a_fixed_rate_and_without_a_target():
    four = ("wording-only", "wording-chain", "first-step-swapped", "middle-step-swapped")
    pairs = [(p.original, p.perturbed) for p in load_suite().pairs if p.kind in four][:10]
    encoder = lambda texts: np.array([[1.0, len(t) % 13] for t in texts])
    rule = EmbeddingRule(None, encoder=encoder, target=RateTarget(rate=0.3))
    assert sum(j.same for j in rule.judge_pairs(pairs)) == 3
    with pytest.raises(ValueError, match="needs a target"):
        EmbeddingRule(None)
