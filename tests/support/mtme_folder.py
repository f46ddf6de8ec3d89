"""Write a one-pair folder in the mt-metrics-eval layout, for the test fixtures that build their own.

Every reference is also written as a system output (as the real releases do), and the MQM gold as
segment scores plus their mean per system.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import write


def _lines(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def write_mtme(root: Path, sources: list[str], outputs: dict[str, list[str]], references: dict[str, list[str]],
               gold: dict[str, list[float]], documents: list[str] | None = None, ratings: str | None = None,
               lp: str = "en-de") -> Path:
    """Write the folder at ``root`` (``documents``: one ``domain<TAB>doc`` line a segment; ``ratings``: the
    merged rating file's text); returns ``root``."""
    write(root / "sources" / f"{lp}.txt", _lines(sources))
    for name, lines in references.items():
        write(root / "references" / f"{lp}.{name}.txt", _lines(lines))
    for system, lines in {**outputs, **references}.items():
        write(root / "system-outputs" / lp / f"{system}.txt", _lines(lines))
    if documents is not None:
        write(root / "documents" / f"{lp}.docs", _lines(documents))
    write(root / "human-scores" / f"{lp}.mqm.seg.score",
          "".join(f"{s}\t{v}\n" for s, values in gold.items() for v in values))
    write(root / "human-scores" / f"{lp}.mqm.sys.score", "".join(f"{s}\t{sum(v) / len(v)}\n" for s, v in gold.items()))
    if ratings is not None:
        write(root / "human-scores" / f"{lp}.mqm.merged.seg.rating", ratings)
    return root
