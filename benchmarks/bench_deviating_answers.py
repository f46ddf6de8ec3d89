"""M-MAD against a peer that answers like real chat models: items lost and calls paid.

A loopback server answers with the deterministic synthetic judge; a share of its answers (default
30%) carries one to three of the deviations in ``tests/support/deviations.py`` (preamble, fences,
Title-Case enums, yes/no booleans, key case, bold headers, no completion marker, closing remark,
JSON instead of the chat layout). The same items are judged with clean answers, with deviating
answers read by tribunal's tolerant adapter, and (``--stock``) with DSPy's stock ChatAdapter and
its JSON re-ask fallback, for comparison.

Run: TRIBUNAL_DATA=/work/shared/data .venv/bin/python benchmarks/bench_deviating_answers.py --items 60
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from pathlib import Path
from unittest import mock

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def judge(args, render, out: Path):
    from tests.support.loopback import loopback_server
    from tests.support.mqm_fakes import synthetic_judge
    from tribunal.eval.mt.config import EvaluateConfig
    from tribunal.eval.mt.job import run_evaluation
    from tribunal.eval.tracking.mlflow_run import TrackingSettings
    from tribunal.programs.lm import LMSettings

    data = Path(os.environ.get("TRIBUNAL_DATA", REPO.parent / "shared" / "data"))
    with loopback_server(synthetic_judge, render=render) as (api_base, state):
        lm = LMSettings(model="openai/bench-judge", api_base=api_base, cache=False, timeout=30, num_retries=0)
        config = EvaluateConfig(data=data / "wmt23", lp=args.lp, lm=lm, limit=args.items, concurrency=8,
                                demos=2, demo_data=data / "mqm-ted", out=out)
        result = run_evaluation(config, TrackingSettings(enabled=False))
    return result, len(state.hits)


def main() -> None:
    from tests.support.deviations import deviating_renderer

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=60)
    parser.add_argument("--lp", default="en-de")
    parser.add_argument("--rate", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stock", action="store_true", help="also read the deviating answers with DSPy's stock adapter")
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "loopback-peer-takes-any-key")
    runs = [("clean answers", None, contextlib.nullcontext())]
    runs.append((f"{args.rate:.0%} deviating, tolerant adapter", deviating_renderer(args.rate, args.seed),
                 contextlib.nullcontext()))
    if args.stock:
        runs.append((f"{args.rate:.0%} deviating, DSPy stock adapter", deviating_renderer(args.rate, args.seed),
                     mock.patch("tribunal.programs.answers.tolerant_answers", contextlib.nullcontext)))
    baseline = None
    for label, render, patch in runs:
        with tempfile.TemporaryDirectory() as out, patch:
            result, hits = judge(args, render, Path(out))
        s = result.summary
        baseline = baseline or hits
        deviated = render.answers["deviating"] if render else 0
        print(f"--- {label}: {s['items']} {args.lp} items")
        print(f"answers deviating {deviated} of {hits}; unscored {s['unscored']} {s['unscored_reasons'] or ''}")
        print(f"LM calls (server hits) {hits} = {hits / baseline:.3f}x the clean run")


if __name__ == "__main__":
    main()
