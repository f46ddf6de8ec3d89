"""Reader for the mt-metrics-eval (MTME) directory layout, one language pair at a time.

    sources/LP.txt   references/LP.REF.txt   system-outputs/LP/SYS.txt   documents/LP.docs
    human-scores/LP.GOLD.{seg,sys,domain}.score   human-scores/LP.NAME.seg.rating
    metric-scores/LP/METRIC-REF.{seg,sys,domain}.score

Newer sets may hold sources, references and outputs as JSONL (``sources/LP.jsonl`` with a
``source`` field, ``references/LP.REF.jsonl`` with ``target``, ``system-outputs/LP/SYS.jsonl``
with ``hypothesis``); a ``.txt`` file wins over a ``.jsonl`` one of the same name. The gold score
name (``mqm``, ``esa``, ``esa-human1``) comes from the test set's conventions.

Everything is read lazily and once; every per-segment file is checked against the source length.
Given a :class:`ScoreCache`, score and rating files are parsed once across runs (until they change).
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

import numpy as np
import json

from tribunal.data.conventions import Conventions, conventions_for
from tribunal.data.errors import DataFormatError
from tribunal.data.esa_gold import resolve_human
from tribunal.core.rating import Rating
from tribunal.data.ratings import read_ratings
from tribunal.data.score_cache import ScoreCache
from tribunal.data.score_files import read_domain_scores, read_seg_scores, read_sys_scores
from tribunal.data.text_files import read_documents, read_segments

TEXT_SUFFIXES = (".txt", ".jsonl")


def _text_file(folder: Path, stem: str) -> Path | None:
    """``folder/stem.txt``, else ``folder/stem.jsonl``, else None."""
    for suffix in TEXT_SUFFIXES:
        path = folder / f"{stem}{suffix}"
        if path.is_file():
            return path
    return None


def _stems(folder: Path, prefix: str = "") -> list[str]:
    """Names of the ``prefix*.txt`` / ``prefix*.jsonl`` files of a folder, prefix and suffix removed."""
    found = {p.name[len(prefix):-len(p.suffix)] for s in TEXT_SUFFIXES for p in folder.glob(f"{prefix}*{s}")}
    return sorted(found)


class LanguagePair:
    """One language pair of an MTME test set."""

    def __init__(self, root: str | Path, lp: str, conventions: Conventions | None = None,
                 extra_metric_roots: tuple[str | Path, ...] = (), cache: ScoreCache | None = None,
                 exclude_degraded: bool = False, gold: str | None = None,
                 human_dirs: tuple[str | Path, ...] = ()):
        self.root = Path(root)
        # --human NAME: the gold score name (``esa`` resolves to the pair's ESA file, esa_gold.py), searched in
        # human-scores/ and then in human_dirs (e.g. the ESA campaign's folder, aligned with this layout).
        self.gold_override = gold
        self.human_dirs = [self.root / "human-scores"] + [Path(d) for d in human_dirs]
        # tribunal's own score folders may mark degraded cells (NAME-REF.degraded.json beside the .seg.score):
        # with exclude_degraded they read as unscored, and the system scores become their mean over the rest.
        self.exclude_degraded = exclude_degraded
        self.cache = cache
        self._ratings: dict[str, dict[str, list[Rating]]] = {}
        self.lp = lp
        self.conventions = conventions or conventions_for(self.root)
        # Folders laid out like metric-scores/ (LP/NAME-REF.*.score), searched before the test set's own.
        self.metric_dirs = [Path(r) / lp for r in extra_metric_roots] + [self.root / "metric-scores" / lp]
        source = _text_file(self.root / "sources", lp)
        if source is None:
            raise DataFormatError(self.root / "sources" / f"{lp}.txt", None, f"no source file for {lp}")
        self.source_file = source

    # --- text -------------------------------------------------------------------------------
    @cached_property
    def sources(self) -> list[str]:
        return read_segments(self.source_file, "source")

    @property
    def n_segments(self) -> int:
        return len(self.sources)

    @cached_property
    def ref_names(self) -> list[str]:
        return _stems(self.root / "references", f"{self.lp}.")

    def reference(self, name: str) -> list[str]:
        folder = self.root / "references"
        path = _text_file(folder, f"{self.lp}.{name}") or folder / f"{self.lp}.{name}.txt"
        return read_segments(path, "target", self.n_segments)

    @cached_property
    def system_names(self) -> list[str]:
        return _stems(self.root / "system-outputs" / self.lp)

    def system_output(self, system: str) -> list[str]:
        folder = self.root / "system-outputs" / self.lp
        return read_segments(_text_file(folder, system) or folder / f"{system}.txt", "hypothesis", self.n_segments)

    @cached_property
    def documents(self) -> list[tuple[str, str]]:
        return read_documents(self.root / "documents" / f"{self.lp}.docs", self.n_segments)

    # --- human scores -----------------------------------------------------------------------
    @cached_property
    def gold_name(self) -> str:
        """The gold score name: ``--human``'s if given, else the conventions' first preference with score files."""
        if self.gold_override:
            return resolve_human(self.lp, self.gold_override, self.human_dirs)
        folder = self.root / "human-scores"
        for name in self.conventions.gold:
            if any((folder / f"{self.lp}.{name}.{level}.score").is_file() for level in ("seg", "sys")):
                return name
        return self.conventions.gold[0]

    def _human(self, suffix: str) -> Path:
        name = f"{self.lp}.{self.gold_name}.{suffix}"
        found = next((d / name for d in self.human_dirs if (d / name).is_file()), None)
        return found or self.root / "human-scores" / name

    @cached_property
    def gold_seg(self) -> dict[str, np.ndarray]:
        path = self._human("seg.score")
        scores = read_seg_scores(path, self.n_segments, self.cache)
        if not any((~np.isnan(v)).any() for v in scores.values()):
            raise DataFormatError(path, None, "no segment has a gold score (empty file or all None)")
        return scores

    @cached_property
    def gold_sys(self) -> dict[str, float]:
        path = self._human("sys.score")
        scores = read_sys_scores(path, self.cache)
        if not any(not np.isnan(v) for v in scores.values()):
            raise DataFormatError(path, None, "no system has a gold score (empty file or all None)")
        return scores

    @cached_property
    def gold_domain(self) -> dict[tuple[str, str], float]:
        return read_domain_scores(self._human("domain.score"), self.cache)

    @cached_property
    def rating_names(self) -> list[str]:
        prefix, suffix = f"{self.lp}.", ".seg.rating"
        found = (self.root / "human-scores").glob(f"{prefix}*{suffix}")
        return sorted(p.name[len(prefix):-len(suffix)] for p in found)

    def ratings(self, name: str) -> dict[str, list[Rating]]:
        """Error-span ratings of one rater file, e.g. ``mqm.rater1`` or ``mqm.merged`` (read once per pair)."""
        known = self._ratings.get(name)
        if known is None:
            path = self.root / "human-scores" / f"{self.lp}.{name}.seg.rating"
            known = self._ratings.setdefault(name, read_ratings(path, self.n_segments, self.cache))
        return known

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

    def degraded_marks(self, full_name: str) -> Path | None:
        """``NAME-REF.degraded.json`` beside the metric's segment scores, when it marks degraded cells."""
        seg = self.metric_file(full_name, "seg")
        marks = seg.with_name(f"{full_name}.degraded.json") if seg else None
        return marks if marks is not None and marks.is_file() else None

    def metric_seg(self, full_name: str) -> dict[str, np.ndarray] | None:
        path = self.metric_file(full_name, "seg")
        scores = read_seg_scores(path, self.n_segments, self.cache) if path else None
        marks = self.degraded_marks(full_name) if scores is not None and self.exclude_degraded else None
        if marks is not None:
            scores = {system: values.copy() for system, values in scores.items()}
            for system, segments in read_degraded_marks(marks, self.n_segments).items():
                if system in scores:
                    scores[system][segments] = np.nan
        return scores

    def metric_sys(self, full_name: str) -> dict[str, float] | None:
        if self.exclude_degraded and self.degraded_marks(full_name) is not None:
            seg = self.metric_seg(full_name)  # tribunal's system score: the mean of its scored cells
            return {s: float(np.nanmean(v)) for s, v in seg.items() if np.isfinite(v).any()}
        path = self.metric_file(full_name, "sys")
        return read_sys_scores(path, self.cache) if path else None

    # --- who is scored ----------------------------------------------------------------------
    def _eligible(self, systems, include_human: bool | None) -> list[str]:
        if include_human is None:
            include_human = self.conventions.includes_human(self.lp)
        excluded = set(self.conventions.outliers.get(self.lp, ())) | {self.conventions.std_ref(self.lp)}
        if not include_human:
            excluded |= set(self.ref_names)
        return sorted(s for s in systems if s not in excluded)

    def scored_systems(self, include_human: bool | None = None) -> list[str]:
        """Systems that enter system-level meta-evaluation: gold-scored, not outliers, not the standard ref.

        Human translations (the references) enter only where the conventions say so.
        """
        return self._eligible((s for s, v in self.gold_sys.items() if not np.isnan(v)), include_human)

    def rated_systems(self, include_human: bool | None = None) -> list[str]:
        """Systems with at least one gold segment score, under the same exclusions."""
        return self._eligible((s for s, v in self.gold_seg.items() if (~np.isnan(v)).any()), include_human)


