"""What a judge's default few-shot demos are to its runner: how many per predictor, and how they are built.

A judge's registry entry names its plan (:attr:`tribunal.core.judges.Judge.demos`, e.g. M-MAD's
``MMADDemoPlan`` or GEMBA's ``FixedDemos`` in ``tribunal.programs.mqm``); the runner asks it for the count
(``--demos`` given or not) and for the demos, read from the TED MQM folder only when one is needed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import dspy

    from tribunal.core.judge_settings import JudgeSettings


class DemoPlan(Protocol):
    """A judge's default demos."""

    def count(self, settings: JudgeSettings | None, requested: int | None = None) -> int:
        """Demos per predictor under ``settings`` (``requested``: ``--demos``, where the plan lets it apply)."""

    def build(self, settings: JudgeSettings | None, root: Callable[[], Path], lp: str,
              count: int) -> dict[str, list[dspy.Example]]:
        """``{predictor: demos}`` for pair ``lp``; ``root()`` (the TED MQM folder) is asked for only when needed."""


LabelFunction = Callable[[object], "dspy.Example | None"]
"""A human-labelled example turned into one predictor's demo (None: the example gives that predictor none)."""
