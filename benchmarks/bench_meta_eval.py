"""Benchmark: the WMT23 primary table, cold from disk, against the mt-metrics-eval toolkit's time.

The toolkit takes about 54 s on this 2-core machine for the full WMT23 table of 32 metrics (k=0),
as measured when the issue was filed; it cannot be installed here, so that figure is the
reference. To check the ratio within one run too, the benchmark also times a plain-Python
pair-by-pair tie-calibration search (the algorithm of Deutsch et al. 2023 as the toolkit runs
it, written here from the paper) on one metric and compares it with ours on the same input.

    python benchmarks/bench_meta_eval.py [--data DIR] [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np

from tribunal.eval.data.mtme import LanguagePair
from tribunal.eval.meta.correlation import tie_calibrated_accuracy, within_item_pairs
from tribunal.eval.meta.wmt23 import GoldMatrices, align_metric, wmt23_table

TOOLKIT_SECONDS_32_METRICS = 54.0


def full_table_seconds(data: Path, metrics: list[str] | None) -> float:
    start = time.perf_counter()
    pairs = {lp: LanguagePair(data, lp) for lp in ("en-de", "he-en", "zh-en")}
    wmt23_table(pairs, metrics)
    return time.perf_counter() - start


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
    best, last = total, None
    for diff, r, right, tie_h in sorted(pairs):
        total -= rows[r][0] / rows[r][1]
        rows[r][0] += int(tie_h) - int(right)
        total += rows[r][0] / rows[r][1]
        best = max(best, total)
        last = diff
    return best / len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(os.environ.get("TRIBUNAL_DATA", "../shared/data")) / "wmt23"
    parser.add_argument("--data", type=Path, default=default)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    times = [full_table_seconds(args.data, None) for _ in range(args.repeats)]
    one = [full_table_seconds(args.data, ["COMET"]) for _ in range(args.repeats)]
    full, single = statistics.median(times), statistics.median(one)
    per_metric = (full - single) / 13
    projected_32 = single + 31 * per_metric
    print(f"14 shipped metrics, full table (median of {args.repeats}, cold file reads): {full:.3f} s")
    print(f"one metric: {single:.3f} s; marginal cost per metric: {per_metric * 1000:.1f} ms")
    print(f"projected 32-metric table: {projected_32:.3f} s -> {TOOLKIT_SECONDS_32_METRICS / projected_32:.1f}x "
          f"faster than the toolkit's {TOOLKIT_SECONDS_32_METRICS:.0f} s")

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
