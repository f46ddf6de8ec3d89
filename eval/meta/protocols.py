"""Meta-evaluation protocols: which tasks make up a primary table, with which weights.

- ``wmt23`` (Freitag et al., 2023): system-level pairwise accuracy pooled over the language pairs
  (weight = number of pairs), then per pair system-level Pearson, segment-level Pearson (all
  rated cells, no grouping) and segment-level acc-t (tie-calibrated, grouped by item, sample
  rate 1.0), weight 1 each; mt-metrics-eval's ``WMT23`` task set.
- ``wmt24`` (Freitag et al., 2024): per pair system-level soft pairwise accuracy (SPA, Thompson
  et al., 2024) and segment-level acc_eq (the acc-t above), equal weights; on WMT23 data this is
  mt-metrics-eval's ``WMT24OnWMT23`` task set (6 tasks, 1/6 each).
- ``wmt25``: the WMT24 tasks (WMT25 changed the data: ESA gold for most pairs, not the tasks).

A correlation (range -1..1) enters the average as (r + 1) / 2, an accuracy as is.
"""

from __future__ import annotations

from dataclasses import dataclass

from tribunal.errors import UserError


@dataclass(frozen=True)
class TaskKind:
    """One kind of task: its column suffix, the LpResult field holding its value, its range."""

    suffix: str
    field: str
    correlation: bool
    needs_sys_scores: bool = False

    def normalise(self, value: float) -> float:
        """The value on the 0..1 scale the average uses."""
        return (value + 1) / 2 if self.correlation else value


KINDS = {
    "sys_acc": TaskKind("sys_acc", "agree", False, needs_sys_scores=True),  # pooled: sum(agree) / sum(pairs)
    "sys_pearson": TaskKind("sys_pearson", "sys_pearson", True, needs_sys_scores=True),
    "seg_pearson": TaskKind("seg_pearson", "seg_pearson", True),
    "seg_acc_t": TaskKind("seg_acc_t", "seg_acc_t", False),
    "sys_spa": TaskKind("sys_spa", "sys_spa", False),
    "seg_acc_eq": TaskKind("seg_acc_eq", "seg_acc_t", False),
}


@dataclass(frozen=True)
class Task:
    """One column of a primary table: a kind of task over one language pair (or pooled over several)."""

    kind: str
    lps: tuple[str, ...]
    weight: float
    pooled: bool = False

    @property
    def column(self) -> str:
        return self.kind if self.pooled else f"{self.lps[0]}_{KINDS[self.kind].suffix}"

    @property
    def spec(self) -> TaskKind:
        return KINDS[self.kind]


@dataclass(frozen=True)
class Protocol:
    """A primary table: pooled tasks (weight = number of pairs) first, then per-pair tasks (weight 1)."""

    name: str
    title: str
    pooled: tuple[str, ...]
    per_lp: tuple[str, ...]

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
        return any(KINDS[k].needs_sys_scores for k in self.pooled + self.per_lp)


WMT23 = Protocol("wmt23", "WMT23 primary table (Pearson columns: raw r)", ("sys_acc",),
                 ("sys_pearson", "seg_pearson", "seg_acc_t"))
WMT24 = Protocol("wmt24", "WMT24 primary table: system-level SPA and segment-level acc_eq", (),
                 ("sys_spa", "seg_acc_eq"))
WMT25 = Protocol("wmt25", "WMT25 primary table: system-level SPA and segment-level acc_eq", (),
                 ("sys_spa", "seg_acc_eq"))

PROTOCOLS = {p.name: p for p in (WMT23, WMT24, WMT25)}


def get_protocol(name: str) -> Protocol:
    """The protocol called ``name``; a one-line error naming the choices otherwise."""
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise UserError(f"unknown protocol {name!r} (choose from {', '.join(PROTOCOLS)})") from None
