"""Whether a tuned candidate's dev answers are too often unusable to pick it, whatever its score.

A candidate whose answers the judge cannot use (a refusal, a loop cut at the token limit, an invalid
annotation) leaves its dev items *unscored*. Every objective counts those items at its worst (the
item metric as 0, a correlation as -1 by the unscored share: :data:`UNSCORED_COUNTS`), yet a
candidate can still win on them: on a small model the untuned program scored 0.019 on 30 dev items
and a tuned one 0.236 with 13 of them unscored, then lost 27 of 120 test items where the untuned
one lost none (issue 42). So the selection (:mod:`.objective_selection`) and the tuned program's
check (:mod:`.optimize_search`) apply one more rule:

a candidate is **unreliable** when more than :data:`MAX_UNSCORED_SHARE` of its dev items are unscored
*and* its unscored share exceeds the untuned program's by more than :data:`SLACK` (tuning made its
answers unusable; a dev set the untuned program cannot judge either does not reject every candidate).

An unreliable finalist is never chosen while a reliable one exists; a tuned program that is unreliable
is not exported: the untuned program is kept, and the report says why, with the counts.
"""

from __future__ import annotations

from typing import Any

MAX_UNSCORED_SHARE = 0.25
"""More than a quarter of the dev items unscored: the candidate is too often unusable (with :data:`SLACK`)."""
SLACK = 0.10
"""... and at least 10 points more of them than the untuned program (which sets the bar for the LM and data)."""

UNSCORED_COUNTS = {
    "item": "an unscored dev item scores 0",
    "seg-acc-eq": "every pair with an unscored translation counts as wrong",
    "kendall": "the unscored share enters as tau = -1 (scored/n * tau + unscored/n * -1)",
    "pearson": "the unscored share enters as r = -1 (scored/n * r + unscored/n * -1)",
    "balanced-accuracy": "an unscored verdict is the wrong one",
    "f1-different": "an unscored verdict is the wrong one",
}
"""How each objective counts an unscored dev item (:mod:`.corpus_objectives` holds the rules)."""


def unscored_share(dev: Any) -> float:
    """The share of ``dev``'s items (a :class:`~.dev_eval.DevScore`) that are unscored (0 for none)."""
    return dev.unscored / dev.n if dev.n else 0.0


def unreliable(dev: Any, untuned: Any = None) -> str | None:
    """Why the candidate scored as ``dev`` is too often unusable, in one line (None: it is not).

    ``untuned`` is the untuned program's :class:`~.dev_eval.DevScore` on the same items (None: 0 unscored).
    """
    share, bar = unscored_share(dev), unscored_share(untuned) if untuned is not None else 0.0
    if share <= MAX_UNSCORED_SHARE or share <= bar + SLACK:
        return None
    base = f"; untuned {untuned.unscored} of {untuned.n}" if untuned is not None else ""
    return (f"{dev.unscored} of {dev.n} dev items unscored ({share:.0%}{base}): more than "
            f"{MAX_UNSCORED_SHARE:.0%}, and {SLACK:.0%} more than the untuned program")


def unscored_rule(objective_name: str) -> str:
    """How ``objective_name`` (one objective or a ``NAME=W,...`` mix) counts unscored dev items, in words."""
    names = [part.partition("=")[0].strip() for part in objective_name.split(",")]
    return "; ".join(f"{name}: {UNSCORED_COUNTS.get(name, 'its own worst case')}" for name in names)
