"""What a reference, document context and K samples cost: LM calls, prompt tokens, wall time.

Every run judges the same WMT23 zh-en items with GEMBA-MQM (or ``--program``) against a loopback
chat-completions server (``tests/support/loopback.py``, fixed latency) answering with a *noisy*
synthetic judge: ``tests/support/mqm_fakes.synthetic_judge`` plus, on about a third of the
requests (a hash of the item and how often it was asked), one more minor error, so samples of one
item differ. It measures mechanics (calls,
tokens as the server counts them: characters / 4, wall time under the runner's concurrency), not
any model's quality. Printed per setting: items, LM calls and their ratio to the plain run,
prompt tokens and their ratio, wall time, and for K > 1 the mean per-item std of the K scores.

Run: TRIBUNAL_DATA=/work/shared/data .venv/bin/python benchmarks/bench_segment_samples.py --items 100
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

SETTINGS = {
    "plain": {},
    "--reference refA": {"segment": {"reference": "refA"}},
    "--context 2": {"segment": {"context": 2}},
    "--reference refA --context 2": {"segment": {"reference": "refA", "context": 2}},
    "--samples 5 --combine trimmed": {"sampling": {"samples": 5, "combine": "trimmed"}},
}


class NoisyJudge:
    """The synthetic judge; GEMBA-MQM's answer gets one more minor error on about a third of the requests,
    chosen by a hash of the item and how many times it was asked (so each item's K answers are fixed)."""

    def __init__(self):
        from tests.support.mqm_fakes import synthetic_judge

        self.judge, self.asked, self.lock = synthetic_judge, Counter(), threading.Lock()

    def __call__(self, name, inputs):
        outputs = self.judge(name, inputs)
        item = (name, inputs.get("source"), inputs.get("translation"), str(inputs.get("context")))
        with self.lock:
            asked = self.asked[item]
            self.asked[item] += 1
        noisy = hashlib.sha256(repr((item, asked)).encode()).digest()[0] < 256 / 3
        if noisy and isinstance(outputs, dict) and name == "GembaMQM":
            word = inputs["translation"].split()[0] if inputs["translation"].split() else ""
            outputs = {**outputs, "errors": [*outputs["errors"], {"span": word, "category": "fluency",
                                                                   "severity": "minor"}]}
        return outputs


def run(api_base: str, out: Path, items: int, program: str, extra: dict):
    from tribunal.eval.mt.config import EvaluateConfig
    from tribunal.eval.mt.job import run_evaluation
    from tribunal.eval.tracking.mlflow_run import TrackingSettings
    from tribunal.programs.lm import LMSettings

    data = Path(os.environ.get("TRIBUNAL_DATA", REPO.parent / "shared" / "data"))
    lm = LMSettings(model="openai/bench-judge", api_base=api_base, api_key_env="TRIBUNAL_BENCH_KEY", cache=False,
                    timeout=30, temperature=1.0)
    config = EvaluateConfig(data=data / "wmt23", lp="zh-en", program=program, lm=lm, limit=items, concurrency=16,
                            demo_data=data / "mqm-ted", out=out, **extra)
    started = time.perf_counter()
    result = run_evaluation(config, TrackingSettings(enabled=False))
    return result, time.perf_counter() - started


def main() -> None:
    from tests.support.loopback import loopback_server

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--program", default="gemba-mqm")
    parser.add_argument("--latency", type=float, default=0.05)
    args = parser.parse_args()
    os.environ["TRIBUNAL_BENCH_KEY"] = "loopback-peer-takes-any-key"
    base = None
    with tempfile.TemporaryDirectory() as tmp:
        with loopback_server(NoisyJudge(), latency=args.latency) as (api_base, _):  # warm-up: imports, demos
            run(api_base, Path(tmp) / "warm-up", 2, args.program, {})
        for label, extra in SETTINGS.items():
            with loopback_server(NoisyJudge(), latency=args.latency) as (api_base, _):
                result, wall = run(api_base, Path(tmp) / str(len(label)) / label.replace(" ", "_"), args.items,
                                   args.program, extra)
            s = result.summary
            base = base or s
            spread = s.get("sampling", {}).get("mean_std")
            print(f"{args.program} {label}: {s['items']} items, {s['lm_calls']} LM calls "
                  f"({s['lm_calls'] / base['lm_calls']:.2f}x), {s['prompt_tokens']} prompt tokens "
                  f"({s['prompt_tokens'] / base['prompt_tokens']:.2f}x), wall {wall:.2f} s"
                  + (f", mean per-item std {spread:.3f}" if spread is not None else ""))


if __name__ == "__main__":
    main()
