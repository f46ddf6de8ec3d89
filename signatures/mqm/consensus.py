"""The consensus check after a debate round: a separate yes/no call, as in the published M-MAD code.

It sees only the two agents' latest annotations. On "yes" the debate ends with the first agent's
(the defender's) annotations.
"""

from __future__ import annotations

import dspy

from tribunal.signatures.mqm.errors import DimensionError


class ConsensusCheck(dspy.Signature):
    """Compare the error annotations provided by two agents for the same machine-translated segment.
    Determine if the annotations are essentially consistent."""

    first_annotations: list[DimensionError] = dspy.InputField()
    second_annotations: list[DimensionError] = dspy.InputField()
    consensus: bool = dspy.OutputField(desc="yes if they are consistent, no if they are inconsistent")
