"""Benchmark the meta-evaluation: primary tables and significance clusters, whole process.

Reference figures of the mt-metrics-eval toolkit on this 2-core machine (it cannot be installed
here; the figures are the issues'): the full WMT23 table of 32 metrics at k=0 takes about 54 s,
the 32-metric WMT24-on-WMT23 table about 64 s, and its WMT23 table with only k=20 resamples had
not finished after 20 minutes (the published tables use k=1000).

Timed here, each as a fresh ``tribunal mt meta-eval`` process (interpreter start, imports, file
reads, computation, output) on the 14 shipped metrics:

1. the WMT23 table and the WMT24-protocol table (median of ``--repeats`` runs);
2. the WMT23 table with ``--significance 1000`` and the WMT24-protocol table with
   ``--significance 1000`` (one run each; ``--skip-significance`` leaves them out).

Also, in-process and as a ratio within one run: the tie-calibration search against a plain
pair-by-pair loop (Deutsch et al., 2023, as the toolkit runs it), on zh-en COMET.

    python benchmarks/bench_meta_eval.py [--data DIR] [--repeats 3] [--samples 1000] [--skip-significance]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from tribunal.eval.data.mtme import LanguagePair
from tribunal.eval.meta.correlation import tie_calibrated_accuracy, within_item_pairs
from tribunal.eval.meta.lp_tasks import GoldMatrices, align_metric

TOOLKIT_SECONDS = {"wmt23": 54.0, "wmt24": 64.0}  # 32 metrics, k=0


def cli_seconds(data: Path, *args: str) -> float:
    """Wall time of one ``tribunal mt meta-eval`` process (output to a temporary TSV, no tracking)."""
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "tribunal", "mt", "meta-eval", "--data", str(data), "--no-track",
                   "--output", str(Path(tmp) / "t.tsv"), *args]
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, cwd=tmp)
        elapsed = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(done.stderr)
    return elapsed


def plain_python_acc_t(gold: np.ndarray, metric: np.ndarray) -> float:
    """Pair-by-pair search: sort all pairs by |metric difference|, flip them to ties one by one."""
    rows: dict[int, list[int]] = {}
    pairs = []
    for r, (g, m) in enumerate(zip(gold.tolist(), metric.tolist())):
        cells = [(a, b) for a, b in zip(g, m) if a == a and b == b]
        for i in range(len(cells)):
            for j in range(i + 1, len(cells)):
                (g1, m1), (g2, m2) = cells[i], cells[j]
                tie_h, tie_m = g1 == g2, m1 == m2
                right = (tie_h and tie_m) or (not tie_h and not tie_m and (g1 > g2) == (m1 > m2))
                rows.setdefault(r, [0, 0])
                rows[r][0] += right
                rows[r][1] += 1
                pairs.append((abs(m1 - m2), r, right, tie_h))
    total = sum(c / n for c, n in rows.values())
    best = total
    for _, r, right, tie_h in sorted(pairs):
        total -= rows[r][0] / rows[r][1]
        rows[r][0] += int(tie_h) - int(right)
        total += rows[r][0] / rows[r][1]
        best = max(best, total)
    return best / len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(os.environ.get("TRIBUNAL_DATA", "../shared/data")) / "wmt23"
    parser.add_argument("--data", type=Path, default=default)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--skip-significance", action="store_true")
    args = parser.parse_args()

    for protocol in ("wmt23", "wmt24"):
        times = [cli_seconds(args.data, "--protocol", protocol) for _ in range(args.repeats)]
        median = statistics.median(times)
        print(f"{protocol} table, 14 metrics, whole process (median of {args.repeats}): {median:.2f} s "
              f"(range {min(times):.2f}-{max(times):.2f}); toolkit, 32 metrics: {TOOLKIT_SECONDS[protocol]:.0f} s")
    if not args.skip_significance:
        for protocol in ("wmt23", "wmt24"):
            seconds = cli_seconds(args.data, "--protocol", protocol, "--significance", str(args.samples))
            print(f"{protocol} table with --significance {args.samples}, 14 metrics, whole process: {seconds:.1f} s "
                  f"({seconds / 60:.1f} min)")

    pair = LanguagePair(args.data, "zh-en")
    gold = GoldMatrices.from_pair(pair)
    aligned = align_metric(gold, pair.metric_sys("COMET-refA"), pair.metric_seg("COMET-refA"))
    start = time.perf_counter()
    plain = plain_python_acc_t(gold.seg, aligned.seg)
    plain_seconds = time.perf_counter() - start
    start = time.perf_counter()
    ours, _ = tie_calibrated_accuracy(within_item_pairs(gold.seg, aligned.seg))
    ours_seconds = time.perf_counter() - start
    print(f"in-run check, zh-en COMET acc-t: plain Python {plain_seconds:.3f} s, tribunal {ours_seconds:.4f} s "
          f"({plain_seconds / ours_seconds:.0f}x); values {plain:.6f} vs {ours:.6f}")


if __name__ == "__main__":
    main()
