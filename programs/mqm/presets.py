"""M-MAD presets: the published protocol (``paper``) and tribunal's cost-saving variant (``lean``).

A preset is a set of values for the switches of :class:`tribunal.programs.mqm.mmad.MMADConfig`;
any switch given explicitly overrides its preset's value. The README's M-MAD section has the table
of every difference from the published code, with the reason for each.

Switches (paper value first):
- ``assessors``: ``guideline`` (stage-1 agents share the MQM guideline, non-translation for every
  agent, style = "awkward" only; ``signatures/mqm/guided_dimensions.py``) | ``brief`` (short
  per-dimension instructions with a rationale; ``signatures/mqm/dimensions.py``);
- ``debated``: ``major`` (only dimensions with a major error or non-translation) | ``any`` (every
  dimension with an error);
- ``debaters``: ``minor-leaning`` (downgraded opening, simultaneous re-examination with the
  minor-leaning guidance; ``programs/mqm/minor_leaning.py``) | ``free`` (stance debaters);
- ``opening``: ``downgraded`` (minor-leaning debaters) | ``stage1`` (the stage-1 rationale is the
  defender's first turn, no call) | ``debater`` (a defender call);
- ``consensus_check``: ``separate`` (a yes/no call after every round) | ``inline`` (the free
  debaters' typed ``agrees``);
- ``judge``: ``most-severe`` (the published merge rule, enforced; ``signatures/mqm/merging_judge.py``)
  | ``most-fitting`` (``signatures/mqm/final_judge.py``);
- ``judge_policy``: ``if-stage1-errors`` (no judge call when stage 1 found nothing, as published) |
  ``if-errors`` (none when no error is left after the debates) | ``always``;
- ``demo_rule``: ``fixed`` (4 fixed TED demos per language pair: 3 for the dimension + 1
  non-translation, also in the stage-1 ablation; ``programs/mqm/fixed_demos.py``) | ``seeded`` (2
  seeded random TED demos, none in the stage-1 ablation).
"""

from __future__ import annotations

from typing import Any

PRESETS: dict[str, dict[str, Any]] = {
    "paper": {"assessors": "guideline", "debated": "major", "debaters": "minor-leaning", "opening": "downgraded",
              "consensus_check": "separate", "judge": "most-severe", "judge_policy": "if-stage1-errors",
              "demo_rule": "fixed"},
    "lean": {"assessors": "brief", "debated": "any", "debaters": "free", "opening": "stage1",
             "consensus_check": "inline", "judge": "most-fitting", "judge_policy": "if-errors",
             "demo_rule": "seeded"},
}

DEFAULT_DEMOS = {"fixed": 4, "seeded": 2}
"""Few-shot demos per dimension agent when the run does not say (``--demos``)."""


def with_preset(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` completed from their preset (``paper`` unless named); explicit non-None values win."""
    given = {k: v for k, v in values.items() if v is not None}
    preset = given.get("preset", "paper")
    if preset not in PRESETS:
        return given  # the model's own validation names the allowed presets
    return {**PRESETS[preset], **given}


def tweaks(preset: str, values: dict[str, Any]) -> dict[str, Any]:
    """The switches in ``values`` that differ from ``preset``'s."""
    return {k: v for k, v in values.items() if k in PRESETS[preset] and PRESETS[preset][k] != v}
