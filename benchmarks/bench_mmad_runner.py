"""Benchmark the MT runner: 200 WMT23 items, M-MAD over HTTP against a loopback server.

The server (a separate process, so it does not share the runner's GIL) answers every call after
``--latency`` seconds with the deterministic synthetic judge of ``tests/support/mqm_fakes.py``.

    efficiency = ideal / wall, ideal = max(calls * latency / concurrency, longest item's calls * latency)
    cost ratio = our LM calls / the original M-MAD's calls for the same outcomes
                 (same stage-1 findings, same rounds per debate; see programs/mqm/cost.py)

Run: TRIBUNAL_DATA=/work/shared/data .venv/bin/python benchmarks/bench_mmad_runner.py
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def serve(latency: float, port_pipe, stop) -> None:
    from tests.support.loopback import loopback_server
    from tests.support.mqm_fakes import synthetic_judge

    with loopback_server(synthetic_judge, latency=latency) as (api_base, _):
        port_pipe.send(api_base)
        stop.wait()


def run(api_base: str, args, out: Path, opening: str):
    from tribunal.eval.mt.config import EvaluateConfig
    from tribunal.eval.mt.job import run_evaluation
    from tribunal.eval.tracking.mlflow_run import TrackingSettings
    from tribunal.programs.lm import LMSettings

    os.environ["TRIBUNAL_BENCH_KEY"] = "sk-bench-not-a-secret"
    lm = LMSettings(model="openai/bench-judge", api_base=api_base, api_key_env="TRIBUNAL_BENCH_KEY",
                    cache=False, timeout=30)
    data = Path(os.environ.get("TRIBUNAL_DATA", REPO.parent / "shared" / "data"))
    config = EvaluateConfig(data=data / "wmt23", lp=args.lp, lm=lm, limit=args.items, concurrency=args.concurrency,
                            processes=args.processes,
                            demos=2, demo_data=data / "mqm-ted", out=out, mmad={"opening": opening})
    return run_evaluation(config, TrackingSettings(enabled=False))


def report(result, args, label: str) -> None:
    from tribunal.programs.mqm.cost import original_mmad_calls

    summary, latency = result.summary, args.latency
    calls = summary["lm_calls"]
    per_item = [sum(v for k, v in r.usage.get("calls", {}).items() if "/" not in k) for r in result.results.values()]
    ideal = max(calls * latency / args.concurrency, max(per_item) * latency)
    wall = summary["wall_seconds"]
    ours = original = 0
    classes: Counter = Counter()
    class_calls: dict = {}
    for record, n in zip(result.results.values(), per_item):
        if record.status != "scored":
            continue
        rounds = {d: v["rounds"] for d, v in record.debates.items()}
        orig = original_mmad_calls(rounds)
        ours, original = ours + n, original + orig
        key = f"{len(rounds)} dim(s) debated, rounds {sorted(rounds.values())}"
        classes[key] += 1
        class_calls[key] = (n, orig)
    print(f"--- {label}")
    print(f"items {summary['items']} (cells {summary['cells']}, duplicates {summary['duplicates']}), "
          f"scored {summary['scored']}, unscored {summary['unscored']}")
    print(f"LM calls {calls} by stage {summary['lm_calls_by_stage']}")
    print(f"wall {wall:.2f} s, ideal {ideal:.2f} s (latency {latency} s, concurrency {args.concurrency}) "
          f"-> efficiency {ideal / wall:.3f}")
    print(f"calls per item: ours {ours / max(summary['scored'], 1):.2f}, original M-MAD "
          f"{original / max(summary['scored'], 1):.2f} -> ratio {ours / max(original, 1):.3f}")
    for key, count in sorted(classes.items(), key=lambda kv: -kv[1])[:8]:
        n, orig = class_calls[key]
        print(f"   {count:4d} x {key}: {n} vs {orig} calls")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--lp", default="zh-en")
    parser.add_argument("--processes", type=int, default=1, help="worker processes sharing the call slots")
    parser.add_argument("--both-openings", action="store_true", help="also run opening=debater (paper protocol)")
    args = parser.parse_args()
    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    stop = context.Event()
    server = context.Process(target=serve, args=(args.latency, send, stop), daemon=True)
    server.start()
    try:
        api_base = receive.recv()
        for opening in (["stage1", "debater"] if args.both_openings else ["stage1"]):
            with tempfile.TemporaryDirectory() as out:
                result = run(api_base, args, Path(out), opening)
                report(result, args, f"M-MAD consensus, opening={opening}")
    finally:
        stop.set()
        server.join(timeout=10)


if __name__ == "__main__":
    main()
