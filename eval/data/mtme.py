"""Reader for the mt-metrics-eval (MTME) directory layout, one language pair at a time.

    sources/LP.txt   references/LP.REF.txt   system-outputs/LP/SYS.txt   documents/LP.docs
    human-scores/LP.GOLD.{seg,sys,domain}.score   human-scores/LP.NAME.seg.rating
    metric-scores/LP/METRIC-REF.{seg,sys,domain}.score

Everything is read lazily and once; every per-segment file is checked against the source length.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

import numpy as np

from tribunal.eval.data.conventions import WMT23, Conventions
from tribunal.eval.data.errors import DataFormatError
from tribunal.eval.data.ratings import Rating, read_ratings
from tribunal.eval.data.score_files import read_domain_scores, read_seg_scores, read_sys_scores
from tribunal.eval.data.text_files import read_documents, read_lines


class LanguagePair:
    """One language pair of an MTME test set."""

    def __init__(self, root: str | Path, lp: str, conventions: Conventions = WMT23,
                 extra_metric_roots: tuple[str | Path, ...] = ()):
        self.root = Path(root)
        self.lp = lp
        self.conventions = conventions
        # Folders laid out like metric-scores/ (LP/NAME-REF.*.score), searched before the test set's own.
        self.metric_dirs = [Path(r) / lp for r in extra_metric_roots] + [self.root / "metric-scores" / lp]
        if not (self.root / "sources" / f"{lp}.txt").is_file():
            raise DataFormatError(self.root / "sources" / f"{lp}.txt", None, f"no source file for {lp}")

    # --- text -------------------------------------------------------------------------------
    @cached_property
    def sources(self) -> list[str]:
        return read_lines(self.root / "sources" / f"{self.lp}.txt")

    @property
    def n_segments(self) -> int:
        return len(self.sources)

    @cached_property
    def ref_names(self) -> list[str]:
        prefix = f"{self.lp}."
        return sorted(p.name[len(prefix):-len(".txt")] for p in (self.root / "references").glob(f"{prefix}*.txt"))

    def reference(self, name: str) -> list[str]:
        return read_lines(self.root / "references" / f"{self.lp}.{name}.txt", self.n_segments)

    @cached_property
    def system_names(self) -> list[str]:
        return sorted(p.stem for p in (self.root / "system-outputs" / self.lp).glob("*.txt"))

    def system_output(self, system: str) -> list[str]:
        return read_lines(self.root / "system-outputs" / self.lp / f"{system}.txt", self.n_segments)

    @cached_property
    def documents(self) -> list[tuple[str, str]]:
        return read_documents(self.root / "documents" / f"{self.lp}.docs", self.n_segments)

    # --- human scores -----------------------------------------------------------------------
    def _human(self, suffix: str) -> Path:
        return self.root / "human-scores" / f"{self.lp}.{self.conventions.gold}.{suffix}"

    @cached_property
    def gold_seg(self) -> dict[str, np.ndarray]:
        return read_seg_scores(self._human("seg.score"), self.n_segments)

    @cached_property
    def gold_sys(self) -> dict[str, float]:
        return read_sys_scores(self._human("sys.score"))

    @cached_property
    def gold_domain(self) -> dict[tuple[str, str], float]:
        return read_domain_scores(self._human("domain.score"))

    @cached_property
    def rating_names(self) -> list[str]:
        prefix, suffix = f"{self.lp}.", ".seg.rating"
        found = (self.root / "human-scores").glob(f"{prefix}*{suffix}")
        return sorted(p.name[len(prefix):-len(suffix)] for p in found)

    def ratings(self, name: str) -> dict[str, list[Rating]]:
        """Error-span ratings of one rater file, e.g. ``mqm.rater1`` or ``mqm.merged``."""
        return read_ratings(self.root / "human-scores" / f"{self.lp}.{name}.seg.rating", self.n_segments)

    # --- metric scores ----------------------------------------------------------------------
    @cached_property
    def metric_names(self) -> list[str]:
        """Every ``NAME-REF`` with a segment or system score file."""
        names = {p.name.rsplit(".", 2)[0] for d in self.metric_dirs for p in d.glob("*.s[ey][gs].score")}
        return sorted(names)

    def metric_file(self, full_name: str, level: str) -> Path | None:
        """The first ``NAME-REF.<level>.score`` file among the metric folders, if any."""
        for folder in self.metric_dirs:
            path = folder / f"{full_name}.{level}.score"
            if path.is_file():
                return path
        return None

    def split_metric(self, full_name: str) -> tuple[str, str]:
        """``'BLEURT-20-refA'`` -> ``('BLEURT-20', 'refA')``."""
        base, _, ref = full_name.rpartition("-")
        return (base, ref) if base else (full_name, "")

    def resolve_metric(self, base: str) -> str | None:
        """The file name a base metric is evaluated under: ``NAME-<std ref>``, else ``NAME-src``."""
        for ref in (self.conventions.std_ref(self.lp), "src"):
            if f"{base}-{ref}" in self.metric_names:
                return f"{base}-{ref}"
        return None

    def base_metrics(self) -> list[str]:
        """Base names of the metrics scored against the standard reference or the source."""
        keep = {self.conventions.std_ref(self.lp), "src"}
        return sorted({b for b, r in map(self.split_metric, self.metric_names) if r in keep})

    def metric_seg(self, full_name: str) -> dict[str, np.ndarray] | None:
        path = self.metric_file(full_name, "seg")
        return read_seg_scores(path, self.n_segments) if path else None

    def metric_sys(self, full_name: str) -> dict[str, float] | None:
        path = self.metric_file(full_name, "sys")
        return read_sys_scores(path) if path else None

    # --- who is scored ----------------------------------------------------------------------
    def scored_systems(self, include_human: bool | None = None) -> list[str]:
        """Systems that enter meta-evaluation: gold-scored, not outliers, not the standard ref.

        Human translations (the references) enter only where the conventions say so.
        """
        if include_human is None:
            include_human = self.lp in self.conventions.human_as_system
        excluded = set(self.conventions.outliers.get(self.lp, ())) | {self.conventions.std_ref(self.lp)}
        if not include_human:
            excluded |= set(self.ref_names)
        return sorted(s for s in self.gold_sys if s not in excluded)


def language_pairs(root: str | Path) -> list[str]:
    """The language pairs present under an MTME root (one per ``sources/LP.txt``)."""
    return sorted(p.stem for p in (Path(root) / "sources").glob("*.txt"))
