"""LM calls of the original M-MAD for the same outcomes, to measure what our design saves.

The original (Feng et al.'s code) spends, per segment: 4 dimension agents; for each dimension with
errors, 3 calls per debate round (defender, opposer, a separate consensus check); one merge call
whose result is unused whenever anything was debated; and one final-judge call. A clean segment
costs 5 calls, the worst case 4 + 4 * 3 * 3 + 1 + 1 = 42.
"""

from __future__ import annotations

from typing import Mapping


def original_mmad_calls(debate_rounds: Mapping[str, int]) -> int:
    """Calls of the original M-MAD given ``{dimension: rounds until consensus or the limit}``."""
    debated = {d: r for d, r in debate_rounds.items() if r > 0}
    return 4 + sum(3 * r for r in debated.values()) + (1 if debated else 0) + 1
