"""Benchmark the meta-evaluation on a full-size WMT23 release, each figure a whole process.

Reference figures of the mt-metrics-eval toolkit on this 2-core machine (it cannot be installed
here; the figures are the issues'): the WMT23 and WMT24-on-WMT23 tables of 32 metrics take 63-76 s;
its WMT23 table with only k=20 resamples had not finished after 20 minutes (the published tables
use k=1000).

The release (:mod:`full_release`: the 14 shipped metrics plus perturbed copies up to 32, every
reference, about 97 MB of score files) is generated once under ``--work`` (default: the user's
cache folder, ``~/.cache/tribunal/bench``), never in the repository. Timed, each as a fresh
``tribunal mt meta-eval`` process (interpreter start, imports, reading, computation, output),
with a parsed-data cache of its own under ``--work`` and Python's bytecode cached there too (as
in a normal installation; after one untimed warm-up run per code tree):

1. the WMT23 table and the WMT24-protocol table, first run (cache emptied before each run) and
   repeated run (cache filled by the run before), median of ``--repeats``, wall time and, in
   brackets, the process's CPU time (user + system), which a loaded machine inflates less;
2. both tables with ``--significance K`` (repeated run, once each; ``--skip-significance``);
3. ``tribunal --help`` (start-up); in-process, each table's CPU at 14 and 32 metrics (best of 7:
   how the cost grows per metric); and in-process, as a ratio within one run, acc-t's tie
   calibration against a plain pair-by-pair loop (zh-en COMET);
4. with ``--baseline REF`` (a git ref such as ``main``), the same tables by that commit's code,
   extracted with ``git archive`` into ``--work`` and run from there, interleaved with the runs
   above so that both see the same load: the ratios are the figure that survives a loaded machine.

    python benchmarks/bench_meta_eval.py [--data DIR] [--metrics 32] [--repeats 3] [--samples 1000]
        [--baseline main [--baseline-significance wmt23,wmt24]] [--skip-tables | --skip-significance]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import full_release  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
TOOLKIT_SECONDS = {"wmt23": "63-76", "wmt24": "63-76"}  # 32 metrics, k=0, the issues' figures
PACKAGE_DIRS = {"eval": "eval", "signatures": "signatures", "programs": "programs", "optimizers": "optimizers"}


class Runner:
    """Runs ``tribunal`` as a fresh process with a given code tree (None: the installed one) and cache folder."""

    def __init__(self, code: Path | None, cache: Path):
        self.code, self.cache = code, cache
        self.cpu: list[float] = []

    def env(self) -> dict[str, str]:
        # Bytecode cached as in a normal installation (this sandbox sets PYTHONDONTWRITEBYTECODE), kept
        # out of the repository under the cache folder's parent.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(TRIBUNAL_CACHE=str(self.cache), PYTHONPYCACHEPREFIX=str(self.cache.parent / "pycache"))
        if self.code is not None:
            env["PYTHONPATH"] = str(self.code)
        return env

    def seconds(self, *args: str) -> float:
        """Wall seconds of one process; its CPU seconds (user + system) are added to ``self.cpu``."""
        with tempfile.TemporaryDirectory() as tmp:
            command = [sys.executable, "-m", "tribunal", *args]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True, cwd=tmp, env=self.env())
            elapsed = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode:
            raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr}")
        self.cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        return elapsed

    def table(self, data: Path, protocol: str, *extra: str) -> float:
        return self.seconds("mt", "meta-eval", "--data", str(data), "--no-track", "--protocol", protocol,
                            "--output", "t.tsv", *extra)

    def clear(self) -> None:
        shutil.rmtree(self.cache, ignore_errors=True)


TABLE_CPU = """
import inspect, sys, time
from pathlib import Path
from threadpoolctl import threadpool_limits
from tribunal.eval.meta.meta_eval_job import load_pairs
from tribunal.eval.meta.protocols import get_protocol
from tribunal.eval.meta.table import meta_eval_table
data, protocol = Path(sys.argv[1]), sys.argv[2]
extra = {}
if "cache" in inspect.signature(load_pairs).parameters:  # this code keeps parsed files in a cache
    from tribunal.data.score_cache import ScoreCache
    extra["cache"] = ScoreCache.default()
