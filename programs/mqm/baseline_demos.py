"""The fixed few-shot demos of the GEMBA-style judges (``tribunal mt evaluate``).

GEMBA-MQM and MQM-APE's evaluator show GEMBA's three demos (one clean segment, errors in GEMBA's
scheme), GEMBA-ESA's span step the same segments in ESA's two severities; all from the TED MQM
annotations (:mod:`tribunal.programs.mqm.demos`), never from WMT23. ESA's score step, APE's
post-editor and verifier, and EAPrompt are zero-shot, as in their papers. M-MAD's per-dimension
pools are separate (:data:`~tribunal.programs.mqm.fixed_demos.MMAD_DEMOS`). Each judge's registry entry
(:mod:`tribunal.core.judges`) names its plan.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import dspy

from tribunal.programs.mqm.demos import esa_demos, gemba_demos

GEMBA_DEMOS = 3

Pool = Callable[..., "list[dspy.Example]"]  # (TED folder, lp, count) -> demos


@dataclass(frozen=True)
class FixedDemos:
    """GEMBA's three demos for the predictors ``plan(settings)`` names (``{predictor: pool}``)."""

    plan: Callable[[Any], dict[str, Pool]]

    def count(self, settings: Any, requested: int | None = None) -> int:
        """Demos per predictor (``requested``, ``--demos``, does not apply: GEMBA's 3)."""
        return GEMBA_DEMOS if self.plan(settings) else 0

    def build(self, settings: Any, root: Callable[[], Path], lp: str, count: int) -> dict[str, list[dspy.Example]]:
        """``{predictor: demos}``; ``root()`` (the TED MQM folder) is asked for only when a demo is needed."""
        return {predictor: pool(root(), lp, GEMBA_DEMOS) for predictor, pool in self.plan(settings).items()}


GEMBA_MQM_DEMOS = FixedDemos(lambda settings: {"annotate": gemba_demos})
GEMBA_ESA_DEMOS = FixedDemos(lambda settings: {} if "spans" in settings.ablate else {"annotate": esa_demos})
MQM_APE_DEMOS = FixedDemos(lambda settings: {"evaluate": gemba_demos})

