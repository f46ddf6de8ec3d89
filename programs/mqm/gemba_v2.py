"""GEMBA-MQM V2 (Junczys-Dowmunt, 2025, "GEMBA V2: Ten Judgments Are Better Than One", Proceedings of
WMT25, ACL Anthology 2025.wmt-1.67, pp. 926-933), as far as its published text could be read.

**What we could read.** Only the abstract (https://aclanthology.org/2025.wmt-1.67): "Building on
GEMBA/GEMBA-MQM, we prompt GPT-4.1-mini to produce structured MQM error annotations per segment. We
map annotations to scores with 25/5/1 severity weights (minor punctuation = 0.1). To reduce
stochastic variance, each segment is scored ten times and aggregated with a reciprocal-rank weighted
average (RRWA) after removing outliers beyond 2σ." The paper's body (its method section, equations
and appendix) is not in the store, and the author's V2 code is not public (see
:mod:`tribunal.programs.mqm.gemba_v2_aggregation`), so no section or equation number can be cited;
what the abstract leaves open is stated below as tribunal's reading.

The preset (:data:`GEMBA_V2_PRESET`): ``--program gemba-mqm-v2 --samples 10 --combine gemba-v2``:

- **prompt**: GEMBA-MQM's (:class:`~tribunal.signatures.mqm.gemba.GembaMQM`), per the abstract's
  "building on GEMBA-MQM". V2's own prompt text is not readable to us. A third-party reproduction
  (thompsonb/gemba_v2_table3, README and ``scripts/score_wmt23_gemba_v2.py``) says the paper judges
  one segment per request "while retaining the entire newline-joined source document in the system
  prompt" and reads a JSON annotation ``{"errors": {"critical": [], "major": [], "minor": []}}``;
  tribunal's nearest setting, ``--context N``, gives
  the N segments before this one, not the whole document, and the preset does not set it;
- **scoring** (:func:`gemba_v2_score`, the abstract's rule): critical 25, major 5, minor 1, a minor
  punctuation error 0.1. Every error is counted and there is **no cap**: the abstract names none
  (tribunal's reading; GEMBA-MQM V1 counts 5 errors and caps at 25, :mod:`scoring`; VoiceFrom's
  third-party reimplementation reports passes scored -29 to -109 on one clip, which no cap at 25
  allows: https://dev.to/yahya_saleh_d157cf3d7fe2e/how-i-use-an-llm-as-a-translation-judge-42na);
- **samples**: 10 (the abstract), sample k under DSPy ``rollout_id`` k = 1..10
  (:mod:`tribunal.programs.mqm.sampling`). The temperature is not in the abstract, so the preset
  does not set one (``--temperature``; the run notes that samples at temperature 0 repeat
  themselves); thompsonb/gemba_v2_table3 uses 0.4 and its tests call it a paper parameter, which we
  could not check;
- **aggregation**: ``gemba-v2`` (:func:`~tribunal.programs.mqm.gemba_v2_aggregation.gemba_v2_aggregate`):
  scores beyond 2 population standard deviations of the mean removed, then RRWA over the rest
  ranked best first; its docstring gives each reading and its evidence. ``trimmed`` is tribunal's
  own rule, not the published one.
"""

from __future__ import annotations

from typing import Iterable

from tribunal.programs.mqm.gemba import GembaMQMJudge
from tribunal.programs.mqm.gemba_v2_aggregation import PUBLISHED_SAMPLES
from tribunal.programs.mqm.scoring import GEMBA_WEIGHTS
from tribunal.signatures.mqm.errors import GembaError

MINOR_PUNCTUATION = 0.1
GEMBA_V2_PRESET = {"program": "gemba-mqm-v2", "samples": PUBLISHED_SAMPLES, "combine": "gemba-v2"}


def gemba_v2_score(errors: Iterable[GembaError]) -> float:
    """``-sum`` of 25/5/1 by severity, 0.1 for a minor punctuation error (the abstract); every error, no cap
    (tribunal's reading: the abstract names no cap)."""
    def weight(error: GembaError) -> float:
        punctuation = "punctuation" in error.subcategory.lower()
        return MINOR_PUNCTUATION if error.severity == "minor" and punctuation else GEMBA_WEIGHTS[error.severity]

    return -sum(weight(e) for e in errors)


class GembaMQMV2Judge(GembaMQMJudge):
    """GEMBA-MQM's call, scored the V2 way (one judgment; the preset samples it 10 times)."""

    @staticmethod
    def score_of(errors: list) -> float:
        """V2's score (:func:`gemba_v2_score`): the same plan as GEMBA-MQM on threads and on ``--judging async``."""
        return gemba_v2_score(errors)
