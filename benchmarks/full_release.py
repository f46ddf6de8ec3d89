"""A full-size WMT23 release for benchmarks, built from the shipped 14-metric subset.

The real WMT23 release (mt-metrics-eval) holds 32 primary metrics, each scored against every
reference of a pair (``NAME-refA``, ``NAME-refB`` / ``NAME-synthetic_ref``) or the source
(``NAME-src``), at segment, system and domain level: about 113 MB of score files. The shipped
subset keeps 14 of them. This module builds the rest as perturbed copies of the shipped ones, in
the same layout, with the same number of lines and about the same bytes per line:

- the 14 shipped metrics' files are linked as they are; copy k of a base metric (``COMET_p1``,
  ...) has a file for every file of its base (every reference and level), whose scores are
  ``a * x + b`` plus seeded noise of a third of the base's spread (so each copy ranks differently),
  written as ``repr`` floats (integers stay integers);
- sources, references, system outputs, documents and human scores are links to the shipped ones.

The release is generated under the benchmark's cache folder (never in the repository) into a
temporary folder renamed into place when complete, so an interrupted build is never used.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

RECIPE = 1
"""Bumped when the generated files would change; a release built by another recipe is rebuilt."""
SHARED_FOLDERS = ("sources", "references", "system-outputs", "documents", "human-scores")


def _format(values: np.ndarray, integers: bool) -> list[str]:
    return [str(int(v)) for v in np.rint(values)] if integers else [repr(float(v)) for v in values]


def perturb_file(source: Path, target: Path, rng: np.random.Generator, scale: float, shift: float) -> None:
    """Write ``source`` (``[DOMAIN\\t]SYSTEM\\tscore`` lines) with every score perturbed."""
    lines = source.read_text(encoding="utf-8").splitlines()
    heads = [line.rpartition("\t")[0] for line in lines]
    texts = [line.rpartition("\t")[2] for line in lines]
    rated = np.array([t != "None" for t in texts])
    values = np.array([float(t) if r else 0.0 for t, r in zip(texts, rated)])
    spread = float(values[rated].std()) if rated.any() else 0.0
    noisy = scale * values + shift + rng.normal(0.0, spread / 3 + 1e-9, len(values))
    integers = all("." not in t and "e" not in t for t, r in zip(texts, rated) if r)
    out = _format(noisy, integers)
    body = "".join(f"{h}\t{o if r else 'None'}\n" for h, o, r in zip(heads, out, rated))
    target.write_text(body, encoding="utf-8")


def _metric_files(folder: Path) -> dict[str, list[Path]]:
    """``{base metric: its files}`` of one pair (a file's base: its name before ``-REF.level.score``)."""
    by_base: dict[str, list[Path]] = {}
    for path in sorted(folder.glob("*.score")):
        full = path.name.rsplit(".", 2)[0]
        by_base.setdefault(full.rpartition("-")[0], []).append(path)
    return by_base


def build(shipped: Path, dest: Path, metrics: int = 32, seed: int = 0) -> Path:
    """Build the release at ``dest`` (a folder named ``wmt23``) unless a complete one is there."""
    marker = dest / ".complete"
    wanted = f"recipe {RECIPE} metrics {metrics} seed {seed} from {shipped.resolve()}\n"
    if marker.is_file() and marker.read_text() == wanted:
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=dest.parent, prefix=".building-"))
    try:
        root = staging / dest.name
        root.mkdir()
        for name in SHARED_FOLDERS:
            (root / name).symlink_to((shipped / name).resolve(), target_is_directory=True)
        for lp_dir in sorted(p for p in (shipped / "metric-scores").iterdir() if p.is_dir()):
            out = root / "metric-scores" / lp_dir.name
            out.mkdir(parents=True)
            by_base = _metric_files(lp_dir)
            bases = sorted(by_base)
            for base in bases:
                for path in by_base[base]:
                    (out / path.name).symlink_to(path.resolve())
            for k in range(metrics - len(bases)):
                base = bases[k % len(bases)]
                copy = f"{base}_p{k // len(bases) + 1}"
                rng = np.random.default_rng([seed, k])
                scale, shift = float(rng.uniform(0.5, 2.0)), float(rng.normal(0.0, 1.0))
                for path in by_base[base]:
                    name = copy + path.name[len(base):]
                    perturb_file(path, out / name, np.random.default_rng([seed, k, len(name)]), scale, shift)
        (root / ".complete").write_text(wanted)
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(root, dest)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return dest


def size_of_score_files(root: Path) -> int:
    """Bytes of every ``metric-scores`` file (links followed)."""
    return sum(p.stat().st_size for p in (root / "metric-scores").rglob("*.score"))
