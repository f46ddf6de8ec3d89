"""Benchmark the cost of MLflow traces on an MT run: the same M-MAD run with and without traces.

A loopback LM server (a separate process) answers every call after ``--latency`` seconds. Each
round runs the job three ways, in rotating order, each in a fresh SQLite store and output folder:
``no-track`` (``--no-track``), ``untraced`` (tracked, ``--trace-sample 0``) and ``traced``
(tracked, every item a trace with its assessments). Wall time is the whole ``run_evaluation``
call, so it includes opening the run, the dataset, prompts, the final flush of the traces and the
agreement plot. The first round also pays one-time imports and is reported apart.

Run: TRIBUNAL_DATA=/work/shared/data .venv/bin/python benchmarks/bench_tracing.py
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmarks.bench_mmad_runner import serve  # noqa: E402  (the same loopback server process)


def one_run(api_base: str, args, root: Path, mode: str) -> tuple[float, float]:
    from tribunal.eval.mt.config import EvaluateConfig
    from tribunal.eval.mt.job import run_evaluation
    from tribunal.eval.tracking.mlflow_run import TrackingSettings
    from tribunal.programs.lm import LMSettings

    os.environ["TRIBUNAL_BENCH_KEY"] = "loopback-peer-takes-any-key"
    lm = LMSettings(model="openai/bench-judge", api_base=api_base, api_key_env="TRIBUNAL_BENCH_KEY", cache=False,
                    timeout=30)
    data = Path(os.environ.get("TRIBUNAL_DATA", REPO.parent / "shared" / "data"))
    config = EvaluateConfig(data=data / "wmt23", lp="zh-en", lm=lm, limit=args.items, rated_only=True,
                            concurrency=args.concurrency, demos=0, out=root / "out")
    tracking = TrackingSettings(enabled=mode != "no-track", uri=f"sqlite:///{root}/mlflow.db", experiment="bench")
    started = time.perf_counter()
    result = run_evaluation(config, tracking, trace_sample=0.0 if mode == "untraced" else 1.0)
    return time.perf_counter() - started, result.summary["wall_seconds"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=60)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    stop, (receive, send) = multiprocessing.Event(), multiprocessing.Pipe(duplex=False)
    server = multiprocessing.Process(target=serve, args=("light", args.latency, 0.0, send, stop), daemon=True)
    server.start()
    api_base = receive.recv()
    modes = ["no-track", "untraced", "traced"]
    times: dict[str, list[float]] = {m: [] for m in modes}
    try:
        with tempfile.TemporaryDirectory() as folder:
            for round_ in range(args.rounds + 1):
                order = modes[round_ % 3:] + modes[:round_ % 3]
                for mode in order:
                    wall, judging = one_run(api_base, args, Path(folder) / f"{round_}-{mode}", mode)
                    label = "warm-up" if round_ == 0 else f"round {round_}"
                    print(f"{label:8} {mode:9} job {wall:6.2f} s   judging {judging:6.2f} s", flush=True)
                    if round_:
                        times[mode].append(wall)
    finally:
        stop.set()
        server.join(timeout=5)
    base = statistics.median(times["no-track"])
    for mode in modes:
        median = statistics.median(times[mode])
        print(f"{mode:9} median {median:6.2f} s  ratio to no-track {median / base:5.3f}  "
              f"(runs: {', '.join(f'{t:.2f}' for t in times[mode])})")
    print(f"traces cost {statistics.median(times['traced']) - statistics.median(times['untraced']):+.2f} s "
          f"({statistics.median(times['traced']) / statistics.median(times['untraced']):.3f}x the tracked run without "
          f"traces) for {args.items} items at {args.latency * 1000:.0f} ms latency, concurrency {args.concurrency}")


if __name__ == "__main__":
    main()
