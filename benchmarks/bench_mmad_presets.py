"""LM calls per item of M-MAD's two presets, against the original M-MAD code on the same outcomes.

Runs ``tribunal mt evaluate``'s job in-process on the runner benchmark's items (WMT23 zh-en, the
first 200 unique items) with the deterministic synthetic judge of ``tests/support/mqm_fakes.py``
(no HTTP, no latency: only the call counts matter here). Both presets see the same outcomes: the
same stage-1 findings, and each debate ends in the same round (the paper preset's debaters converge
in the round where the lean debate reaches consensus). The original code's calls for the same
outcomes come from ``tests/support/original_mmad_cost.py``.

Run: TRIBUNAL_DATA=/work/shared/data .venv/bin/python benchmarks/bench_mmad_presets.py
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def run(preset: str, args, out: Path):
    from tests.support.mqm_fakes import ScriptedEngine, synthetic_judge
    from tribunal.eval.mt.config import EvaluateConfig
    from tribunal.eval.mt.job import run_evaluation
    from tribunal.eval.tracking.mlflow_run import TrackingSettings
    from tribunal.programs.lm import LMSettings

    data = Path(os.environ.get("TRIBUNAL_DATA", REPO.parent / "shared" / "data"))
    config = EvaluateConfig(data=data / "wmt23", lp=args.lp, lm=LMSettings(model="openai/bench-judge", cache=False),
                            limit=args.items, concurrency=8, demo_data=data / "mqm-ted", out=out,
                            mmad={"preset": preset})
    return run_evaluation(config, TrackingSettings(enabled=False), engine=ScriptedEngine(synthetic_judge))


def report(preset: str, result) -> None:
    from tests.support.original_mmad_cost import original_mmad_calls

    ours = original = scored = 0
    for record in result.results.values():
        if record.status != "scored":
            continue
        calls = sum(v for k, v in record.usage.calls.items() if "/" not in k)
        rounds = {d: v["rounds"] for d, v in record.debates.items()}
        found = any(t.errors for t in record.transcript if t.stage == "stage1") \
            if preset == "paper" else None  # lean: the original holding the same debates (cost.py)
        ours, original, scored = ours + calls, original + original_mmad_calls(rounds, found), scored + 1
    summary = result.summary
    print(f"--- preset={preset}: items {summary['items']}, scored {scored}, unscored {summary['unscored']}")
    print(f"LM calls {summary['lm_calls']} by stage {summary['lm_calls_by_stage']}")
    print(f"debates {summary['debate']['debates']}, mean rounds {summary['debate']['mean_rounds']:.2f}")
    print(f"calls per item: preset {ours / max(scored, 1):.2f}, original M-MAD on the same outcomes "
          f"{original / max(scored, 1):.2f} -> ratio {ours / max(original, 1):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--lp", default="zh-en")
    args = parser.parse_args()
    for preset in ("lean", "paper"):
        with tempfile.TemporaryDirectory() as out:
            report(preset, run(preset, args, Path(out)))


if __name__ == "__main__":
    main()
