"""A WMT23 folder whose en-de MQM gold is kept only on the cells the ESA campaign's ESA-1 pass rated.

``tribunal mt evaluate --rated-only`` selects the cells with a gold score, so run on this folder it
judges ESA-1's cells only (segment by segment, every system together, up to ``--limit`` items);
its score files line up with ``$TRIBUNAL_DATA/wmt23`` (the same layout), so ``mt meta-eval --task
error-free --human esa --scores OUT`` reads them against the real data. Everything but the masked
MQM segment score file is a symbolic link into the real folder.

    python benchmarks/esa_sample_root.py /tmp/esa-sample   # then --data /tmp/esa-sample/wmt23
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

LP = "en-de"


def build(out: Path, data: Path) -> Path:
    """Write ``out/wmt23`` (links, and the masked ``human-scores/en-de.mqm.seg.score``); returns it."""
    real, root = data / "wmt23", out / "wmt23"
    (root / "human-scores").mkdir(parents=True, exist_ok=True)
    for entry in real.iterdir():
        if entry.name != "human-scores" and not (root / entry.name).exists():
            (root / entry.name).symlink_to(entry.resolve())
    for entry in (real / "human-scores").iterdir():
        if entry.name != f"{LP}.mqm.seg.score" and not (root / "human-scores" / entry.name).exists():
            (root / "human-scores" / entry.name).symlink_to(entry.resolve())
    esa = (data / "esa-wmt23" / f"{LP}.ESA-1.seg.score").read_text(encoding="utf-8").splitlines()
    mqm = (real / "human-scores" / f"{LP}.mqm.seg.score").read_text(encoding="utf-8").splitlines()
    if len(esa) != len(mqm):
        raise SystemExit(f"ESA-1 has {len(esa)} lines, the MQM file {len(mqm)}: not the same layout")
    kept = []
    for esa_line, mqm_line in zip(esa, mqm):
        system, score = mqm_line.split("\t")
        if esa_line.split("\t")[0] != system:
            raise SystemExit(f"ESA-1 and MQM disagree on the system order ({esa_line!r} vs {mqm_line!r})")
        kept.append(f"{system}\t{score if esa_line.split(chr(9))[1] != 'None' else 'None'}")
    target = root / "human-scores" / f"{LP}.mqm.seg.score"
    target.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return root


if __name__ == "__main__":
    data_root = Path(os.environ.get("TRIBUNAL_DATA", "../shared/data"))
    print(build(Path(sys.argv[1]), data_root))
