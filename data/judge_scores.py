"""A judge's scores for the agreement table: ``tribunal mt agreement --judge FILE_OR_DIR``.

- a ``tribunal mt evaluate`` output folder: its ``metric-scores/LP/NAME-src.seg.score`` (one metric);
  on MQM's scale, or ESA's when the metric is a GEMBA-ESA one (its name holds ``ESA``);
- a metric's ``.seg.score`` file (MTME: ``SYSTEM\\tscore``, line i = segment i): the metric's own
  scale (``other``: only Pearson and Kendall compare it with the raters) unless the caller says;
- a user JSONL file in the raters' format (:mod:`multi_ratings`) holding one rater: the judge.

Items are named as the raters' are (``SYSTEM:SEGMENT`` for cells, the file's ``item`` for user files).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tribunal.errors import UserError
from tribunal.data.multi_ratings import cell_name, user_ratings
from tribunal.data.mtme import LanguagePair
from tribunal.data.score_files import read_seg_scores

SEG_SUFFIX = ".seg.score"


@dataclass
class JudgeScores:
    name: str
    scores: dict[str, float]  # item -> score (unscored items absent)
    scale: str
    file: Path

    def aligned(self, items: list[str]) -> np.ndarray:
        """The judge's score of each item, NaN where it has none."""
        return np.array([self.scores.get(item, np.nan) for item in items], dtype=float)


def _cells(path: Path, pair: LanguagePair) -> dict[str, float]:
    blocks = read_seg_scores(path, pair.n_segments)
    return {cell_name(s, i): float(v) for s, values in blocks.items() for i, v in enumerate(values) if np.isfinite(v)}


def _folder_file(folder: Path, pair: LanguagePair) -> Path:
    scores = folder / "metric-scores"
    if not scores.is_dir():
        raise UserError(f"--judge {folder}: not a `tribunal mt evaluate` output folder (no metric-scores/)")
    found = sorted((scores / pair.lp).glob(f"*{SEG_SUFFIX}"))
    if len(found) != 1:
        names = ", ".join(p.name for p in found) or "none"
        raise UserError(f"--judge {folder}: expected one {pair.lp} segment score file in {scores / pair.lp} "
                        f"(found {names}); name the file instead")
    return found[0]


def read_judge(path: Path, pair: LanguagePair | None, scale: str | None = None) -> JudgeScores:
    """The judge at ``path`` (see the module docstring); ``scale`` overrides the default."""
    if not path.exists():
        raise UserError(f"--judge {path}: no such file or folder")
    if path.suffix == ".jsonl":
        table = user_ratings([path])
        if len(table.raters) != 1:
            raise UserError(f"--judge {path}: a judge file holds one rater (found {len(table.raters)}: "
                            f"{', '.join(table.raters)})")
        scores = {item: float(v) for item, v in zip(table.items, table.scores[0]) if np.isfinite(v)}
        return JudgeScores(table.raters[0], scores, scale or "other", path)
    if pair is None:
        raise UserError(f"--judge {path}: with --ratings the judge is a JSONL file in the same format")
    if path.is_dir():
        file = _folder_file(path, pair)
        name = file.name[:-len(SEG_SUFFIX)]
        return JudgeScores(name, _cells(file, pair), scale or ("esa" if "ESA" in name.upper() else "mqm"), file)
    if not path.name.endswith(SEG_SUFFIX):
        raise UserError(f"--judge {path}: expected an output folder, a {SEG_SUFFIX} file or a .jsonl file")
    return JudgeScores(path.name[:-len(SEG_SUFFIX)], _cells(path, pair), scale or "other", path)
