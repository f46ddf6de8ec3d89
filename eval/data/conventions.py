"""Test-set conventions: which reference is standard, which systems are outliers or human.

The WMT23 values follow the shared task (Freitag et al., 2023, "Results of WMT23 Metrics
Shared Task") as encoded in mt-metrics-eval's ``meta_info``: refA is the standard reference for
en-de and zh-en, refB for he-en, where refA is scored as a system; ``synthetic_ref`` is an
outlier and never scored.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Conventions(BaseModel):
    """How a test set's systems and references are treated in meta-evaluation."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    std_refs: dict[str, str]
    outliers: dict[str, frozenset[str]] = {}
    human_as_system: frozenset[str] = frozenset()
    gold: str = "mqm"

    def std_ref(self, lp: str) -> str:
        """The standard reference of ``lp`` (the ``refA`` default for unknown pairs)."""
        return self.std_refs.get(lp, "refA")


WMT23 = Conventions(
    name="wmt23",
    std_refs={"en-de": "refA", "he-en": "refB", "zh-en": "refA"},
    outliers={lp: frozenset({"synthetic_ref"}) for lp in ("en-de", "he-en", "zh-en")},
    human_as_system=frozenset({"he-en", "en-he"}),
)
