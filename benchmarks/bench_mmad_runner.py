"""Benchmark the MT runner: WMT23 items judged by M-MAD over HTTP against a loopback server.

The server (a separate process, so it does not share the runner's GIL) answers every call after
``--latency`` seconds (``+- --jitter``, uniform) with a deterministic synthetic judge, not a model:

- ``light``: ``tests/support/mqm_fakes.synthetic_judge`` (stage 1 finds errors at 15-45% per
  dimension, debates mostly end in round 1): few sequential calls per item;
- ``debate-heavy``: ``tests/support/debate_heavy.debate_heavy_judge`` (errors in 90% of dimensions,
  no debater ever concedes, every debate runs to the round limit): long chains of sequential calls.

Reported per workload:

    efficiency = ideal / wall, ideal = max(calls * latency / concurrency, longest chain * latency)
    calls per item (ours), and the original M-MAD's for the same outcomes (tests/support/original_mmad_cost.py)
    client CPU per call = this process's CPU time while judging (all threads) / LM calls

The system load (1-minute load average) before and after each run is printed: the machine is
shared, and the client's CPU competes with everything else on it.

Run: TRIBUNAL_DATA=/work/shared/data .venv/bin/python benchmarks/bench_mmad_runner.py \
         --workload both --latency 1.0 --jitter 0.3 --concurrency 128 --items 400
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

WORKLOADS = {"light": ("tests.support.mqm_fakes", "synthetic_judge"),
             "debate-heavy": ("tests.support.debate_heavy", "debate_heavy_judge")}


def serve(workload: str, latency: float, jitter: float, port_pipe, stop) -> None:
    import importlib

    from tests.support.loopback import loopback_server

    module, name = WORKLOADS[workload]
    responder = getattr(importlib.import_module(module), name)
    with loopback_server(responder, latency=latency, jitter=jitter) as (api_base, _):
        port_pipe.send(api_base)
        stop.wait()


def cpu_seconds() -> float:
    """CPU time of this process (every thread) and of its reaped children (worker processes)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run(api_base: str, args, out: Path, opening: str):
    from tribunal.eval.mt.config import EvaluateConfig
    from tribunal.eval.mt.job import run_evaluation
    from tribunal.eval.tracking.mlflow_run import TrackingSettings
    from tribunal.programs.lm import LMSettings

    os.environ["TRIBUNAL_BENCH_KEY"] = "loopback-peer-takes-any-key"
    lm = LMSettings(model="openai/bench-judge", api_base=api_base, api_key_env="TRIBUNAL_BENCH_KEY",
                    cache=False, timeout=30)
    data = Path(os.environ.get("TRIBUNAL_DATA", REPO.parent / "shared" / "data"))
    config = EvaluateConfig(data=data / "wmt23", lp=args.lp, lm=lm, limit=args.items, concurrency=args.concurrency,
                            processes=args.processes,
                            demos=2, demo_data=data / "mqm-ted", out=out,
                            mmad={"preset": "lean", "opening": opening})
    marks = {}

    def progress(done: int, total: int) -> None:
        # From before the program is built (about 0.15 s of CPU) to the last item judged: writing
        # and meta-evaluating the outputs afterwards is not per-call work.
        marks.setdefault("start", cpu_seconds())
        if done == total:
            marks["end"] = cpu_seconds()

    result = run_evaluation(config, TrackingSettings(enabled=False), progress=progress)
    return result, marks["end"] - marks["start"]


def chain(record, opening: str) -> int:
    """Sequential LM calls of one consensus-strategy item: stage 1, its longest debate, the judge."""
    debate = max((2 * d["rounds"] - (1 if opening == "stage1" else 0) for d in record.debates.values()), default=0)
    judged = any(t.stage == "stage3" and "skipped" not in (t.model_extra or {}) for t in record.transcript)
    return 1 + debate + (1 if judged else 0)


def report(result, cpu: float, args, label: str, opening: str, load: tuple[float, float]) -> None:
    from tests.support.original_mmad_cost import original_mmad_calls

    summary, latency = result.summary, args.latency
    calls = summary["lm_calls"]
    longest = max(chain(r, opening) for r in result.results.values())
    ideal = max(calls * latency / args.concurrency, longest * latency)
    wall = summary["wall_seconds"]
    ours = original = 0
    classes: Counter = Counter()
    class_calls: dict = {}
    for record in result.results.values():
        if record.status != "scored":
            continue
        n = sum(v for k, v in record.usage.calls.items() if "/" not in k)
        rounds = {d: v["rounds"] for d, v in record.debates.items()}
        orig = original_mmad_calls(rounds)
        ours, original = ours + n, original + orig
        key = f"{len(rounds)} dim(s) debated, rounds {sorted(rounds.values())}"
        classes[key] += 1
        class_calls[key] = (n, orig)
    scored = max(summary["scored"], 1)
    print(f"--- {label}")
    print(f"items {summary['items']} (cells {summary['cells']}, duplicates {summary['duplicates']}), "
          f"scored {summary['scored']}, unscored {summary['unscored']}")
    print(f"LM calls {calls} by stage {summary['lm_calls_by_stage']}; longest chain {longest} calls")
    print(f"wall {wall:.2f} s, ideal {ideal:.2f} s (latency {latency} +- {args.jitter} s, concurrency "
          f"{args.concurrency}, processes {args.processes}) -> efficiency {ideal / wall:.3f}")
    print(f"calls per item: ours {ours / scored:.2f}, original M-MAD {original / scored:.2f} "
          f"-> ratio {ours / max(original, 1):.3f}")
    print(f"client CPU {cpu:.1f} s -> {1000 * cpu / max(calls, 1):.2f} ms per call "
          f"({cpu / wall:.2f} cores busy); load average {load[0]:.2f} before, {load[1]:.2f} after")
    for key, count in sorted(classes.items(), key=lambda kv: -kv[1])[:6]:
        n, orig = class_calls[key]
        print(f"   {count:4d} x {key}: {n} vs {orig} calls")


def bench(workload: str, args) -> None:
    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    stop = context.Event()
    server = context.Process(target=serve, args=(workload, args.latency, args.jitter, send, stop), daemon=True)
    server.start()
    try:
        api_base = receive.recv()
        for opening in (["stage1", "debater"] if args.both_openings else ["stage1"]):
            with tempfile.TemporaryDirectory() as out:
                before = os.getloadavg()[0]
                result, cpu = run(api_base, args, Path(out), opening)
                report(result, cpu, args, f"{workload} workload, M-MAD consensus, opening={opening}", opening,
                       (before, os.getloadavg()[0]))
    finally:
        stop.set()
        server.join(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--jitter", type=float, default=0.0, help="response time spread: latency +- jitter")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--lp", default="zh-en")
    parser.add_argument("--processes", type=int, default=1, help="worker processes sharing the call slots")
    parser.add_argument("--workload", choices=[*WORKLOADS, "both"], default="light")
    parser.add_argument("--both-openings", action="store_true", help="also run opening=debater (lean preset with the debater's own opening call)")
    args = parser.parse_args()
    for workload in (list(WORKLOADS) if args.workload == "both" else [args.workload]):
        bench(workload, args)


if __name__ == "__main__":
    main()
