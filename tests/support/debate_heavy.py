"""A deterministic judge that debates as much as M-MAD allows: the runner's worst case for scheduling.

Real judges find more to argue about than :func:`tests.support.mqm_fakes.synthetic_judge`: here
each stage-1 agent finds an error in 90% of translations, and neither debater ever concedes, so
every debate runs to the round limit (with ``rounds=3`` and ``opening=stage1``: 5 sequential calls
per debated dimension, about 22 calls per item). The paper preset's agents too: the guided stage-1
agents find a major error as often (the paper debates major errors only), the minor-leaning
debaters keep opposite annotations every round and the consensus check never says yes (about 19
calls per item). Outcomes depend only on a hash of the inputs.
"""

from __future__ import annotations

from typing import Any

from tests.support.mqm_fakes import ASSESSORS, DIMENSION_OF, ERROR_RATE, LEAN_NAME, SUBCATEGORY, _flip, _h, synthetic_judge

FINDING_RATE = 90


def debate_heavy_judge(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """Stage 1 finds an error in 90% of cases per dimension; debates never reach consensus."""
    translation = str(inputs.get("translation", ""))
    if name in LEAN_NAME and LEAN_NAME[name] in ERROR_RATE:
        errors = debate_heavy_judge(LEAN_NAME[name], inputs)["errors"]
        return {"errors": [dict(e, severity="major") for e in errors]}
    if name in DIMENSION_OF:  # a minor-leaning debater: A1 keeps stage 1's annotations, A2 their flip
        lean = ASSESSORS[DIMENSION_OF[name]].__name__
        stage1 = [dict(e, severity="major") for e in debate_heavy_judge(lean, inputs)["errors"]]
        defender = str(inputs.get("debate", "")).startswith("[round 0] you:")
        return {"analysis": "I hold my position", "errors": stage1 if defender else _flip(stage1)}
    if name == "ConsensusCheck":
        return {"consensus": False}
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
