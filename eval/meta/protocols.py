"""Meta-evaluation protocols: which tasks make up a primary table, with which weights.

- ``wmt23`` (Freitag et al., 2023): system-level pairwise accuracy pooled over the language pairs
  (weight = number of pairs), then per pair system-level Pearson, segment-level Pearson (all
  rated cells, no grouping) and segment-level acc-t (tie-calibrated, grouped by item, sample
  rate 1.0), weight 1 each; mt-metrics-eval's ``WMT23`` task set.
- ``wmt24`` (Freitag et al., 2024): per pair system-level soft pairwise accuracy (SPA, Thompson
  et al., 2024) and segment-level acc_eq (the acc-t above), equal weights; on WMT23 data this is
  mt-metrics-eval's ``WMT24OnWMT23`` task set (6 tasks, 1/6 each).
- ``wmt25``: the WMT24 tasks (WMT25 changed the data: ESA gold for most pairs, not the tasks).

A correlation (range -1..1) enters the average as (r + 1) / 2, an accuracy as is. Which statistic is
a task of which table is declared with the statistic (``@statistic(..., tables=..., pooled=...)``).
"""

from __future__ import annotations

from dataclasses import dataclass

from tribunal.errors import UserError
from tribunal.eval.meta.inputs import INPUTS
from tribunal.eval.meta.statistic import Statistic
from tribunal.eval.meta.statistics import STATISTICS, per_lp_tasks, pooled_tasks


@dataclass(frozen=True)
class Task:
    """One column of a primary table: a statistic over one language pair (or pooled over several)."""

    kind: str
    lps: tuple[str, ...]
    weight: float
    pooled: bool = False

    @property
    def column(self) -> str:
        return self.kind if self.pooled else f"{self.lps[0]}_{self.kind}"

    @property
    def spec(self) -> Statistic:
        """The statistic's declaration."""
        return STATISTICS[self.kind]


@dataclass(frozen=True)
class Protocol:
    """A primary table: pooled tasks (weight = number of pairs) first, then per-pair tasks (weight 1).

    Its tasks are the statistics that declare it among their ``pooled`` / ``tables`` (:mod:`statistics`),
    system level first, then segment level, each in declaration order.
    """

    name: str
    title: str

    @property
    def pooled(self) -> tuple[str, ...]:
        return tuple(s.key for s in pooled_tasks(self.name))

    @property
    def per_lp(self) -> tuple[str, ...]:
        return tuple(s.key for s in per_lp_tasks(self.name) if s.key not in self.pooled)

    def tasks(self, lps: list[str] | tuple[str, ...]) -> list[Task]:
        lps = tuple(sorted(lps))
        tasks = [Task(kind, lps, float(len(lps)), pooled=True) for kind in self.pooled]
        tasks += [Task(kind, (lp,), 1.0) for lp in lps for kind in self.per_lp]
        return tasks

    def columns(self, lps: list[str] | tuple[str, ...]) -> list[str]:
        return ["metric", "avg_corr"] + [t.column for t in self.tasks(lps)]

    @property
    def needs_sys_scores(self) -> bool:
        """Whether any task reads system-level scores (gold ``.sys.score`` and metric ``.sys.score``)."""
        return any(INPUTS[STATISTICS[k].inputs].needs_sys_scores for k in self.pooled + self.per_lp)


WMT23 = Protocol("wmt23", "WMT23 primary table (Pearson columns: raw r)")
WMT24 = Protocol("wmt24", "WMT24 primary table: system-level SPA and segment-level acc_eq")
WMT25 = Protocol("wmt25", "WMT25 primary table: system-level SPA and segment-level acc_eq")

PROTOCOLS = {p.name: p for p in (WMT23, WMT24, WMT25)}


def get_protocol(name: str) -> Protocol:
    """The protocol called ``name``; a one-line error naming the choices otherwise."""
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise UserError(f"unknown protocol {name!r} (choose from {', '.join(PROTOCOLS)})") from None
