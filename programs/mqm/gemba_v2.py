"""GEMBA-MQM V2 (Junczys-Dowmunt, 2025, "GEMBA V2: Ten Judgments Are Better Than One", Proceedings of
WMT25, ACL Anthology 2025.wmt-1.67, pp. 926-933), as its published description gives it.

What the paper states (its abstract; the method section itself was not readable to us, so nothing
below goes beyond the abstract): GEMBA-MQM's prompt, annotations "mapped to scores with 25/5/1
severity weights (minor punctuation = 0.1)"; "each segment is scored ten times and aggregated with a
reciprocal-rank weighted average (RRWA) after removing outliers beyond 2 sigma".

The preset (:data:`GEMBA_V2_PRESET`): ``--program gemba-mqm-v2 --samples 10 --combine trimmed``:

- the judge (:class:`GembaMQMV2Judge`): one GEMBA-MQM call, scored by :func:`gemba_v2_score`:
  critical 25, major 5, minor 1, a minor punctuation error 0.1, every error counted and no cap
  (the abstract names no cap; GEMBA-MQM V1 counts 5 errors and caps at 25: :mod:`scoring`);
- 10 samples per segment (``rollout_id`` 1..10, :mod:`tribunal.programs.mqm.sampling`);
- aggregation: 2-sigma outlier removal then RRWA, the ``trimmed`` rule of
  :mod:`tribunal.eval.mt.combine`, whose docstring gives the two readings the abstract leaves open
  (population deviation; ranks from the best score down).
"""

from __future__ import annotations

from typing import Iterable

import dspy

from tribunal.programs.mqm.gemba import GembaMQMJudge
from tribunal.programs.mqm.scoring import GEMBA_WEIGHTS
from tribunal.signatures.mqm.errors import GembaError

MINOR_PUNCTUATION = 0.1
GEMBA_V2_PRESET = {"program": "gemba-mqm-v2", "samples": 10, "combine": "trimmed"}


def gemba_v2_score(errors: Iterable[GembaError]) -> float:
    """``-sum`` of 25/5/1 by severity, 0.1 for a minor punctuation error; every error, no cap."""
    def weight(error: GembaError) -> float:
        punctuation = "punctuation" in error.subcategory.lower()
        return MINOR_PUNCTUATION if error.severity == "minor" and punctuation else GEMBA_WEIGHTS[error.severity]

    return -sum(weight(e) for e in errors)


class GembaMQMV2Judge(GembaMQMJudge):
    """GEMBA-MQM's call, scored the V2 way (one judgment; the preset samples it 10 times)."""

    def forward(self, *args, **kwargs):
        out = super().forward(*args, **kwargs)
        return dspy.Prediction(errors=out.errors, score=gemba_v2_score(out.errors), transcript=out.transcript,
                               debates=out.debates)
