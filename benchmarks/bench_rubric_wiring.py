"""The perturbation audit of the LLM judge under each rubric, with a scripted judge that follows the rubric text.

No LM is reachable here. The scripted judge (``tests/support/rubric_reader.py``) applies only the
clauses of the instruction it is shown: the first link compared on its own (``stepwise``,
``component``), the initiating event weighed with the downstream steps (``full``), the load-bearing
route (``full``, ``stepwise``, ``component``), or a majority of differing steps (``none``). The table
shows that each rubric's text reaches the judge and changes its verdicts where the texts differ:
wiring, not the behaviour of any model (the paper's model: first-step-swapped 83% under its rubric,
96% with the step-by-step instruction).

    python benchmarks/bench_rubric_wiring.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.support: the scripted judge

from tests.support.rubric_reader import rubric_reader  # noqa: E402
from tests.support.scripted_lm import scripted_lm  # noqa: E402
from tribunal.eval.equiv.rule_set import build_rules  # noqa: E402
from tribunal.eval.equiv.audit_job import run_audit  # noqa: E402
from tribunal.eval.equiv.suite import Suite, load_suite  # noqa: E402
from tribunal.eval.tracking.mlflow_run import TrackingSettings  # noqa: E402

RUBRICS = "full,stepwise,component,none"


def rubric_audit(suite: Suite) -> pd.DataFrame:
    """One audit row per rubric: share judged different per kind, order flips, calls."""
    hypotheses = [h for pair in suite.pairs for h in (pair.original, pair.perturbed)]
    lm, _ = scripted_lm(rubric_reader(hypotheses), model="scripted/rubric-reader")
    rules = build_rules("llm", RUBRICS, dict(lm=lm, lm_name="scripted/rubric-reader", threads=1))
    return run_audit(suite, rules, 1, TrackingSettings(enabled=False)).table()


def main() -> None:
    table = rubric_audit(load_suite())
    table["calls"] = table["calls"].astype(int)
    columns = ["rule", "wording-only", "wording-chain", "first-step-swapped", "middle-step-swapped",
               "order_flip_rate", "calls"]
    print(table[columns].to_string(index=False, float_format=lambda v: f"{v:.3f}"))


if __name__ == "__main__":
    main()