def read_degraded_marks(path: Path, n_segments: int) -> dict[str, list[int]]:
    """``{system: [segment, ...]}`` from a ``.degraded.json`` file; :class:`DataFormatError` if it is not one."""
    try:
        marks = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as err:
        raise DataFormatError(path, None, f"not JSON: {err}") from None
    if not isinstance(marks, dict) or not all(
            isinstance(v, list) and all(isinstance(i, int) and 0 <= i < n_segments for i in v) for v in marks.values()):
        raise DataFormatError(path, 1, f"expected {{system: [segment index < {n_segments}, ...]}}")
    return marks


def language_pairs(root: str | Path) -> list[str]:
    """The language pairs of an MTME root (one per ``sources/LP.txt`` or ``.jsonl``).

    A pair with human or metric scores but no source file is an error, never a smaller set.
    """
    root = Path(root)
    present = _stems(root / "sources")
    scored = {p.name.split(".", 1)[0] for p in (root / "human-scores").glob("*.score")}
    scored |= {p.name for p in (root / "metric-scores").glob("*") if p.is_dir()}
    missing = sorted(scored - set(present))
    if missing:
        raise DataFormatError(root / "sources" / f"{missing[0]}.txt", None,
                              f"missing: {', '.join(missing)} ha{'s' if len(missing) == 1 else 've'} scores but no source file")
    return present
