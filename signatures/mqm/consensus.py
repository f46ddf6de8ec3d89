"""A separate consensus check after a debate round (the original M-MAD's extra call; optional here)."""

from __future__ import annotations

import dspy

from tribunal.signatures.mqm.errors import DimensionError


class ConsensusCheck(dspy.Signature):
    """Read the debate between the two annotators and decide whether they have reached consensus on the
    errors of this dimension. If they have, give the error list they agree on."""

    dimension: str = dspy.InputField()
    debate: str = dspy.InputField()
    consensus: bool = dspy.OutputField()
    agreed: list[DimensionError] = dspy.OutputField(desc="the agreed errors (empty if no consensus)")
