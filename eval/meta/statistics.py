"""Every declared statistic, in table order: importing this module imports the modules that declare them.

A statistic is declared where its function is defined (``@statistic(...)``, :mod:`statistic`);
the modules below are the ones that declare some. Readers ask this module, never name a statistic.
"""

from __future__ import annotations

from tribunal.eval.meta import correlation, spa  # noqa: F401  (they declare statistics)
from tribunal.eval.meta.statistic import LEVELS, REGISTRY, Statistic

STATISTICS = REGISTRY
"""Every declared statistic by key (a test may add one and remove it)."""


def ordered(statistics: list[Statistic] | None = None) -> list[Statistic]:
    """Statistics in table order: system level first, then segment level, each in declaration order."""
    chosen = list(STATISTICS.values()) if statistics is None else statistics
    return sorted(chosen, key=lambda s: LEVELS.index(s.level))  # stable: declaration order within a level


def per_lp_tasks(table: str) -> list[Statistic]:
    """The statistics that are a per-language-pair task of ``table`` (a protocol's name, or ``"run"``)."""
    return ordered([s for s in STATISTICS.values() if table in s.tables])


def pooled_tasks(table: str) -> list[Statistic]:
    """The statistics that ``table`` pools over its language pairs."""
    return ordered([s for s in STATISTICS.values() if table in s.pooled])


def key_metric_keys() -> tuple[str, ...]:
    """The metric keys of the statistics that are key metrics of a run (``meta.seg_acc_t``, ...), in their order."""
    keyed = [s for s in STATISTICS.values() if s.key_metric is not None]
    return tuple(s.metric_key for s in sorted(keyed, key=lambda s: s.key_metric))


def get_statistic(key: str) -> Statistic:
    """The statistic declared as ``key``."""
    return STATISTICS[key]
