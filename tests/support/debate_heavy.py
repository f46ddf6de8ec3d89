"""A deterministic judge that debates as much as M-MAD allows: the runner's worst case for scheduling.

Real judges find more to argue about than :func:`tests.support.mqm_fakes.synthetic_judge`: here
each stage-1 agent finds an error in 90% of translations, and neither debater ever concedes, so
every debate runs to the round limit (with ``rounds=3`` and ``opening=stage1``: 5 sequential calls
per debated dimension, about 22 calls per item). Outcomes depend only on a hash of the inputs.
"""

from __future__ import annotations

from typing import Any

from tests.support.mqm_fakes import ERROR_RATE, SUBCATEGORY, _h, synthetic_judge

FINDING_RATE = 90


def debate_heavy_judge(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """Stage 1 finds an error in 90% of cases per dimension; debates never reach consensus."""
    translation = str(inputs.get("translation", ""))
    if name in ERROR_RATE:
        word = max(translation.split() or ["?"], key=len)
        severity = "major" if _h("sev", name, translation) % 3 == 0 else "minor"
        errors = [{"span": word, "subcategory": SUBCATEGORY[name], "severity": severity, "is_source_error": False}]
        return {"rationale": "synthetic", "errors": errors if _h(name, translation) % 100 < FINDING_RATE else []}
    if name == "DebateTurn":
        stance = inputs.get("stance")
        position = inputs.get("assessment") or []
        if stance == "oppose":
            position = [dict(e, severity="minor" if e["severity"] == "major" else "major") for e in position]
        return {"argument": f"{stance}: I hold my position", "position": position, "agrees": False}
    return synthetic_judge(name, inputs)
