"""M-MAD's role names, declared once: its calls are made as these roles, and its registry entry reads them.

Each stage-1 dimension agent is a role of its own (``accuracy``, ``fluency``, ``style``, ``terminology``,
grouped as ``assessor``), as is the coupled agent that replaces them without stage 1; stage 2's debaters
(``defender``, ``opposer``, grouped as ``debater``), its consensus check, reviewer and debate judge; and the
final judge. ``--role-lm ROLE=MODEL`` names one of :data:`ROLES`
(:attr:`tribunal.core.judges.Judge.roles` points here).
"""

from __future__ import annotations

from tribunal.signatures.mqm.errors import DIMENSIONS

ASSESSOR = "assessor"
"""The group of the four dimension agents (a role without its own LM falls back to its group's)."""
COUPLED = "coupled"
DEFENDER = "defender"
OPPOSER = "opposer"
DEBATER = "debater"
"""The group of the two debaters."""
CONSENSUS = "consensus"
REVIEWER = "reviewer"
DEBATE_JUDGE = "debate_judge"
JUDGE = "judge"

DEBATERS = (DEFENDER, OPPOSER)
ROLES: tuple[str, ...] = (*DIMENSIONS, ASSESSOR, COUPLED, DEFENDER, OPPOSER, DEBATER, CONSENSUS, REVIEWER,
                          DEBATE_JUDGE, JUDGE)
"""Every role M-MAD's calls are made as, groups included, in the order ``--role-lm`` lists them."""
