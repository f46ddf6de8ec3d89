"""Constructed runs and a deterministic rule for the divergence tests (no LM)."""

from __future__ import annotations

from tribunal.core.judgment import Judgment
from tribunal.eval.equiv.rules.base import EquivalenceRule
from tribunal.core.hyp_records import Delivered, RunRecord, chain_hypothesis


def chain(first: str) -> list[str]:
    """A chain whose identity (for :class:`FirstStepRule`) is its first step."""
    return [first, "x", "y"]


def run(run_id: str, depth: int, lineages: list[list[str]], instance: str = "i") -> RunRecord:
    """A run delivering, for opening o, one hypothesis per first step in ``lineages[o]`` (empty: failed opening)."""
    delivered = [Delivered(opening=o, parent=None,
                           hypothesis=chain_hypothesis(f"{instance}/{run_id}/o{o}/k0.{b}", "s", "e", chain(first)))
                 for o, firsts in enumerate(lineages) for b, first in enumerate(firsts)]
    return RunRecord(run_id=run_id, instance=instance, depth=depth, rerun=int(run_id.rpartition("r")[2]),
                     openings=len(lineages), delivered=delivered)


def depth_split_runs(instance: str, x_in_depth0: int, depths=(0, 5)) -> list[RunRecord]:
    """Ten runs of one instance: five per depth. Type-X runs deliver first steps P, Q, R for three
    openings, type-Y runs P, Q, S (the third opening differs), so two runs diverge by 1/3 if their
    types differ and 0 otherwise. Depth 0 has ``x_in_depth0`` type-X runs, depth 5 the other X runs."""
    x, y = ["P"], ["Q"]
    types = ["X"] * x_in_depth0 + ["Y"] * (5 - x_in_depth0) + ["X"] * (5 - x_in_depth0) + ["Y"] * x_in_depth0
    runs = []
    for index, kind in enumerate(types):
        depth = depths[0] if index < 5 else depths[1]
        runs.append(run(f"d{depth}-r{index % 5}", depth, [x, y, ["R"] if kind == "X" else ["S"]], instance))
    return runs


class FirstStepRule(EquivalenceRule):
    """Same iff the first steps match (a constructed, deterministic rule)."""

    name = "first-step"

    def __init__(self):
        self.judged = 0

    def judge_pairs(self, pairs, repeat=0):
        self.judged += len(pairs)
        return [Judgment(same=a.steps[0].entity == b.steps[0].entity) for a, b in pairs]

    def params(self):
        return {}


def store(tmp_path, runs: list[RunRecord]):
    for record in runs:
        path = tmp_path / "runs" / record.instance / f"{record.run_id}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(record.model_dump_json())
    return tmp_path
