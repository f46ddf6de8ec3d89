"""Benchmark: how the chain rule's threshold and the cascade's band were set, checked on held-out pairs.

1. Calibration: the chain rule's threshold sweep on seeds 1-20 of the shipped suite, the
   threshold of highest balanced accuracy (``sweep.best_threshold``) and the cascade band
   (``bands.bands_from_sweep``, tolerance 0.05) -- these are the shipped defaults.
2. Checks at the defaults on seeds 21-40 (held out), on the whole suite and on the hand-written
   pairs (``eval/equiv/suite/heldout_pairs.jsonl``, written for this check, not derived from the
   suite): share judged different per kind, and the cascade's routing (share of pairs sent to
   the judge; accuracy of the pairs the screen decides, against the labels).
3. The cascade with a scripted LM that answers every pair with its label (a stand-in for a
   perfect judge: no real LM is reachable here): LM calls of the judge alone and of the cascade,
   calls saved, agreement of the two. ``--repeats`` judges each set that many times.

    python benchmarks/bench_equiv_chain.py [--repeats 1]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.support: the scripted LM

from tests.support.equiv_fakes import scripted_equiv_respond  # noqa: E402
from tests.support.scripted_lm import scripted_lm  # noqa: E402
from tribunal.cli.equiv import build_rules  # noqa: E402
from tribunal.eval.equiv import defaults  # noqa: E402
from tribunal.eval.equiv.audit_job import cascade_savings, run_audit  # noqa: E402
from tribunal.eval.equiv.bands import bands_from_sweep  # noqa: E402
from tribunal.eval.equiv.pairs import load_pairs  # noqa: E402
from tribunal.eval.equiv.rules.chain import ChainRule  # noqa: E402
from tribunal.eval.equiv.suite import Suite, default_suite_path, load_suite  # noqa: E402
from tribunal.eval.equiv.sweep import best_threshold, threshold_sweep  # noqa: E402
from tribunal.eval.tracking.mlflow_run import TrackingSettings  # noqa: E402

pd.set_option("display.width", 200)


def split_suite(suite: Suite) -> tuple[Suite, Suite]:
    """Seeds 1-20 (calibration) and 21-40 (held out), as two suites."""
    seeds = list(dict.fromkeys(p.original.id for p in suite.pairs))[:defaults.CALIBRATION_SEEDS]
    calib = tuple(p for p in suite.pairs if p.original.id in seeds)
    held = tuple(p for p in suite.pairs if p.original.id not in seeds)
    return (Suite(name="suite-seeds-1-20", hash=suite.hash, pairs=calib),
            Suite(name="suite-seeds-21-40", hash=suite.hash, pairs=held))


def sweep_of(rule: ChainRule, suite: Suite) -> tuple[pd.DataFrame, list[float]]:
    scores = [j.score for j in rule.judge_pairs([(p.original, p.perturbed) for p in suite.pairs])]
    table = threshold_sweep([p.kind for p in suite.pairs], scores, expected_same=[p.expected_same for p in suite.pairs])
    return table, scores


def check(rule: ChainRule, suite: Suite) -> dict:
    table, scores = sweep_of(rule, suite)
    row = table.loc[np.isclose(table["threshold"], defaults.CHAIN_THRESHOLD)].iloc[0].to_dict()
    scores_arr = np.array(scores)
    labels = np.array([p.expected_same for p in suite.pairs])
    band = (scores_arr >= defaults.CASCADE_LOW) & (scores_arr < defaults.CASCADE_HIGH)
    decided = ~band
    screen_same = scores_arr >= defaults.CASCADE_HIGH
    row = {"set": suite.name, "pairs": len(scores), **{k: v for k, v in row.items() if k != "threshold"},
           "to_judge": float(band.mean()),
           "screened_accuracy": float(np.mean(screen_same[decided] == labels[decided])) if decided.any() else np.nan}
    return row


def cascade_with_scripted_lm(suite: Suite, repeats: int) -> dict:
    labels = {(p.original.render(), p.perturbed.render()): p.expected_same for p in suite.pairs}
    labels |= {(b, a): same for (a, b), same in labels.items()}
    lm, engine = scripted_lm(scripted_equiv_respond(lambda a, b: labels[(a, b)]))
    rules = build_rules("llm,cascade", "full", dict(lm=lm, lm_name="scripted/label-oracle", threads=1))
    result = run_audit(suite, rules, repeats, TrackingSettings(enabled=False))
    row = cascade_savings(result.rules)[0]
    return {"set": suite.name, "pairs": len(suite.pairs), **row, "lm_requests_made": len(engine.calls)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    suite = load_suite()
    calib, held = split_suite(suite)
    handwritten = load_pairs(default_suite_path().parent / "heldout_pairs.jsonl")
    rule = ChainRule()

    table, _ = sweep_of(rule, calib)
    kinds = {p.kind: p.expected_same for p in calib.pairs}
    print("1. chain rule sweep on seeds 1-20 (calibration)")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print(f"threshold of highest balanced accuracy: {best_threshold(table):.2f} (shipped {defaults.CHAIN_THRESHOLD:.2f})")
    print(f"cascade band by the tolerance-0.05 rule: {bands_from_sweep(table, kinds)} "
          f"(shipped ({defaults.CASCADE_LOW}, {defaults.CASCADE_HIGH}))\n")

    print(f"2. checks at the shipped threshold {defaults.CHAIN_THRESHOLD} and band "
          f"[{defaults.CASCADE_LOW}, {defaults.CASCADE_HIGH}) (share judged different per kind)")
    rows = [check(rule, s) for s in (calib, held, suite, handwritten)]
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda v: f"{v:.3f}"), "\n")

    print(f"3. cascade vs the LLM judge alone, scripted LM answering each pair's label (repeats {args.repeats})")
    rows = [cascade_with_scripted_lm(s, args.repeats) for s in (suite, held, handwritten)]
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda v: f"{v:.3f}"))


if __name__ == "__main__":
    main()
