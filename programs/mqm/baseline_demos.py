"""The fixed few-shot demos of the GEMBA-style judges, by program (``tribunal mt evaluate``).

GEMBA-MQM and MQM-APE's evaluator show GEMBA's three demos (one clean segment, errors in GEMBA's
scheme), GEMBA-ESA's span step the same segments in ESA's two severities; all from the TED MQM
annotations (:mod:`tribunal.programs.mqm.demos`), never from WMT23. ESA's score step, APE's
post-editor and verifier, and EAPrompt are zero-shot, as in their papers. M-MAD's per-dimension
pools are separate (:func:`~tribunal.programs.mqm.demos.dimension_demos`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import dspy

from tribunal.programs.mqm.demos import esa_demos, gemba_demos

GEMBA_DEMOS = 3

Pool = Callable[..., "list[dspy.Example]"]  # (TED folder, lp, count) -> demos

# program -> its settings -> {predictor: the pool its demos come from}
PLANS: dict[str, Callable[[Any], dict[str, Pool]]] = {
    "gemba-mqm": lambda settings: {"annotate": gemba_demos},
    "gemba-esa": lambda settings: {} if "spans" in settings.ablate else {"annotate": esa_demos},
    "mqm-ape": lambda settings: {"evaluate": gemba_demos},
}


def _plan(program: str, settings: Any) -> dict[str, Pool]:
    return PLANS[program](settings) if program in PLANS else {}


def fixed_demos(program: str, settings: Any, root: Callable[[], Path], lp: str) -> dict[str, list[dspy.Example]]:
    """``{predictor: demos}`` for ``program`` with its settings (``{}`` for a zero-shot program).

    ``root()`` gives the TED MQM folder; it is asked for only when a demo is needed.
    """
    return {predictor: pool(root(), lp, GEMBA_DEMOS) for predictor, pool in _plan(program, settings).items()}


def fixed_demo_count(program: str, settings: Any) -> int:
    """Demos per predictor that ``program`` shows (for the run signature; no data is read)."""
    return GEMBA_DEMOS if _plan(program, settings) else 0