best = float("inf")
for _ in range(7):
    pairs = load_pairs(data, None, **extra)
    start = time.process_time()
    with threadpool_limits(limits=1, user_api="blas"):
        meta_eval_table(pairs, None, get_protocol(protocol))
    best = min(best, time.process_time() - start)
print(best)
"""


def table_cpu(runner: Runner, data: Path, protocol: str) -> float:
    """CPU seconds of the table alone, in-process (best of 7; reading included, from the cache if the code has one)."""
    done = subprocess.run([sys.executable, "-P", "-c", TABLE_CPU, str(data), protocol], capture_output=True,
                          text=True, env=runner.env(), check=True)
    return float(done.stdout.split()[-1])


def growth(data: Path, release: Path, runner: Runner, base: Runner | None) -> None:
    """In-process CPU of each table at 14 and 32 metrics, and what each added metric costs."""
    for protocol in ("wmt23", "wmt24"):
        parts = []
        for name, code in (("now", runner), ("baseline", base)):
            if code is None:
                continue
            small, full = table_cpu(code, data, protocol), table_cpu(code, release, protocol)
            parts.append(f"{name} {small:.3f} s -> {full:.3f} s (+{(full - small) / 18 * 1000:.1f} ms per metric)")
        print(f"{protocol} table alone, in-process CPU, best of 7, 14 -> 32 metrics: {'; '.join(parts)}", flush=True)


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


def acc_t_check(data: Path) -> str:
    """In-process, as a ratio within one run: the tie-calibration search against the plain loop, zh-en COMET."""
    from tribunal.data.mtme import LanguagePair
    from tribunal.eval.meta.correlation import tie_calibrated_accuracy, within_item_pairs
    from tribunal.eval.meta.lp_tasks import GoldMatrices, align_metric

    pair = LanguagePair(data, "zh-en")
    gold = GoldMatrices.from_pair(pair)
    aligned = align_metric(gold, pair.metric_sys("COMET-refA"), pair.metric_seg("COMET-refA"))
    start = time.perf_counter()
    plain = plain_python_acc_t(gold.seg, aligned.seg)
    plain_seconds = time.perf_counter() - start
    start = time.perf_counter()
    ours, _ = tie_calibrated_accuracy(within_item_pairs(gold.seg, aligned.seg))
    ours_seconds = time.perf_counter() - start
    return (f"in-run check, zh-en COMET acc-t: plain Python {plain_seconds:.3f} s, tribunal {ours_seconds:.4f} s "
            f"({plain_seconds / ours_seconds:.0f}x); values {plain:.6f} vs {ours:.6f}")


def baseline_tree(ref: str, work: Path) -> Path:
    """The code of git ``ref`` laid out as an importable ``tribunal`` package under ``work``."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", ref], capture_output=True, check=True).stdout
    root = work / f"baseline-{ref.replace('/', '_')}"
    shutil.rmtree(root, ignore_errors=True)
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(root / "src", filter="data")
    package = root / "pkg" / "tribunal"
    shutil.copytree(root / "src" / "tribunal", package)
    for name, folder in PACKAGE_DIRS.items():
        (package / name).symlink_to(root / "src" / folder, target_is_directory=True)
    return root / "pkg"


def summary(times: list[float]) -> str:
    return f"{statistics.median(times):.2f} s (range {min(times):.2f}-{max(times):.2f})"


def timed(runner: Runner, run) -> tuple[float, float]:
    """(wall, CPU) seconds of one process started by ``run()``."""
    wall = run()
    return wall, runner.cpu[-1]


