"""What a program does when one of its roles stays unusable after its re-asks: the fallback its method defines.

An answer that stays unusable after ``--reasks`` re-asks raises
:class:`~tribunal.programs.answers.unusable.UnusableAnswer`. A program whose method defines what stands in
for that role (M-MAD: a dimension whose debate fails keeps its stage-1 annotation, which is the paper's
stage-2 ablation) declares a :class:`Fallback` next to the role and calls :func:`stand_in`; the item is
then *scored* and marked *degraded* with a :class:`Degradation` (which role, why, what stood in), and every
call the other roles paid for is kept. A role with no sound fallback (GEMBA-MQM's single call) declares
none, and its failure unscores the item as before.

``strict`` (``--strict``) turns every fallback off: the first unusable role unscores the item.
Only unusable answers fall back. A connection error, a timeout or a rate limit is not a verdict on the
answer: it propagates, and the item is unscored as retryable (a rerun judges it again).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping, Sequence

from tribunal.core.degraded_role import DegradedRole

from tribunal.programs.answers.unusable import UnusableAnswer, describe


@dataclass(frozen=True)
class Fallback:
    """What a program's method puts in place of ``roles`` when one of them stays unusable."""

    roles: tuple[str, ...]
    stands_in: str
    """In words, for the record and the docs: e.g. "the dimension's stage-1 annotation (stage-2 ablation)"."""


@dataclass(frozen=True)
class Degradation:
    """One fallback taken in one item: ``role`` stayed unusable (``reason``, one line); ``stood_in`` replaced it."""

    role: str
    reason: str
    stood_in: str
    subject: str | None = None
    """What the failed calls were about, e.g. the dimension of a debate (None: the whole item)."""

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


def stand_in(fallback: Fallback, err: UnusableAnswer, strict: bool, subject: str | None = None) -> Degradation:
    """The :class:`Degradation` of taking ``fallback`` for ``err``; re-raises ``err`` under ``strict``."""
    if strict:
        raise err
    role = getattr(err, "role", None) or fallback.roles[0]
    return Degradation(role=role, reason=describe(err)[:300], stood_in=fallback.stands_in, subject=subject)


def degraded_roles(degradations: Sequence[Mapping[str, Any] | DegradedRole]) -> list[str]:
    """The roles of an item's degradations (as dicts, or an item's :class:`DegradedRole`), in order, each once."""
    return list(dict.fromkeys(d.role if isinstance(d, DegradedRole) else d.get("role", "?") for d in degradations))
