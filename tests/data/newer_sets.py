"""Tiny test sets in the newer mt-metrics-eval layouts (WMT24: MQM + ESA, two references; WMT25:
JSONL texts, ``esa-human1`` gold, a locale in the pair name), as ``{relative path: bytes}``."""

from __future__ import annotations

import json
from pathlib import Path

SEGMENTS = 4


def _jsonl(field: str, values: list[str | None]) -> bytes:
    return "".join(json.dumps({field: v, "doc_id": "d1"}) + "\n" for v in values).encode()


def _seg(scores: dict[str, list[float | None]]) -> bytes:
    return "".join(f"{s}\t{'None' if v is None else v}\n" for s, vals in scores.items() for v in vals).encode()


def _sys(scores: dict[str, list[float | None]]) -> bytes:
    means = {s: [v for v in vals if v is not None] for s, vals in scores.items()}
    return "".join(f"{s}\t{sum(v) / len(v)}\n" for s, v in means.items() if v).encode()


GOLD = {"A": [-1.0, -5.0, 0.0, -2.0], "B": [0.0, -2.0, -1.0, 0.0], "C": [-3.0, -1.0, 0.0, -6.0],
        "refA": [0.0, 0.0, -1.0, 0.0], "refB": [0.0, -1.0, 0.0, 0.0]}
METRIC = {"A": [0.2, 0.1, 0.5, 0.3], "B": [0.9, 0.4, 0.6, 0.8], "C": [0.1, 0.8, 0.7, 0.05],
          "refA": [0.95, 0.9, 0.5, 0.9], "refB": [0.9, 0.7, 0.8, 0.85]}


def wmt25_files(lp: str = "en-cs_CZ") -> dict[str, bytes]:
    """WMT25-style: JSONL texts, ``esa-human1`` gold; refA standard, refB scored as a system."""
    files = {
        f"sources/{lp}.jsonl": _jsonl("source", [f"source {i}" for i in range(SEGMENTS)]),
        f"documents/{lp}.docs": b"general\td1\n" * SEGMENTS,
        f"human-scores/{lp}.esa-human1.seg.score": _seg({s: [v * 10 for v in vals] for s, vals in GOLD.items()}),
        f"human-scores/{lp}.esa-human1.sys.score": _sys({s: [v * 10 for v in vals] for s, vals in GOLD.items()}),
    }
    for ref in ("refA", "refB"):
        files[f"references/{lp}.{ref}.jsonl"] = _jsonl("target", [f"{ref} {i}" for i in range(SEGMENTS)])
    for system in GOLD:
        texts = [f"{system} {i}" for i in range(SEGMENTS)]
        files[f"system-outputs/{lp}/{system}.jsonl"] = _jsonl("hypothesis", texts[:-1] + [None])
    scored = {s: v for s, v in METRIC.items() if s != "refA"}
    files[f"metric-scores/{lp}/M-refA.seg.score"] = _seg(scored)
    files[f"metric-scores/{lp}/M-refA.sys.score"] = _sys(scored)
    return files


def wmt24_files() -> dict[str, bytes]:
    """WMT24-style en-de: MQM and ESA gold, refB standard, refA scored as a system; plain text."""
    lp = "en-de"
    files = {
        f"sources/{lp}.txt": "".join(f"source {i}\n" for i in range(SEGMENTS)).encode(),
        f"human-scores/{lp}.mqm.seg.score": _seg(GOLD),
        f"human-scores/{lp}.mqm.sys.score": _sys(GOLD),
        f"human-scores/{lp}.esa.seg.score": _seg({s: [50.0] * SEGMENTS for s in GOLD}),
    }
    for ref in ("refA", "refB"):
        files[f"references/{lp}.{ref}.txt"] = "".join(f"{ref} {i}\n" for i in range(SEGMENTS)).encode()
    for system in GOLD:
        files[f"system-outputs/{lp}/{system}.txt"] = "".join(f"{system} {i}\n" for i in range(SEGMENTS)).encode()
    scored = {s: v for s, v in METRIC.items() if s != "refB"}
    files[f"metric-scores/{lp}/M-refB.seg.score"] = _seg(scored)
    files[f"metric-scores/{lp}/M-refB.sys.score"] = _sys(scored)
    return files


def materialise(root: Path, files: dict[str, bytes]) -> Path:
    for relative, data in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root