def time_tables(data: Path, runner: Runner, base: Runner | None, repeats: int) -> None:
    for protocol in ("wmt23", "wmt24"):
        cold, warm, old = [], [], []
        for _ in range(repeats):  # interleaved, so that both codes see the same load
            runner.clear()
            cold.append(timed(runner, lambda: runner.table(data, protocol)))
            warm.append(timed(runner, lambda: runner.table(data, protocol)))
            if base is not None:
                old.append(timed(base, lambda: base.table(data, protocol)))
        line = (f"{protocol} table, whole process, median of {repeats}: first run {summary([w for w, _ in cold])} "
                f"[CPU {statistics.median([c for _, c in cold]):.2f} s], repeated run {summary([w for w, _ in warm])} "
                f"[CPU {statistics.median([c for _, c in warm]):.2f} s]; toolkit: {TOOLKIT_SECONDS[protocol]} s")
        if old:
            before, before_cpu = statistics.median([w for w, _ in old]), statistics.median([c for _, c in old])
            line += (f"; baseline: {summary([w for w, _ in old])} [CPU {before_cpu:.2f} s] -> "
                     f"{before / statistics.median([w for w, _ in cold]):.1f}x (first run), "
                     f"{before / statistics.median([w for w, _ in warm]):.1f}x (repeated run) in wall time, "
                     f"{before_cpu / statistics.median([c for _, c in warm]):.1f}x (repeated run) in CPU time")
        print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(os.environ.get("TRIBUNAL_DATA", "../shared/data")) / "wmt23"
    parser.add_argument("--data", type=Path, default=default, help="the shipped WMT23 folder")
    parser.add_argument("--work", type=Path, default=None, help="where the release and caches go")
    parser.add_argument("--metrics", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--baseline", default=None, help="a git ref whose code is timed alongside")
    parser.add_argument("--skip-significance", action="store_true")
    parser.add_argument("--skip-tables", action="store_true", help="only the --significance runs")
    parser.add_argument("--baseline-significance", default="wmt23,wmt24",
                        help="protocols whose --significance run the baseline repeats (it can take long)")
    args = parser.parse_args()

    from tribunal.data.score_cache import cache_root

    work = args.work or cache_root() / "bench"
    release = full_release.build(args.data, work / f"release-{args.metrics}" / "wmt23", args.metrics)
    print(f"full release: {args.metrics} metrics, {full_release.size_of_score_files(release) / 1e6:.1f} MB of "
          f"score files, at {release}; load average {os.getloadavg()[0]:.1f} (1 min), {os.cpu_count()} cores",
          flush=True)
    runner = Runner(None, work / "cache")
    base = Runner(baseline_tree(args.baseline, work), work / "cache-baseline") if args.baseline else None
    for warm_up in filter(None, (runner, base)):  # bytecode compiled, files in the OS cache: not timed
        warm_up.table(args.data, "wmt23")
        warm_up.table(release, "wmt24")
    help_times = [runner.seconds("--help") for _ in range(args.repeats)]
    print(f"tribunal --help, whole process, median of {args.repeats}: {summary(help_times)} "
          f"[CPU {statistics.median(runner.cpu[-args.repeats:]):.2f} s]", flush=True)
    if not args.skip_tables:
        time_tables(release, runner, base, args.repeats)
        growth(args.data, release, runner, base)
    if not args.skip_significance:
        for protocol in ("wmt23", "wmt24"):
            runner.table(release, protocol)  # the cache filled: a repeated run
            seconds, cpu = timed(runner, lambda: runner.table(release, protocol, "--significance", str(args.samples)))
            line = (f"{protocol} table with --significance {args.samples}, whole process, repeated run: "
                    f"{seconds:.1f} s "
                    f"[CPU {cpu:.1f} s]")
            if base is not None and protocol in args.baseline_significance.split(","):
                before, before_cpu = timed(base, lambda: base.table(release, protocol, "--significance",
                                                                    str(args.samples)))
                line += f"; baseline {before:.1f} s [CPU {before_cpu:.1f} s] -> {before / seconds:.1f}x"
            print(line, flush=True)
    print(acc_t_check(args.data))
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (1 min)")


if __name__ == "__main__":
    main()
