"""One fallback an item was scored with: which role stayed unusable, why, and what stood in for it.

Recorded from ``tribunal.programs.fallbacks.Degradation`` (``as_dict``), with ``sample`` when a sampled
ensemble's sample took it.
"""

from __future__ import annotations

from tribunal.core.json_record import JsonRecord


class DegradedRole(JsonRecord):
    """A fallback taken: ``role`` stayed unusable (``reason``, one line), ``stood_in`` replaced it."""

    role: str
    reason: str
    stood_in: str
    subject: str | None = None
    """What the failed calls were about, e.g. the dimension of a debate (None: the whole item)."""
    sample: int | None = None
