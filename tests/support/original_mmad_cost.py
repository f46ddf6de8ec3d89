"""LM calls of the original M-MAD code for the same outcomes, to measure what each preset spends.

The published code (github.com/SU-JIAYUAN/M-MAD) spends, per segment: 4 dimension agents; one
stage-1 merge call (``stage1.py`` runs its judge on the stage-1 annotations; stages 2-3 never read
that answer); for each debated dimension, 3 calls per round (both agents, then the yes/no consensus
check); and one final-judge call unless stage 1 found no error at all. A clean segment costs 5
calls, the worst case 4 + 1 + 4 * 3 * 3 + 1 = 42.

"The same outcomes" are the same stage-1 findings and the same number of rounds per debated
dimension. The formula counts the original at its best: its judge skip is a string test (all four
stage-1 answers literally ``{"annotations": []}``), so on a clean segment whose answers say so in
other words it also calls the judge. The paper preset debates what the original debates and skips
the unused merge call, so it spends at least one call less. The lean preset debates every dimension with an error;
its figure compares it with the original code holding the same debates (``found`` defaults to
"something was debated", which is the same thing for the lean preset's outcomes).
"""

from __future__ import annotations

from typing import Mapping


def original_mmad_calls(debate_rounds: Mapping[str, int], found: bool | None = None) -> int:
    """Calls of the original M-MAD given ``{dimension: rounds until consensus or the limit}``.

    ``found``: whether stage 1 found any error (the final judge runs then); default: any debate held.
    """
    rounds = sum(r for r in debate_rounds.values() if r > 0)
    if found is None:
        found = any(r > 0 for r in debate_rounds.values())
    return 4 + 1 + 3 * rounds + (1 if found else 0)
