"""Test-set conventions: the standard reference, outlier and human systems, the gold score name.

The values follow the shared tasks as encoded in mt-metrics-eval's ``meta_info`` and task sets:

- WMT23 (Freitag et al., 2023): refA is the standard reference for en-de and zh-en, refB for
  he-en, where refA is scored as a system; ``synthetic_ref`` is an outlier and never scored; MQM gold.
- WMT24 (Freitag et al., 2024): MQM gold for the primary pairs en-de, en-es and ja-zh (ESA,
  named ``esa``, for the others); refB is the standard reference for en-de, whose other reference
  is scored as a system; refA elsewhere.
- WMT25: ESA gold (``esa-human1``; ``esa`` in some releases) for most pairs and MQM for a few;
  pair names carry the target locale (``en-cs_CZ``); refA is the standard reference and any other
  reference with gold scores is scored as a system.

A folder's conventions follow its name (``wmt23``, ``wmt24``, ``wmt24pp``, ``wmt25``); any other
folder gets WMT23's, as before.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict


class Conventions(BaseModel):
    """How a test set's systems and references are treated in meta-evaluation."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    protocol: str = "wmt23"
    std_refs: dict[str, str] = {}
    default_std_ref: str = "refA"
    outliers: dict[str, frozenset[str]] = {}
    human_as_system: frozenset[str] | None = frozenset()
    """Pairs whose non-standard references are scored as systems; None: every pair."""
    gold: tuple[str, ...] = ("mqm",)
    """Gold score names in order of preference; a pair uses the first one it has files for."""
    primary_lps: tuple[str, ...] = ()
    """The pairs of the set's own primary table (empty: every pair with gold scores)."""

    def std_ref(self, lp: str) -> str:
        """The standard reference of ``lp``."""
        return self.std_refs.get(lp, self.default_std_ref)

    def includes_human(self, lp: str) -> bool:
        """Whether ``lp`` scores its non-standard references as systems."""
        return self.human_as_system is None or lp in self.human_as_system


WMT23 = Conventions(
    name="wmt23",
    std_refs={"en-de": "refA", "he-en": "refB", "zh-en": "refA", "en-he": "refB"},
    outliers={lp: frozenset({"synthetic_ref"}) for lp in ("en-de", "he-en", "zh-en")},
    human_as_system=frozenset({"he-en", "en-he"}),
    primary_lps=("en-de", "he-en", "zh-en"),
)

WMT24 = Conventions(
    name="wmt24",
    protocol="wmt24",
    std_refs={"en-de": "refB"},
    human_as_system=frozenset({"en-de"}),
    gold=("mqm", "esa"),
    primary_lps=("en-de", "en-es", "ja-zh"),
)

WMT24PP = Conventions(name="wmt24pp", protocol="wmt24", human_as_system=None, gold=("mqm", "esa"))

WMT25 = Conventions(
    name="wmt25", protocol="wmt25", human_as_system=None, gold=("mqm", "esa-human1", "esa"),
)

KNOWN = {c.name: c for c in (WMT23, WMT24, WMT24PP, WMT25)}


def conventions_for(root: str | Path) -> Conventions:
    """The conventions of a test-set folder, chosen by its name (WMT23's for unknown names)."""
    return KNOWN.get(Path(root).resolve().name, WMT23)
