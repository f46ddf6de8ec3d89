"""For each optimizer: the dev seg-acc-eq that ``--objective item`` reaches against ``--objective seg-acc-eq``.

TED MQM en-de (train ``mqm-ted:en-de:0-64``, dev ``mqm-ted:en-de:200-260``: 60 translations of
5 source segments), through ``run_optimize`` end to end (untracked). No LM is reachable here: the
task LM is scripted (``tests/optimizers/rank_task.py``'s two modes on the TED human scores):

- A, what the untuned judge does: the human score plus a fixed pseudo-random error of 0.5-3 points
  (close to each score, rankings within a segment partly wrong);
- B, what tuning can add (demos in the prompt, or the phrase the scripted prompt LM proposes): the
  human score minus 8 (far from each score, rankings right). "The human score" is the first
  annotation of the translation, so where two raters scored one translation differently B is not
  perfect (its acc_eq is below 1). LabeledFewShot's raw TED examples carry no ``score`` field, so
  they make no demos for this judge (it stays A); BootstrapFewShot's traces do (it becomes B).
So the table shows the mechanics -- which candidate each optimizer ends with under each objective,
and the bootstrap interval reported with it -- not the behaviour of any model. Whether a real
judge has such a trade-off between closeness and ranking, and how large, needs a real model.

    TRIBUNAL_DATA=/work/shared/data python benchmarks/bench_objectives.py
"""

from __future__ import annotations

import hashlib
import logging
import sys
import time
from functools import lru_cache
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.*: the scripted LMs

from tests.optimizers.rank_task import OFFSET, RankEngine, RankJudge  # noqa: E402
from tests.optimizers.toy_task import KEY_PHRASE, ToyEngine  # noqa: E402

TRAIN, DEV = "mqm-ted:en-de:0-64", "mqm-ted:en-de:200-260"
BUDGETS = {"labeled": 2, "bootstrap": 2, "random-search": 3, "mipro": 4, "simba": 2, "gepa": 80}
UNLOCK = {"labeled": "demos", "bootstrap": "demos", "random-search": "demos", "mipro": "phrase", "simba": "both",
          "gepa": "phrase"}
PROGRAM = "bench-rank-judge"


@lru_cache(maxsize=None)
def ted_scores() -> dict[str, float]:
    """``{translation: human MQM score}`` (the first annotation of each translation)."""
    from tribunal.optimizers.training_data import load_training_data

    table: dict[str, float] = {}
    for spec in (TRAIN, DEV):
        for example in load_training_data(spec).examples:
            table.setdefault(example.translation, example.gold_score)
    return table


def _error(translation: str) -> float:
    """A fixed pseudo-random error of 0.5-3 points, either sign."""
    digest = hashlib.sha256(translation.encode()).digest()
    size = 0.5 + 2.5 * digest[0] / 255
    return size if digest[1] % 2 else -size


class TedRankEngine(RankEngine):
    """The rank family's modes on TED translations."""

    def _score(self, system, messages, user, temperature):
        from tests.optimizers.toy_task import _field

        translation = _field(user, "translation") or ""
        human = ted_scores().get(translation)
        if human is None:
            return None
        b = (self.unlock_by_demos and len(messages) > 1) or (self.unlock_by_phrase and KEY_PHRASE in system)
        with self.lock:
            if temperature is not None and temperature >= 1.0:
                return f"{self.rng.choice([human + _error(translation), human + OFFSET, human - 15.0]):g}"
            self.modes["B" if b else "A"] += 1
        return f"{human + OFFSET if b else human + _error(translation):g}"


_UNLOCK_NOW = {"value": "both"}


def engine(role: str, model: str):
    """The engine factory (``optimizers.lm_roles.test_engine_factory``): the TED rank engine for the task,
    filler for the prompt LM."""
    if role == "prompt":
        return ToyEngine()
    unlock = _UNLOCK_NOW["value"]
    return TedRankEngine(unlock_by_demos=unlock in ("demos", "both"), unlock_by_phrase=unlock in ("phrase", "both"))


def run(optimizer: str, objective: str):
    from tribunal.eval.tracking.mlflow_run import TrackingSettings
    from tribunal.optimizers.optimize_job import OptimizeRequest, run_optimize
    from tribunal.optimizers.objectives import parse_objective

    _UNLOCK_NOW["value"] = UNLOCK[optimizer]
    request = OptimizeRequest(program=PROGRAM, optimizer=optimizer, train=TRAIN, dev=DEV, lm="scripted/ted-rank",
                              budget=BUDGETS[optimizer], threads=1, cache=False, objective=objective,
                              out=Path("/tmp") / f"bench-objectives-{optimizer}-{objective}.json")
    result = run_optimize(request, TrackingSettings(enabled=False))
    from tribunal.optimizers.objective_report import score_both
    from tribunal.optimizers.training_data import load_training_data

    golds = load_training_data(DEV).examples
    from tribunal.optimizers.mt_metric import MQMMetric

    acc = score_both(parse_objective("seg-acc-eq", "mt", MQMMetric()), result.tuned.predictions, golds, seed=0)
    return result, acc


def main() -> None:
    from tests.support.dspy_cache import dspy_cache_off
    from tribunal.optimizers import lm_roles
    from tribunal.programs.registry import register_program

    logging.disable(logging.WARNING)
    lm_roles.test_engine_factory = engine  # the scripted engines, injected as the tests inject theirs
    register_program(PROGRAM, RankJudge)
    print(__doc__.split("\n\n")[0])
    print(f"train {TRAIN}, dev {DEV}; scripted LM: this table shows mechanics, not a model's behaviour.\n")
    header = (f"{'optimizer':<14} {'budget':>6}  {'--objective item: acc_eq [95% CI]':<34} {'item':>6}   "
              f"{'--objective seg-acc-eq: acc_eq [95% CI]':<40} {'item':>6}  chosen     cpu s")
    print(header)
    for optimizer in BUDGETS:
        started = time.process_time()
        with dspy_cache_off():
            item_run, item_acc = run(optimizer, "item")
            acc_run, acc_acc = run(optimizer, "seg-acc-eq")
        chosen = acc_run.selection.chosen.source if acc_run.selection.chosen else "-"
        print(f"{optimizer:<14} {BUDGETS[optimizer]:>6}  {item_acc.objective.text():<34} {item_acc.item.value:>6.3f}   "
              f"{acc_acc.objective.text():<40} {acc_acc.item.value:>6.3f}  {chosen:<10} "
              f"{time.process_time() - started:5.1f}")


if __name__ == "__main__":
    main()
