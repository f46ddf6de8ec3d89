"""Batch mode against the online run: the same WMT23 items, the same deterministic judge.

The online run calls a loopback chat-completions server; the batch runs go through a loopback
server speaking OpenAI's Batch API and Anthropic's Message Batches (tests/support/batch_server.py),
both answering with ``tests/support/mqm_fakes.synthetic_judge`` (a synthetic judge, not a model).
Printed: batches and steps, requests sent, LM calls, whether every score is identical to the
online run's, and the client CPU of each run (batch mode replays items every step).

Run: TRIBUNAL_DATA=/work/shared/data .venv/bin/python benchmarks/bench_batch_mode.py --items 200
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def config(api_base: str, out: Path, items: int, model: str, batch: bool):
    from tribunal.eval.mt.config import EvaluateConfig
    from tribunal.programs.lm import LMSettings

    data = Path(os.environ.get("TRIBUNAL_DATA", REPO.parent / "shared" / "data"))
    lm = LMSettings(model=model, api_base=api_base, api_key_env="TRIBUNAL_BENCH_KEY", cache=False, timeout=30)
    return EvaluateConfig(data=data / "wmt23", lp="zh-en", lm=lm, limit=items, concurrency=16, demos=2,
                          demo_data=data / "mqm-ted", out=out,
                          batch={"enabled": batch, "poll_seconds": 0.01, "poll_max_seconds": 0.05})


def timed(cfg):
    from tribunal.eval.mt.job import run_evaluation
    from tribunal.eval.tracking.mlflow_run import TrackingSettings

    cpu, wall = time.process_time(), time.perf_counter()
    result = run_evaluation(cfg, TrackingSettings(enabled=False))
    return result, time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    from tests.support.batch_server import batch_server
    from tests.support.loopback import loopback_server
    from tests.support.mqm_fakes import synthetic_judge

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=200)
    args = parser.parse_args()
    os.environ["TRIBUNAL_BENCH_KEY"] = "loopback-peer-takes-any-key"
    with tempfile.TemporaryDirectory() as tmp:
        with loopback_server(synthetic_judge) as (api_base, _):
            online, cpu, wall = timed(config(api_base, Path(tmp) / "online", args.items, "openai/bench-judge", False))
        print(f"online: {online.summary['items']} items, {online.summary['lm_calls']} LM calls, "
              f"client CPU {cpu:.1f} s ({1000 * cpu / online.summary['lm_calls']:.2f} ms per call)")
        reference = {k: (r.status, r.score) for k, r in online.results.items()}
        for provider in ("openai", "anthropic"):
            with batch_server(synthetic_judge) as (base, state):
                result, cpu, wall = timed(config(base + "/v1", Path(tmp) / provider, args.items,
                                                 f"{provider}/bench-judge", True))
            stats = result.summary["batch"]
            same = {k: (r.status, r.score) for k, r in result.results.items()} == reference
            print(f"{provider} batches: {stats['batches']} batches in {stats['steps']} steps, "
                  f"{stats['requests']} requests ({sum(state.answered.values())} answered, none twice: "
                  f"{max(state.answered.values()) == 1}), {result.summary['lm_calls']} LM calls, "
                  f"scores identical to online: {same}; {stats['replays']} item replays, client CPU {cpu:.1f} s "
                  f"({1000 * cpu / result.summary['lm_calls']:.2f} ms per call), wall {wall:.1f} s")


if __name__ == "__main__":
    main()
