"""A meta-evaluation statistic, declared once where its function is defined (``@statistic(...)``).

The declaration says everything the rest of tribunal needs to know about a statistic: its
function, its level (system / segment), what it reads (:mod:`~tribunal.eval.meta.inputs`), how it
is resampled for significance (:mod:`~tribunal.eval.meta.resampling_kinds`), its direction, its
display name and metric key, and the tables it is a task of (a protocol's primary table,
``"run"``: the report of ``tribunal mt evaluate``). The meta-evaluation tables, the clusters,
``mt compare``, the run report, the key metrics and the command line read :data:`REGISTRY`
(complete once :mod:`~tribunal.eval.meta.statistics` is imported) instead of naming statistics.

This module imports nothing from tribunal, so the modules that define statistics can import it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Literal, Mapping

Level = Literal["system", "segment"]
LEVELS: tuple[Level, ...] = ("system", "segment")
"""Table order: system-level tasks before segment-level ones, each in declaration order."""

def few_systems(meta: Mapping[str, float]) -> str:
    """Why a system-level value is undefined on the covered cells of a run."""
    if meta.get("covered_systems", 0) < 2:
        return "fewer than 2 systems covered"
    return "the scores do not vary across systems"


def few_cells(meta: Mapping[str, float]) -> str:
    """Why a segment-level value is undefined on the covered cells of a run."""
    return "fewer than 2 rated cells covered" if meta.get("covered_cells", 0) < 2 else "the scores do not vary"


@dataclass(frozen=True)
class Statistic:
    """One statistic: ``function(gold side, metric side)`` of its ``inputs``, and where it is shown.

    ``tables`` are the protocols whose primary table has it as a per-language-pair task (and
    ``"run"``: the run report); ``pooled`` the protocols that pool it over the language pairs
    with ``pool`` (which reads each pair's ``extras``). ``many`` computes several metrics at once
    against one gold side (same values as ``function``, faster). ``correlation`` (range -1..1)
    enters averages as (r + 1) / 2. ``key_metric`` is its place among a run's key metrics.
    """

    key: str
    function: Callable[..., Any]
    level: Level
    inputs: str
    resampling: str
    display: str
    higher_better: bool = True
    correlation: bool = False
    tables: tuple[str, ...] = ()
    pooled: tuple[str, ...] = ()
    pool: Callable[[list[Mapping[str, float] | None]], float] | None = None
    many: Callable[..., list] | None = None
    extras: tuple[str, ...] = ()
    key_metric: int | None = None
    undefined: str | Callable[[Mapping[str, float]], str] | None = None

    @property
    def metric_key(self) -> str:
        """The name its value is logged under in MLflow, e.g. ``meta.seg_acc_t``."""
        return f"meta.{self.key}"

    @property
    def slope(self) -> float:
        """How the value moves its 0..1-scaled value (:meth:`normalise`): 1/2 for a correlation, negative
        when lower is better."""
        return (0.5 if self.correlation else 1.0) * (1.0 if self.higher_better else -1.0)

    def normalise(self, value: float) -> float:
        """The value on the 0..1 scale the average uses (higher better): (r + 1) / 2 for a correlation."""
        scaled = (value + 1) / 2 if self.correlation else value
        return scaled if self.higher_better else 1.0 - scaled

    def why_undefined(self, meta: Mapping[str, float]) -> str:
        """Why the value is undefined on a run's covered cells (``covered_systems`` / ``covered_cells``)."""
        reason = self.undefined or (few_systems if self.level == "system" else few_cells)
        return reason if isinstance(reason, str) else reason(meta)


REGISTRY: dict[str, Statistic] = {}
"""Every declared statistic by key, in declaration order."""


def statistic(key: str, **declaration: Any) -> Callable[[Callable], Callable]:
    """Declare the decorated function as the statistic ``key`` (see :class:`Statistic`); returns it unchanged.

    Stack several to declare one function under several keys (Pearson: system and segment level).
    """
    def register(function: Callable) -> Callable:
        if key in REGISTRY:
            raise ValueError(f"statistic {key!r} is declared twice")
        REGISTRY[key] = Statistic(key, function, **declaration)
        return function
    return register


def split_value(value: Any) -> tuple[float, dict[str, float]]:
    """A function's return value as (value, extras)."""
    if isinstance(value, tuple):
        return float(value[0]), dict(value[1])
    return float(value), {}


def pooled_ratio(numerator: str, denominator: str) -> Callable[[list[Mapping[str, float] | None]], float]:
    """A pool: the sum of an extra over the language pairs divided by the sum of another (NaN if one is missing)."""
    def pool(extras: list[Mapping[str, float] | None]) -> float:
        if any(e is None or not e.get(denominator) for e in extras):
            return math.nan
        return sum(e[numerator] for e in extras) / sum(e[denominator] for e in extras)
    return pool
